"""Helpers shared by the ``rag-eval`` commands: errors, progress, file reading, metric names, output."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO


def _default_metrics() -> tuple[str, ...]:
    """The registry's default metrics (hit_rate, mrr, precision, recall, f1, ap, ndcg), loaded when needed so
    that ``rag-eval --help`` does not build the metric classes."""
    from ..measures import default_metric_names

    return tuple(default_metric_names())


def __getattr__(name: str) -> Any:  # DEFAULT_METRICS, computed on first use
    if name == "DEFAULT_METRICS":
        return _default_metrics()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _MetricOption(argparse._AppendAction):
    """``-m/--metric``: its help names the registry's default metrics, looked up only when the help is shown."""

    @property
    def help(self) -> str:
        return self._help.replace("{defaults}", ", ".join(_default_metrics()))

    @help.setter
    def help(self, value: str) -> None:
        self._help = value
DEFAULT_K = (1, 3, 5, 10, 20)
FORMATS = ("table", "json", "csv", "markdown")


class CLIError(Exception):
    """An expected failure: reported as one line on stderr with exit status 2."""


# --------------------------------------------------------------------------------------------
# helpers


def progress_enabled(stream: TextIO | None = None) -> bool:
    """Progress bars only on a terminal, and never when TQDM_DISABLE says so (the package's one rule:
    :func:`rag_eval_adapters.progress.progress_enabled`)."""
    from ..progress import progress_enabled as enabled

    return enabled(stream)


class _Steps:
    """A transient rich progress display on stderr (a no-op when not on a terminal)."""

    def __init__(self, enabled: bool, stream: TextIO | None = None):
        self._progress = None
        if enabled:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                SpinnerColumn,
                TextColumn,
            )

            self._progress = Progress(
                SpinnerColumn(),
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                console=Console(file=stream) if stream is not None else Console(stderr=True),
                transient=True,
            )

    def __enter__(self) -> _Steps:
        if self._progress is not None:
            self._progress.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._progress is not None:
            self._progress.stop()

    def task(self, description: str, total: int | None = None) -> Any:
        if self._progress is None:
            return None
        return self._progress.add_task(description, total=total)

    def advance(self, task: Any, amount: int = 1) -> None:
        if self._progress is not None and task is not None:
            self._progress.advance(task, amount)

    def finish(self, task: Any) -> None:
        if self._progress is not None and task is not None:
            t = self._progress.tasks[[x.id for x in self._progress.tasks].index(task)]
            self._progress.update(task, total=t.total or 1, completed=t.total or 1)


def _as_list(value: Any) -> list:
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _one_line(message: str) -> str:
    return " ".join(str(message).split())


def _check_file(path: str, what: str) -> Path:
    p = Path(path)
    if path == "-":  # standard input
        return p
    if not p.exists():
        raise CLIError(f"{what} file not found: {path}")
    if not p.is_file():
        raise CLIError(f"{what} path is not a file: {path}")
    return p


def load_qrels(path: str) -> dict[str, dict[str, int]]:
    """Read qrels from TREC, JSONL, CSV/TSV (BEIR) or Parquet, maybe gzipped, ``-`` for stdin; raises CLIError."""
    from ._io import read_input

    qrels = read_input(path, "qrels")
    if not qrels:
        raise CLIError(f"qrels file {path} holds no judgments")
    return qrels


def load_run(path: str) -> dict[str, Any]:
    """Read a run from TREC, JSONL, CSV or Parquet (``query_id, doc_id, score|rank``), ``-`` for stdin; raises CLIError."""
    from ._io import read_input

    return read_input(path, "run")


def _prefix_path(exc: BaseException, path: Path) -> str:
    message = _one_line(str(exc))
    if str(path) not in message and path.name not in message:
        message = f"{path}: {message}"
    return message


def resolve_metric_names(metrics: Sequence[str] | None, ks: Sequence[int] | None) -> list[str]:
    """The metric names to compute, each as the user wrote it (the name it is reported under).

    Without ``-m``: every default metric at every k (``--k``, default 1,3,5,10,20).  With ``-m``:
    the names as given (comma-separated lists allowed); when ``--k`` is also given, a name without
    a cutoff is expanded to one metric per k (``-m ndcg --k 5,10`` gives ndcg@5 and ndcg@10).
    Unknown names raise CLIError suggesting the closest valid one.
    """
    from ..measures import parse_metric

    def key_of(name: str) -> str:
        try:
            return parse_metric(name).label
        except (ValueError, TypeError) as exc:
            raise CLIError(_one_line(str(exc))) from None

    keys: list[str] = []

    def add(key: str) -> None:
        if key not in keys:
            keys.append(key)

    if not metrics:
        for m in _default_metrics():
            for k in ks or DEFAULT_K:
                add(key_of(f"{m}@{k}"))
        return keys
    for item in metrics:
        for name in item.split(","):
            name = name.strip()
            if not name:
                continue
            plain = key_of(name)  # validates the name first
            if not ks or parse_metric(name).k is not None:
                add(plain)
                continue
            try:
                expanded = [parse_metric(f"{name}@{k}").label for k in ks]
            except (ValueError, TypeError):
                add(plain)  # a metric without cutoffs, such as r_precision
            else:
                for key in expanded:
                    add(key)
    return keys


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
        raise CLIError(_one_line(str(exc))) from None


