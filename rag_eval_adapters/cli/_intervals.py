"""``--ci`` and ``--human-labels``: the interval every printed mean carries, and the method that made it; the
paired tests' ``--permutations`` and ``--correction`` of ``bench`` and ``demo``."""

from __future__ import annotations

import argparse
from typing import Any

from ..intervals import INTERVAL_METHODS
from ..multitest import CORRECTIONS
from ._errors import CLIError


def add_paired_test_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--permutations N`` and ``--correction METHOD`` (the paired tests between configurations)."""
    parser.add_argument("--permutations", type=int, default=2000, metavar="N",
                        help="sign flips and bootstrap samples of the paired tests (default 2000)")
    parser.add_argument("--correction", choices=CORRECTIONS, default="holm",
                        help="how the p-values of the paired tests are adjusted together (default holm; bh: "
                             "Benjamini-Hochberg)")


def add_ci_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--ci METHOD`` and ``--confidence``."""
    parser.add_argument("--ci", choices=INTERVAL_METHODS, metavar="METHOD",
                        help="give every mean its interval: t (Student's t), normal or bootstrap; the output names "
                             "the method (JSON: intervals)")
    parser.add_argument("--confidence", type=float, default=0.95, metavar="C",
                        help="coverage of the intervals (default 0.95)")


def add_interval_options(parser: argparse.ArgumentParser, *, labels_help: str | None = None) -> None:
    """Add ``--ci METHOD``, ``--human-labels FILE`` (``labels_help`` its help, if the command's differs) and
    ``--confidence``."""
    add_ci_options(parser)
    parser.add_argument("--human-labels", metavar="FILE",
                        help=labels_help or "JSONL of human labels for some queries ({query_id, <metric>: value}): "
                                            "a labelled metric's mean is corrected with them (PPI++) and its "
                                            "interval says so")


def intervals_from_args(report: Any, args: argparse.Namespace, run: str | None = None) -> dict[str, Any] | None:
    """The intervals ``--ci`` and ``--human-labels`` ask for (``None`` when neither is given)."""
    if not args.ci and not args.human_labels:
        return None
    from ..human_labels import read_human_labels
    from ..intervals import report_intervals
    from ..ppi import corrected_means

    if not 0.0 < args.confidence < 1.0:
        raise CLIError(f"--confidence must be between 0 and 1 (e.g. 0.95), got {args.confidence}")
    human = None
    if args.human_labels:
        labels = read_human_labels(args.human_labels)
        human = {**labels.get(None, {}), **(labels.get(run, {}) if run is not None else {})}
        if not human:
            raise ValueError(f"{args.human_labels}: no label without a run or for run {run!r}")
    out = report_intervals(report, method=args.ci or "t", confidence=args.confidence)
    if human:
        out.update(corrected_means(report, human, confidence=args.confidence))
    if not args.ci:  # only the corrected metrics
        out = {k: v for k, v in out.items() if v.method.startswith("ppi")}
    return out
