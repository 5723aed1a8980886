"""Benchmark chunkings x retrievers (x rerankers) on a test set, with answers.

Chunk the documents every given way, retrieve with every retriever (and rerank), score retrieval by query type with
relevance from evidence spans, answer the first questions, and write report.json, report.md, report.txt, charts,
TREC runs and qrels.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, TextIO

from ._budget import add_budget_options, announce_judging, print_estimate
from ._errors import CLIError
from ._intervals import add_interval_options, add_paired_test_options
from ._io import MAX_RESAMPLES, check_cache_dir, check_confidence, check_count
from ._metrics import parse_ks
from ._models import add_judge_options, add_llm_options, judge_from_args, llm_from_args
from ._progress import progress_enabled


def _listing(table: dict[str, Any]) -> str:
    return "; ".join(f"{name}: {c.summary}" for name, c in table.items())


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``rag-eval bench``."""
    from ..bench.components import DEFAULT_RETRIEVERS, RERANKERS, RETRIEVERS

    p.add_argument("--documents", required=True, metavar="DIR_OR_JSONL",
                   help="a folder of .txt, .md, .rst, .html files (more with llama-index-readers-file) or a JSONL "
                        "of {doc_id, text}; the files read and skipped are counted on stderr")
    p.add_argument("--testset", metavar="FILE", help="test-set JSONL (rag-eval generate, or by hand; gzip allowed, - reads standard input)")
    p.add_argument("--chunking", action="append", metavar="SIZE:OVERLAP",
                   help="a SentenceSplitter chunking in tokens (repeatable; default 256:32 and 512:64)")
    p.add_argument("--retriever", action="append", choices=tuple(RETRIEVERS), metavar="NAME",
                   help=f"retriever (repeatable; default {', '.join(DEFAULT_RETRIEVERS)}): {_listing(RETRIEVERS)}")
    p.add_argument("--rerank", action="append", choices=tuple(RERANKERS), metavar="NAME",
                   help=f"rerank each retriever's candidates (repeatable; adds a configuration each): "
                        f"{_listing(RERANKERS)}")
    p.add_argument("--candidates", type=int, default=50, metavar="N", help="candidates retrieved for reranking (default 50)")
    p.add_argument("--k", metavar="K,K,...", help="cutoffs (default 1,3,5,10,20)")
    p.add_argument("--eval-mode", choices=("all", "literal", "semantic"), default="all",
                   help="which questions to score: all, literal, or semantic (paraphrase + scenario)")
    e2e = p.add_mutually_exclusive_group()
    e2e.add_argument("--e2e-limit", type=int, default=20, metavar="N", help="answer the first N questions (default 20)")
    e2e.add_argument("--skip-e2e", action="store_true", help="do not answer questions")
    add_llm_options(p, model_help="answer (and --generate) with this chat model instead of the extractive baseline")
    p.add_argument("--generate", action="store_true",
                   help="first generate the test set (OUTPUT/testset.jsonl) with --llm-model from the first chunking")
    p.add_argument("--samples", type=int, default=30, metavar="N", help="questions to generate (with --generate)")
    p.add_argument("--judge", action="store_true",
                   help="also judge the answers with --judge-model: faithfulness and answer correctness, per "
                        "configuration and query type (replies cached in the cache folder)")
    p.add_argument("--judge-unlabelled", action="store_true",
                   help="with --judge-model: grade (0-3) the retrieved chunks no evidence span labels, and score "
                        "on the completed judgments (each keeps its source; judged@k shows the coverage)")
    add_judge_options(p, model_help="the judge model (default --llm-model)", llm_fallback=True)
    add_paired_test_options(p)
    add_interval_options(p, labels_help="JSONL of human labels for some questions ({query_id, run (a "
                                        "configuration, e.g. s256o32/bm25; none: every one), <metric>: value}): "
                                        "each labelled metric's mean (retrieval or answer metric) is also given "
                                        "corrected with them (PPI++), with its interval and the number of labels")
    p.add_argument("--cache-dir", metavar="DIR",
                   help="the folder of every cache: embeddings, judge, answer and generation replies (default: "
                        "the embeddings in the shared cache folder, $RAG_EVAL_CACHE_DIR, else "
                        "$XDG_CACHE_HOME/rag-eval-adapters, else ~/.cache/rag-eval-adapters; the replies in "
                        "OUTPUT/.cache)")
    p.add_argument("--output", "-o", required=True, metavar="DIR",
                   help="report folder (not inside the documents folder; one holding a report needs --force)")
    p.add_argument("--force", action="store_true",
                   help="replace the report already in --output (its runs, qrels and charts; the cache is kept)")
    p.set_defaults(func=cmd_bench)
    add_budget_options(p)  # --max-cost, --max-calls: after func, which it runs under the limits


