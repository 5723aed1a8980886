"""The metric options of ``rag-eval evaluate``, ``compare`` and ``traces``: ``-m``, ``--k``, ``--relevance-level``,
``--sort-by``. Each metric name is read once, into a metric object of the registry, and used as that object
from then on (scoring, sorting, rendering)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ._errors import CLIError, one_line

if TYPE_CHECKING:
    from ..measures import Metric

__all__ = ["DEFAULT_K", "default_metrics", "MetricOption", "resolve_metrics", "parse_ks", "relevance_level",
           "check_sort_by", "add_metric_options", "read_metric_options"]

DEFAULT_K = (1, 3, 5, 10, 20)


def default_metrics() -> tuple[str, ...]:
    """The registry's default metrics (hit_rate, mrr, precision, recall, f1, ap, ndcg), loaded when needed so
    that ``rag-eval --help`` does not build the metric classes."""
    from ..measures import default_metric_names

    return tuple(default_metric_names())


class MetricOption(argparse._AppendAction):
    """``-m/--metric``: its help names the registry's default metrics, looked up only when the help is shown."""

    @property
    def help(self) -> str:
        return self._help.replace("{defaults}", ", ".join(default_metrics()))

    @help.setter
    def help(self, value: str) -> None:
        self._help = value


def add_metric_options(p: argparse.ArgumentParser) -> None:
    """Declare ``-m/--metric``, ``--k`` and ``--relevance-level`` as every command scoring rankings names them
    (read back with :func:`read_metric_options`)."""
    p.add_argument("-m", "--metric", action=MetricOption, metavar="METRIC",
                   help="metric to compute, e.g. ndcg@10, ap, mrr, precision@5, hit_rate_granular@3, or "
                        "trec_eval/ir_measures names (P_5, ndcg_cut_10, nDCG@10, P(rel=2)@5); reported under "
                        "the name given (repeatable, or comma-separated); default: {defaults} at every --k")
    p.add_argument("--k", metavar="K,K,...",
                   help="cutoffs, comma-separated (default 1,3,5,10,20); with -m, expands metrics "
                        "given without @k")
    p.add_argument("--relevance-level", default="1", metavar="N",
                   help="lowest grade that counts as relevant (default 1; any number: a judged document is "
                        "relevant when its grade is at least N, an unjudged one never is); nDCG uses the raw grades")


def read_metric_options(args: argparse.Namespace) -> list[Metric]:
    """The metric objects of the options :func:`add_metric_options` declares (``-m`` at every ``--k``), checked
    before any reading; ``args.relevance_level`` is replaced by its checked number. Raises CLIError."""
    metrics = resolve_metrics(args.metric, parse_ks(args.k))
    args.relevance_level = relevance_level(args.relevance_level)
    return metrics


def _parse(name: str) -> Metric:
    from ..measures import parse_metric

    try:
        return parse_metric(name)
    except (ValueError, TypeError) as exc:
        raise CLIError(one_line(str(exc))) from None


def resolve_metrics(metrics: Sequence[str] | None, ks: Sequence[int] | None) -> list[Metric]:
    """The metrics to compute, each read once into a registry metric labelled as the user wrote it.

    Without ``-m``: every default metric at every k (``--k``, default 1,3,5,10,20). With ``-m``: the names as
    given (comma-separated lists allowed); when ``--k`` is also given, a name without a cutoff is expanded to
    one metric per k (``-m ndcg --k 5,10`` gives ndcg@5 and ndcg@10; a metric without cutoffs, such as
    r_precision, stays one). A repeated label is kept once. Unknown names raise CLIError suggesting the closest
    valid one.
    """
    out: dict[str, Metric] = {}

    def add(metric: Metric) -> None:
        out.setdefault(metric.label, metric)

    if not metrics:
        for name in default_metrics():
            for k in ks or DEFAULT_K:
                add(_parse(f"{name}@{k}"))
        return list(out.values())
    for item in metrics:
        for name in filter(None, (part.strip() for part in item.split(","))):
            metric = _parse(name)  # validates the name first
            if not ks or metric.k is not None or not metric.cutoff:
                add(metric)
                continue
            for k in ks:
                add(type(metric)(**{**metric.model_dump(), "k": k}).labelled(f"{name}@{k}"))
    return list(out.values())


def parse_ks(text: str | None) -> list[int] | None:
    """Parse ``"1,3,5"`` into ``[1, 3, 5]``; raises CLIError on anything but positive integers."""
    if text is None:
        return None
    ks = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        if not (part.isascii() and part.isdigit()) or int(part) < 1:
            raise CLIError(f"--k takes positive integers separated by commas (e.g. 1,3,5,10), got {text!r}")
        if len(part) > 10 or int(part) > 1_000_000_000:
            raise CLIError(f"--k: a cutoff must be at most 1000000000, got {part[:12]}{'...' if len(part) > 12 else ''}")
        if int(part) not in ks:
            ks.append(int(part))
    if not ks:
        raise CLIError(f"--k takes positive integers separated by commas (e.g. 1,3,5,10), got {text!r}")
    return ks


def relevance_level(text: str | None) -> float:
    """``--relevance-level``: any finite number, checked as the core checks it (a judged document is relevant
    when its grade is at least the level; an unjudged one never is)."""
    from ..validation import check_level

    try:
        value = float(text) if text is not None else 1.0
    except ValueError:
        raise CLIError(f"--relevance-level must be a finite number (a grade threshold), got {text!r}") from None
    try:
        return check_level(value, "--relevance-level")
    except ValueError as exc:
        raise CLIError(one_line(str(exc))) from None


def check_sort_by(sort_by: str | None, metrics: Sequence[Any]) -> str | None:
    """The column of the computed metric ``--sort-by`` names, by any of its names (``ap@10`` for ``map@10``)."""
    if sort_by is None:
        return None
    labels = [getattr(m, "label", m) for m in metrics]
    if sort_by in labels:
        return sort_by
    wanted = _parse(sort_by)
    for metric, label in zip(metrics, labels, strict=True):
        if metric == wanted:
            return label
    raise CLIError(f"--sort-by {sort_by}: not among the computed metrics ({', '.join(labels)})")
