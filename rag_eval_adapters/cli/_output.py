"""Where the ``rag-eval`` commands write: the report text (stdout or ``--output``), rich tables and ``--plot``."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from ._errors import CLIError

__all__ = ["FORMATS", "emit", "print_rich", "check_plot_path", "plot", "with_groups"]

FORMATS = ("table", "json", "csv", "markdown")


def emit(text: str, output: str | None, stdout: TextIO, stderr: TextIO) -> None:
    """Write ``text`` to ``output`` (saying so on stderr), or to stdout when there is none or it is ``-``."""
    if output and output != "-":
        try:
            Path(output).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise CLIError(f"cannot write {output}: {exc.strerror or exc}") from None
        print(f"rag-eval: wrote {output}", file=stderr)
    else:
        stdout.write(text)


def with_groups(text: str, grouped: Any, fmt: str) -> str:
    """A rendered report with :meth:`Report.by <rag_eval_adapters.Report.by>`'s groups added: under ``"groups"``
    of the JSON, else the groups' table after it; ``text`` unchanged when ``grouped`` is None."""
    if grouped is None:
        return text
    if fmt == "json":
        import json

        data = json.loads(text)
        data["groups"] = grouped.to_dict()
        return json.dumps(data, indent=2, default=str) + "\n"
    from ..reports import render_groups

    return text + "\n" + render_groups(grouped, fmt)


def print_rich(renderables: Sequence[Any], stdout: TextIO) -> None:
    """Print rich renderables (tables, text) to ``stdout``."""
    from rich.console import Console

    console = Console(file=stdout)
    for r in renderables:
        console.print(r)


def check_plot_path(path: str | None) -> None:
    """``--plot`` names a PNG file."""
    if path and not path.lower().endswith(".png"):
        raise CLIError(f"--plot writes a PNG image; give a file name ending in .png, got {path}")


def plot(means: dict, path: str, stderr: TextIO, title: str | None = None) -> None:
    """Draw each metric against k (:func:`rag_eval_adapters.reports.plot_metrics`) into ``path``."""
    from ..reports import plot_metrics

    try:
        plot_metrics(means, path, title=title)
    except OSError as exc:
        raise CLIError(f"cannot write {path}: {exc.strerror or exc}") from None
    print(f"rag-eval: wrote {path}", file=stderr)