def _check_args(args: argparse.Namespace) -> None:
    for name in ("candidates", "samples"):
        check_count(getattr(args, name), f"--{name}")
    check_count(args.e2e_limit, "--e2e-limit", minimum=0)
    if args.generate and args.testset:
        raise CLIError("give --testset FILE or --generate (which writes OUTPUT/testset.jsonl), not both")
    if args.generate and not args.llm_model:
        raise CLIError("--generate writes the test set with an LLM: give --llm-model (and --llm-base-url for a "
                       "local server)")
    if not args.testset and not args.generate:
        raise CLIError("give --testset FILE (or --generate with --llm-model)")
    if args.testset and args.testset != "-" and not Path(args.testset).exists():
        raise CLIError(f"test set file not found: {args.testset}")
    if not Path(args.documents).exists():
        raise CLIError(f"documents not found: {args.documents}")
    out = Path(args.output).resolve()
    written = {out / name for name in REPORT_FILES}
    for given in (args.documents, args.testset, args.human_labels):
        if not given:
            continue
        path = Path(given).resolve()
        if path == out or path in written or path.parent.name in ("runs", "qrels", "charts") and path.parent.parent == out:
            raise CLIError(f"--output {args.output} would write over the input {given}; write the report elsewhere")
    check_cache_dir([args.documents, args.testset, args.human_labels], args.cache_dir)
    check_count(args.permutations, "--permutations", maximum=MAX_RESAMPLES)
    check_confidence(args.confidence)
    if args.human_labels and args.human_labels != "-" and not Path(args.human_labels).is_file():
        raise CLIError(f"human labels file not found: {args.human_labels}")
    if (args.judge or args.judge_unlabelled) and not (args.judge_model or args.llm_model):
        raise CLIError("--judge and --judge-unlabelled need a judge: give --judge-model (and --judge-base-url for a "
                       "local server)")
    _check_chunkings_and_output(args)


REPORT_FILES = ("report.html", "report.json", "report.md", "report.txt")


def _check_chunkings_and_output(args: argparse.Namespace) -> None:
    """Chunkings parse, the report folder is outside the documents folder and holds no report (or --force)."""
    from ..bench import parse_chunking
    from ..bench.inputs import check_output_location

    for spec in args.chunking or ():
        parse_chunking(spec)
    check_output_location(args.documents, args.output)
    out = Path(args.output)
    if any((out / name).exists() for name in REPORT_FILES) and not args.force:
        raise CLIError(f"--output {args.output} already holds a report; give --force to replace it (its cache is "
                       "kept), or write elsewhere")


def _cache_file(args: argparse.Namespace, name: str) -> str:
    folder = Path(args.cache_dir or Path(args.output) / ".cache")
    folder.mkdir(parents=True, exist_ok=True)
    return str(folder / name)


def _judge(args: argparse.Namespace) -> Any:
    """The LLM judge of ``--judge`` / ``--judge-unlabelled`` (``--judge-model``, else ``--llm-model``)."""
    if not (args.judge or args.judge_unlabelled):
        return None
    from ..judges import LLMJudge

    return announce_judging(LLMJudge(judge_from_args(args), cache=_cache_file(args, "judge.sqlite")))  # says each batch's cost first


def _answerer(args: argparse.Namespace) -> Any:
    if not args.llm_model:
        return "extractive"
    from ..bench import LLMAnswerer

    return LLMAnswerer(llm_from_args(args), cache=_cache_file(args, "answers.sqlite"))


def _generate(args: argparse.Namespace, chunking: str, stderr: TextIO) -> str:
    """Write OUTPUT/testset.jsonl with the test-set generator over the first chunking's chunks."""
    from ..bench import load_documents, parse_chunking
    from ..testsets import describe_shortfall, generate_testset

    chunks = parse_chunking(chunking).split(load_documents(args.documents))  # the generator takes them as they are
    path = Path(args.output) / "testset.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    llm, cache = llm_from_args(args), _cache_file(args, "generate.sqlite")
    print_estimate(f"bench --generate ({llm.name})", generate_testset(chunks, llm, samples=args.samples, cache=cache,
                                                                      output=str(path), dry_run=True).summary, stderr)
    testset = generate_testset(chunks, llm, samples=args.samples, cache=cache, output=str(path),
                               progress=progress_enabled(stderr))
    print(f"rag-eval: generated {path}: {testset.summary.get('generated')} questions", file=stderr)
    shortfall = describe_shortfall(testset.summary)
    if shortfall:  # fewer than --samples: say how many and why
        print(f"rag-eval: {shortfall}", file=stderr)
    return str(path)


def cmd_bench(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    from ..bench import DEFAULT_RERANKERS, DEFAULT_RETRIEVERS, BenchSettings, run_bench
    from ..bench.console import print_summary
    from ..cachedir import resolve_cache_dir

    _check_args(args)
    if Path(args.documents).is_dir():  # files not read are never silent: say how many were read and skipped, why
        from ..bench import read_document_folder

        folder = read_document_folder(args.documents)
        if folder.skipped:
            print(f"rag-eval: documents: {folder.describe()}", file=stderr)
    shown = progress_enabled(stderr)
    if args.force and any((Path(args.output) / name).exists() for name in REPORT_FILES):
        print(f"rag-eval: --force: the report in {args.output} will be replaced (its cache is kept)", file=stderr)

    def log(line: str) -> None:
        print(f"rag-eval: {line}", file=stderr, flush=True)

    if args.generate:
        args.testset = _generate(args, (args.chunking or ["256:32"])[0], stderr)
    settings = BenchSettings(ks=tuple(parse_ks(args.k) or (1, 3, 5, 10, 20)), candidates=args.candidates,
                             eval_mode=args.eval_mode, e2e_limit=0 if args.skip_e2e else args.e2e_limit,
                             permutations=args.permutations, correction=args.correction, ci=args.ci,
                             confidence=args.confidence)
    result = run_bench(args.documents, args.testset, chunkings=args.chunking or ["256:32", "512:64"],
                       retrievers=args.retriever or DEFAULT_RETRIEVERS, rerankers=args.rerank or DEFAULT_RERANKERS,
                       settings=settings, answerer=_answerer(args), output_dir=args.output,
                       cache_dir=resolve_cache_dir(args.cache_dir), show_progress=shown, log=log,
                       judge=_judge(args), judge_unlabelled=args.judge_unlabelled, human_labels=args.human_labels)
    print_summary(result, stdout)
    print(f"rag-eval: report written to {Path(args.output).resolve()}; read it in "
          f"{Path(args.output).resolve() / 'report.html'}", file=stderr)
    return 0
