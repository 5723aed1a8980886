"""The one expected failure of every ``rag-eval`` command, the one-line form of a message, and the one mapping from
the exceptions a command lets through to what ``main`` prints and the exit status.

Commands raise :class:`CLIError` for what they check themselves and let everything else through; ``main`` turns an
exception into one line on stderr with :func:`error_message`, in one place: a bad value or input (``ValueError``,
``TypeError``), a failed model call or cache (``ModelCallError``, ``CacheError``), a file that cannot be read or
written (``OSError``), a missing optional dependency (``ImportError``), a number too large (``OverflowError``...)
each exit 2; Ctrl-C exits 130 and a closed pipe 0. Any other exception keeps its traceback (a bug to report).
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["CLIError", "one_line", "error_message", "ERROR_STATUS", "INTERRUPTED_STATUS"]

ERROR_STATUS = 2
"""The exit status of every expected failure."""

INTERRUPTED_STATUS = 130
"""The exit status after Ctrl-C (128 + SIGINT)."""


class CLIError(Exception):
    """An expected failure: reported as one line on stderr with exit status 2."""


def one_line(message: object) -> str:
    """``message`` as one line: every run of whitespace (newlines included) becomes one space."""
    return " ".join(str(message).split())


def _missing_dependency(exc: BaseException) -> str:
    return (f"rag-eval: error: {one_line(exc)}; install the command's dependencies with "
            "pip install 'rag-eval-adapters[cli]'")


def _too_large(exc: BaseException) -> str:
    return (f"rag-eval: error: {one_line(exc) or type(exc).__name__}: an input or option value is too large or too "
            "deeply nested")


def _file(exc: BaseException) -> str:
    name = getattr(exc, "filename", None)
    reason = getattr(exc, "strerror", None) or one_line(exc)
    return f"rag-eval: error: {'cannot read or write ' + str(name) + ': ' if name else ''}{reason}"


def _plain(exc: BaseException) -> str:
    return f"rag-eval: error: {one_line(exc) or type(exc).__name__}"


def _handlers() -> list[tuple[tuple[type[BaseException], ...], Callable[[BaseException], str | None], int]]:
    """``(exception types, message, exit status)`` in the order they are tried (a subclass before its base)."""
    from ..modelcalls import CacheError, ModelCallError

    return [
        ((CLIError,), lambda exc: f"rag-eval: error: {exc}", ERROR_STATUS),
        ((KeyboardInterrupt,), lambda exc: "rag-eval: interrupted", INTERRUPTED_STATUS),
        ((BrokenPipeError,), lambda exc: None, 0),  # the reader went away (| head): nothing to say
        ((ImportError,), _missing_dependency, ERROR_STATUS),
        ((OverflowError, RecursionError, MemoryError), _too_large, ERROR_STATUS),
        ((ModelCallError, CacheError), _plain, ERROR_STATUS),  # a configuration every call would repeat (401...)
        ((ValueError, TypeError, SyntaxError), _plain, ERROR_STATUS),  # a bad value or line: the message names it
        ((OSError,), _file, ERROR_STATUS),
    ]


def error_message(exc: BaseException) -> tuple[str | None, int] | None:
    """What ``main`` prints for ``exc`` (None: nothing) and the exit status; None when ``exc`` is not an expected
    failure (it is raised again, with its traceback)."""
    if isinstance(exc, CLIError):  # the common case, without importing the model-call layer
        return f"rag-eval: error: {exc}", ERROR_STATUS
    for types, message, status in _handlers():
        if isinstance(exc, types):
            return message(exc), status
    return None
