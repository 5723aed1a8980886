"""``rag-eval demo``: the offline demo."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from ._common import (
    CLIError,
    _one_line,
    progress_enabled,
)


def add_parser(sub: Any) -> None:
    """Register the command on the ``rag-eval`` subparsers."""
    dm = sub.add_parser("demo", help="offline demo: BM25 vs TF-IDF through the LlamaIndex adapters",
                        description="Retrieve with BM25 (bm25s) and TF-IDF (scikit-learn) over the "
                                    "corpus shipped with the package, evaluate both with LlamaIndex's "
                                    "RetrieverEvaluator and our metrics, compare them and write a report.")
    dm.add_argument("--output-dir", default="rag_eval_report", metavar="DIR",
                    help="folder for the report (default ./rag_eval_report)")
    dm.add_argument("--top-k", type=int, default=20, metavar="K", help="documents retrieved per query (default 20)")
    dm.add_argument("--permutations", type=int, default=10_000, metavar="N",
                    help="random sign flips of the randomization test (default 10000)")
    dm.set_defaults(func=cmd_demo)


def cmd_demo(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    from ..demo import run_demo
    from ._io import MAX_RESAMPLES, check_count

    check_count(args.top_k, "--top-k", minimum=20, maximum=1_000_000)
    check_count(args.permutations, "--permutations", maximum=MAX_RESAMPLES)
    try:
        run_demo(
            output_dir=args.output_dir,
            top_k=args.top_k,
            stdout=stdout,
            stderr=stderr,
            show_progress=progress_enabled(stderr),
            permutations=args.permutations,
        )
    except ValueError as exc:
        raise CLIError(_one_line(str(exc))) from None
    return 0
