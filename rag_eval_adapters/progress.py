"""Progress bars and terminal checks, with one ``TQDM_DISABLE`` rule for the whole package.

A progress bar is shown when all of these hold:

* the caller asked for one (``show_progress=True``, the default of long-running functions);
* the ``TQDM_DISABLE`` environment variable is unset, empty, or one of ``0``, ``false``, ``no``, ``off``
  (any case): any other value, such as ``1``, turns every bar of this package off;
* the stream the bar is drawn on (standard error by default) is a terminal;
* ``tqdm`` is installed (the CLI's bars are drawn with ``rich``).

Every bar of the package (``evaluate_dataset``, ``rerank_relevancy_batch``, the ``rag-eval`` commands and the
demo) asks :func:`progress_enabled`; nothing else reads the variable.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from typing import Any, TextIO

__all__ = ["tqdm_disabled", "is_terminal", "progress_enabled", "progress_bar"]

_FALSE = ("", "0", "false", "no", "off")


def tqdm_disabled() -> bool:
    """Whether the ``TQDM_DISABLE`` environment variable turns progress bars off (see the module docstring)."""
    return os.environ.get("TQDM_DISABLE", "").strip().lower() not in _FALSE


def is_terminal(stream: TextIO | None) -> bool:
    """Whether ``stream`` is an interactive terminal (False for files, pipes, closed or odd streams)."""
    try:
        return bool(stream is not None and stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def progress_enabled(stream: TextIO | None = None, requested: bool | None = True) -> bool:
    """Whether to draw a progress bar on ``stream`` (standard error by default).

    Parameters
    ----------
    stream : file-like, optional
        Where the bar would be drawn.
    requested : bool or None
        The caller's wish: False never shows a bar; True or None show one when ``TQDM_DISABLE`` allows it
        and ``stream`` is a terminal.

    Returns
    -------
    bool
    """
    if requested is False or tqdm_disabled():
        return False
    return is_terminal(stream if stream is not None else sys.stderr)


class _Silent:
    """Stands in for a tqdm bar when none is drawn: iterates its iterable, counts nothing."""

    def __init__(self, iterable: Iterable[Any] | None) -> None:
        self._iterable = iterable

    def __iter__(self) -> Iterator[Any]:
        return iter(self._iterable if self._iterable is not None else ())

    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass

    def __enter__(self) -> _Silent:
        return self

    def __exit__(self, *exc: Any) -> None:
        pass


def progress_bar(
    iterable: Iterable[Any] | None = None,
    *,
    total: int | None = None,
    desc: str | None = None,
    unit: str = "it",
    show: bool | None = True,
    stream: TextIO | None = None,
) -> Any:
    """A tqdm bar over ``iterable`` (or one updated by hand) when :func:`progress_enabled`, else a silent stand-in
    with the same ``update``, ``close``, iteration and ``with`` use.

    Parameters
    ----------
    iterable : iterable, optional
        What to iterate; omit it and call ``update(n)`` instead.
    total : int, optional
        The number of steps (default: ``len(iterable)`` when it has one).
    desc, unit : str
        The bar's label and unit.
    show : bool or None
        The caller's wish, as ``requested`` in :func:`progress_enabled`.
    stream : file-like, optional
        Where to draw (standard error by default).
    """
    out = stream if stream is not None else sys.stderr
    if progress_enabled(out, show):
        try:
            from tqdm import tqdm
        except ImportError:
            pass
        else:
            return tqdm(iterable, total=total, desc=desc, unit=unit, file=out, disable=False)
    return _Silent(iterable)
