"""A scripted chat model for tests: :class:`ScriptedChatLLM` answers from a list or a function, records every
call and can fail on cue, so code that calls a :class:`~rag_eval_adapters.modelcalls.ChatLLM` (the generator,
the judges, the bench) is tested offline."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any

from .chat import Completion
from .closing import Closeable
from .structured import estimate_tokens, messages_tokens

__all__ = ["ScriptedChatLLM", "ScriptedHTTPError"]

Messages = list[dict[str, str]]


class ScriptedHTTPError(Exception):
    """An HTTP error a :class:`ScriptedChatLLM` raises when its script says a status (``429``, ``500``, ``401``):
    ``status_code`` and ``headers`` are read by the retry policy like an SDK's errors."""

    def __init__(self, status_code: int, headers: dict[str, str] | None = None) -> None:
        super().__init__(f"HTTP {status_code} (scripted)")
        self.status_code = status_code
        self.headers = dict(headers or {})


class ScriptedChatLLM(Closeable):
    """A fake :class:`~rag_eval_adapters.modelcalls.ChatLLM` whose replies are scripted.

    Parameters
    ----------
    replies : iterable or callable
        The replies in call order, or a function ``messages -> reply`` (use a function when calls run
        concurrently and the reply must depend on the request). A reply is a ``str`` (a completion whose token
        counts are the estimates of :func:`~rag_eval_adapters.modelcalls.estimate_tokens`), a
        :class:`~rag_eval_adapters.modelcalls.Completion` (returned as given), an ``int`` HTTP status (raises
        :class:`ScriptedHTTPError`, so ``429`` is retried and ``401`` stops a batch) or an exception (raised).
    name : str
        The model name (part of cache keys).
    temperature : float
        Recorded with generated cases.
    repeat_last : bool
        When the list is used up, keep giving its last reply (default False: a further call raises
        ``RuntimeError`` saying the script ran out).

    Attributes
    ----------
    calls : list of list of dict
        The messages of every call, in order.
    call_kwargs : list of dict
        The keyword arguments of every call (``response_format``, ``seed``, ``temperature`` from the judges).
    closed : bool
        Whether :meth:`close` was called (a closed model refuses calls).

    Examples
    --------
    >>> llm = ScriptedChatLLM(['{"reasoning": "on topic", "grade": 3}'])
    >>> llm.chat([{"role": "user", "content": "grade this"}]).text
    '{"reasoning": "on topic", "grade": 3}'
    >>> len(llm.calls)
    1
    """

    def __init__(self, replies: Iterable[Any] | Callable[[Messages], Any] = (), *, name: str = "scripted-llm",
                 temperature: float = 0.0, repeat_last: bool = False) -> None:
        self._script: Callable[[Messages], Any] | None = replies if callable(replies) else None
        self._replies = [] if callable(replies) else list(replies)
        self.name = name
        self.temperature = temperature
        self.repeat_last = repeat_last
        self.calls: list[Messages] = []
        self.call_kwargs: list[dict[str, Any]] = []
        self.closed = False
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"ScriptedChatLLM(name={self.name!r}, calls={len(self.calls)})"

    def _next(self, messages: Messages, kwargs: dict[str, Any]) -> Any:
        with self._lock:
            if self.closed:
                raise RuntimeError(f"{self!r} is closed")
            index = len(self.calls)
            self.calls.append([dict(m) for m in messages])
            self.call_kwargs.append(dict(kwargs))
            if self._script is not None:
                return None
            if index < len(self._replies):
                return self._replies[index]
            if self.repeat_last and self._replies:
                return self._replies[-1]
        raise RuntimeError(f"ScriptedChatLLM {self.name!r}: the script has {len(self._replies)} replies and call "
                           f"{index + 1} asked for another")

    def chat(self, messages: Messages, **kwargs: Any) -> Completion:
        """The next scripted reply to ``messages`` (recorded in :attr:`calls`); raises what the script says."""
        reply = self._next(messages, kwargs)
        if self._script is not None:
            reply = self._script(messages)
        if isinstance(reply, BaseException) or (isinstance(reply, type) and issubclass(reply, BaseException)):
            raise reply
        if isinstance(reply, int) and not isinstance(reply, bool):
            raise ScriptedHTTPError(reply)
        if isinstance(reply, Completion):
            return reply
        if not isinstance(reply, str):
            raise TypeError(f"a scripted reply is a str, a Completion, an HTTP status or an exception; got "
                            f"{type(reply).__name__}")
        return Completion(reply, input_tokens=messages_tokens(messages), output_tokens=estimate_tokens(reply))

    def close(self) -> None:
        """Refuse further calls."""
        self.closed = True
