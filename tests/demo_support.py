"""The demo on a two-document cut of its shipped data, for the end-to-end tests of ``rag-eval demo``.

The demo's cost is E5 (offline, on the CPU) embedding every chunk and answer sentence of its documents; two of
the eight documents keep every part of the run (both chunkings, the three retrievers, the reranker, all three
query types, answers, the paired tests with winners, ties and runners-up) at about half the cost. The cut
copies the shipped lines unchanged, so every evidence span still points into its document.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from pathlib import Path

import pytest

#: 23 of the 72 questions: 9 literal, 9 paraphrase, 5 scenario
SMALL_DEMO_DOCUMENTS = ("astronomy.txt", "cooking.txt")


def write_small_demo_data(folder: Path, doc_ids: Sequence[str] = SMALL_DEMO_DOCUMENTS) -> Path:
    """Write ``documents.jsonl`` and ``testset.jsonl`` of the shipped demo cut to ``doc_ids`` into ``folder``.

    A question is kept when all its evidence lies in the kept documents.
    """
    from rag_eval_adapters.demo import data_path

    folder.mkdir(parents=True, exist_ok=True)
    lines = data_path("documents.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    documents = [line for line in lines if json.loads(line)["doc_id"] in doc_ids]
    lines = data_path("testset.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    cases = [line for line in lines if {s["doc_id"] for s in json.loads(line)["evidence_spans"]} <= set(doc_ids)]
    assert len(documents) == len(doc_ids), f"not every one of {doc_ids} is a shipped demo document"
    (folder / "documents.jsonl").write_text("".join(documents), encoding="utf-8")
    (folder / "testset.jsonl").write_text("".join(cases), encoding="utf-8")
    return folder


def run_demo_cli(args: Sequence[str], data_dir: Path) -> tuple[int, str, str]:
    """``rag-eval demo ARGS`` in-process with the demo's data files taken from ``data_dir``.

    The demo reads its files through :func:`rag_eval_adapters.demo.data_path`, replaced for the run.
    Returns (exit status, stdout, stderr).
    """
    import rag_eval_adapters.demo as demo
    from rag_eval_adapters.cli import main

    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(demo, "data_path", lambda name: data_dir / name)
        code = main(["demo", *map(str, args)], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def load_tool(name: str):
    """``tools/NAME.py``, loaded by path (a development tool, not part of the package); the test is skipped where
    the checkout's tools/ is absent."""
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "tools" / f"{name}.py"
    if not path.is_file():
        pytest.skip("tools/ is not part of an installed package")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
