"""The helpers the ``rag-eval`` commands used to import from here, under their old names.

They live in modules named for their subject: :mod:`._errors` (``CLIError``, ``one_line``), :mod:`._progress`
(progress display), :mod:`._output` (writing reports and plots), :mod:`._metrics` (metric options),
:mod:`._scoring` (reading and scoring runs) and :mod:`._io` (input and output checks). New code imports from
those; this module only keeps the old names working for the commands not yet moved over.
"""

from __future__ import annotations

from typing import Any

from ._errors import CLIError
from ._errors import one_line as _one_line
from ._metrics import DEFAULT_K, default_metrics, parse_ks, relevance_level
from ._output import FORMATS
from ._output import check_plot_path as _check_plot_path
from ._output import emit as _emit
from ._output import plot as _plot
from ._output import print_rich as _print_rich
from ._progress import Steps as _Steps
from ._progress import is_tty as _is_tty
from ._progress import progress_enabled
from ._scoring import load_qrels, load_run, query_details

__all__ = [
    "CLIError", "DEFAULT_K", "FORMATS", "load_qrels", "load_run", "parse_ks", "progress_enabled", "query_details",
    "relevance_level", "_check_plot_path", "_emit", "_is_tty", "_one_line", "_plot", "_print_rich", "_Steps",
]


def __getattr__(name: str) -> Any:  # DEFAULT_METRICS, computed on first use
    if name == "DEFAULT_METRICS":
        return default_metrics()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