def query_details(qrels: dict, run: dict, relevance_level: float = 1) -> dict:
    """Per query: judged-relevant count, distinct retrieved count and rank of the first relevant doc.

    The core ranks the run (:func:`rag_eval_adapters.query_details`), exactly as it ranks for the metrics.
    """
    from .. import query_details as core_details
    from ..reports import QueryDetail

    return {qid: QueryDetail(**detail) for qid, detail in core_details(qrels, run, relevance_level).items()}


def score_run(qrels: dict, run: dict, metrics: Sequence[str], relevance_level: float, name: str, steps: _Steps):
    """Evaluate one run with the core, after checking it shares queries with the qrels."""
    from .. import evaluate

    common = set(run) & set(qrels)
    if not common:
        raise CLIError(f"run {name} has no query in common with the qrels")
    task = steps.task(f"scoring {name}", total=1)
    try:
        report = evaluate(qrels, run, list(metrics), relevance_level=relevance_level)
    except (ValueError, TypeError) as exc:
        raise CLIError(f"{name}: {_one_line(str(exc))}") from None
    steps.finish(task)
    return report


def _emit(text: str, output: str | None, stdout: TextIO, stderr: TextIO) -> None:
    if output and output != "-":
        try:
            Path(output).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise CLIError(f"cannot write {output}: {exc.strerror or exc}") from None
        print(f"rag-eval: wrote {output}", file=stderr)
    else:
        stdout.write(text)


def _print_rich(renderables: Sequence[Any], stdout: TextIO) -> None:
    from rich.console import Console

    console = Console(file=stdout)
    for r in renderables:
        console.print(r)


def _run_name(path: str, taken: set[str]) -> str:
    stem = Path(path).name if path != "-" else "stdin"
    name, i = stem, 2
    while name in taken:
        name, i = f"{stem}#{i}", i + 1
    taken.add(name)
    return name


def _check_sort_by(sort_by: str | None, keys: Sequence[str]) -> str | None:
    if sort_by is None:
        return None
    from ..measures import parse_metric

    if sort_by in keys:
        return sort_by
    try:
        wanted = parse_metric(sort_by)
    except (ValueError, TypeError) as exc:
        raise CLIError(_one_line(str(exc))) from None
    for key in keys:  # the same metric under another name (ap@10 for map@10)
        if parse_metric(key) == wanted:
            return key
    raise CLIError(f"--sort-by {sort_by}: not among the computed metrics ({', '.join(keys)})")


def _check_plot_path(path: str | None) -> None:
    if path and not path.lower().endswith(".png"):
        raise CLIError(f"--plot writes a PNG image; give a file name ending in .png, got {path}")


def _plot(means: dict, path: str, stderr: TextIO, title: str | None = None) -> None:
    from ..reports import plot_metrics

    try:
        plot_metrics(means, path, title=title)
    except OSError as exc:
        raise CLIError(f"cannot write {path}: {exc.strerror or exc}") from None
    print(f"rag-eval: wrote {path}", file=stderr)


def _is_tty(stream: TextIO) -> bool:
    from ..progress import is_terminal

    return is_terminal(stream)


def _add_scoring_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--qrels", required=True, metavar="FILE",
                   help="judgments: TREC qrels (qid iter doc grade), JSONL, BEIR TSV or a CSV/Parquet table; "
                        ".gz allowed; - reads standard input")
    p.add_argument("-m", "--metric", action=_MetricOption, metavar="METRIC",
                   help="metric to compute, e.g. ndcg@10, ap, mrr, precision@5, hit_rate_granular@3, or "
                        "trec_eval/ir_measures names (P_5, ndcg_cut_10, nDCG@10, P(rel=2)@5); reported under "
                        "the name given (repeatable, or comma-separated); default: {defaults} at every --k")
    p.add_argument("--k", metavar="K,K,...",
                   help="cutoffs, comma-separated (default 1,3,5,10,20); with -m, expands metrics "
                        "given without @k")
    p.add_argument("--relevance-level", default="1", metavar="N",
                   help="lowest grade that counts as relevant (default 1; any number: a judged document is "
                        "relevant when its grade is at least N, an unjudged one never is); nDCG uses the raw grades")
    p.add_argument("--format", choices=FORMATS, default=None,
                   help="output format (default: by the --output extension .json, .csv or .md, else table)")
    p.add_argument("--plot", metavar="FILE.png", help="draw each metric against k into a PNG")
    p.add_argument("--output", "-o", metavar="FILE",
                   help="write the report to FILE instead of stdout (never an input file; its folder must exist)")
    p.add_argument("--allow-errors", action="store_true",
                   help="exit 0 even when some queries could not be scored (they are listed in the report)")


