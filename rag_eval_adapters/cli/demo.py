"""Offline demo: rag-eval bench on shipped documents and questions.

Chunk the shipped documents two ways, retrieve with BM25, E5 and hybrid, rerank, answer with the extractive
baseline, score by query type, compare with significance tests and write a report folder. Offline.
"""

from __future__ import annotations

import argparse
from typing import TextIO

from ._intervals import add_ci_options, add_paired_test_options
from ._progress import progress_enabled
from ._vocabulary import add_deprecated


def add_arguments(dm: argparse.ArgumentParser) -> None:
    """The options of ``rag-eval demo``."""
    dm.add_argument("--output", "-o", default="rag_eval_report", metavar="DIR",
                    help="folder for the report (default ./rag_eval_report)")
    add_deprecated(dm, "--output-dir", "--output", dest="output", metavar="DIR")
    add_paired_test_options(dm)
    add_ci_options(dm)
    dm.add_argument("--cache-dir", metavar="DIR",
                    help="the folder of every cache: the embeddings (default the shared cache folder: "
                         "$RAG_EVAL_CACHE_DIR, else $XDG_CACHE_HOME/rag-eval-adapters, else "
                         "~/.cache/rag-eval-adapters)")
    dm.set_defaults(func=cmd_demo)


def cmd_demo(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    from ..demo import run_demo
    from ._io import MAX_RESAMPLES, check_confidence, check_count

    check_count(args.permutations, "--permutations", maximum=MAX_RESAMPLES)
    check_confidence(args.confidence)
    run_demo(output_dir=args.output, stdout=stdout, stderr=stderr, show_progress=progress_enabled(stderr),
             permutations=args.permutations, cache_dir=args.cache_dir, correction=args.correction,
             ci=args.ci, confidence=args.confidence)
    return 0
