"""Offline demo: rag-eval bench on shipped documents and questions.

Chunk the shipped documents two ways, retrieve with BM25, E5 and hybrid, rerank, answer with the extractive
baseline, score by query type, compare with significance tests and write a report folder. Offline.
"""

from __future__ import annotations

import argparse
from typing import TextIO

from ._errors import CLIError, one_line
from ._intervals import add_ci_options, add_paired_test_options
from ._progress import progress_enabled


def add_arguments(dm: argparse.ArgumentParser) -> None:
    """The options of ``rag-eval demo``."""
    dm.add_argument("--output-dir", default="rag_eval_report", metavar="DIR",
                    help="folder for the report (default ./rag_eval_report)")
    add_paired_test_options(dm)
    add_ci_options(dm)
    dm.add_argument("--cache-dir", metavar="DIR", help="embedding cache (default OUTPUT_DIR/.cache)")
    dm.set_defaults(func=cmd_demo)


def cmd_demo(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    from ..demo import run_demo
    from ._io import MAX_RESAMPLES, check_confidence, check_count

    check_count(args.permutations, "--permutations", maximum=MAX_RESAMPLES)
    check_confidence(args.confidence)
    try:
        run_demo(output_dir=args.output_dir, stdout=stdout, stderr=stderr, show_progress=progress_enabled(stderr),
                 permutations=args.permutations, cache_dir=args.cache_dir, correction=args.correction,
                 ci=args.ci, confidence=args.confidence)
    except (ValueError, TypeError) as exc:
        raise CLIError(one_line(str(exc))) from None
    except OSError as exc:
        raise CLIError(f"cannot write the report: {exc.strerror or exc}") from None
    return 0
