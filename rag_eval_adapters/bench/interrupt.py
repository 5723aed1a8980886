"""Ctrl-C during the benchmark's embedding: said at once, obeyed at the next batch boundary, nothing lost.

While :class:`StopAfterBatch` is active (in the main thread), the first Ctrl-C prints "stopping after the
current batch" at once and lets the batch in flight finish (its vectors go to the cache); the embedding loop
then stops (:meth:`StopAfterBatch.check` raises ``KeyboardInterrupt``). A second Ctrl-C stops at once.
:class:`OffMainThread` runs an embedder's calls in a worker thread while the main thread waits, so the main
thread is free to answer the Ctrl-C at once instead of after the model's call returns.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from types import FrameType, TracebackType
from typing import Any

__all__ = ["StopAfterBatch", "OffMainThread"]


class StopAfterBatch:
    """A context in which the first Ctrl-C asks the embedding to stop after the current batch (see the module
    doc); ``say`` prints the notice. Outside the main thread it does nothing (signals go to the main thread)."""

    def __init__(self, say: Callable[[str], None]) -> None:
        self.say = say
        self.requested = False
        self._previous: Any = None
        self._installed = False

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True
        self.say("stopping after the current batch (its vectors are kept in the cache; Ctrl-C again to stop at "
                 "once)")

    def __enter__(self) -> StopAfterBatch:
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._handle)
            self._installed = True
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._installed:
            signal.signal(signal.SIGINT, self._previous)
            self._installed = False

    def check(self, done: int, total: int, label: str) -> None:
        """Raise ``KeyboardInterrupt`` (after saying how far the embedding got) when a stop was asked for."""
        if self.requested:
            self.say(f"stopped: {label}: {done} of {total} texts embedded and kept in the cache; a new run "
                     "goes on from there")
            raise KeyboardInterrupt(f"stopped after {done} of {total} texts of {label}")


class OffMainThread:
    """An embedder whose calls from the main thread run in one worker thread (the main thread waits and stays
    free to handle Ctrl-C); calls from other threads run where they are made. ``name`` and every other
    attribute are the wrapped embedder's."""

    def __init__(self, embedder: Any) -> None:
        self.embedder = embedder
        self.name = embedder.name
        self._pool: ThreadPoolExecutor | None = None

    def __repr__(self) -> str:
        return f"OffMainThread({self.embedder!r})"

    def __getattr__(self, name: str) -> Any:
        if "embedder" not in self.__dict__:  # not set up yet (a copy being made)
            raise AttributeError(name)
        return getattr(self.__dict__["embedder"], name)

    def _call(self, method: Callable[[Sequence[str]], Any], texts: Sequence[str]) -> Any:
        if threading.current_thread() is not threading.main_thread():
            return method(texts)
        if self._pool is None:
            self._pool = ThreadPoolExecutor(1, thread_name_prefix="rag-eval-embed")
        return self._pool.submit(method, texts).result()

    def embed_queries(self, texts: Sequence[str]) -> Any:
        """The wrapped embedder's query vectors."""
        return self._call(self.embedder.embed_queries, texts)

    def embed_passages(self, texts: Sequence[str]) -> Any:
        """The wrapped embedder's passage vectors."""
        return self._call(self.embedder.embed_passages, texts)
