"""Progress on the terminal for the ``rag-eval`` commands: whether to show it, and the transient step display."""

from __future__ import annotations

from typing import Any, TextIO

__all__ = ["progress_enabled", "is_tty", "Steps"]


def progress_enabled(stream: TextIO | None = None) -> bool:
    """Progress bars only on a terminal, and never when TQDM_DISABLE says so (the package's one rule:
    :func:`rag_eval_adapters.progress.progress_enabled`)."""
    from ..progress import progress_enabled as enabled

    return enabled(stream)


def is_tty(stream: TextIO) -> bool:
    """Whether ``stream`` is a terminal (:func:`rag_eval_adapters.progress.is_terminal`)."""
    from ..progress import is_terminal

    return is_terminal(stream)


class Steps:
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
                TextColumn("{task.description}", markup=False),  # a file name is not console markup
                BarColumn(),
                MofNCompleteColumn(),
                console=Console(file=stream) if stream is not None else Console(stderr=True),
                transient=True,
            )

    def __enter__(self) -> Steps:
        if self._progress is not None:
            self._progress.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._progress is not None:
            self._progress.stop()

    def task(self, description: str, total: int | None = None) -> Any:
        """A new step shown with ``description`` (None when nothing is shown)."""
        if self._progress is None:
            return None
        return self._progress.add_task(description, total=total)

    def advance(self, task: Any, amount: int = 1) -> None:
        """Move ``task`` on by ``amount``."""
        if self._progress is not None and task is not None:
            self._progress.advance(task, amount)

    def finish(self, task: Any) -> None:
        """Mark ``task`` complete."""
        if self._progress is not None and task is not None:
            t = self._progress.tasks[[x.id for x in self._progress.tasks].index(task)]
            self._progress.update(task, total=t.total or 1, completed=t.total or 1)
