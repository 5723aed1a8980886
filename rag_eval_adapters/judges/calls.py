"""One structured model call for the judges: cache, retries, limiter, usage, structured output, one repair.

:class:`StructuredCaller` sends a request with temperature 0 and a seed, asking for the reply's JSON schema
through the API's ``response_format`` when the chat model takes it (else the schema is only in the prompt, as
it always also is); a server that rejects ``response_format`` (HTTP 400/422) is asked again without it and
never again with it. The reply is read with pydantic; one that cannot be read gets one repair request
(:func:`~rag_eval_adapters.modelcalls.ask_json`, shared with the test-set generator). Every reply is cached
by (model, messages, prompt version, seed, temperature), so a re-run sends nothing.
"""

from __future__ import annotations

import functools
import inspect
import threading
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from ..modelcalls import (
    FATAL_STATUS,
    CallCache,
    CallLimiter,
    ChatCaller,
    ChatLLM,
    Completion,
    ModelCallError,
    NotCached,
    RetryPolicy,
    UsageMeter,
    ask_json,
    estimate_tokens,
)
from .prompts import PROMPT_VERSION, repair_messages
from .schemas import read_reply, response_format

__all__ = ["StructuredCaller", "Outcome", "FATAL_STATUS", "STRUCTURED_MODES", "NotCached", "estimate_tokens"]

#: ``auto``: the API's JSON-schema output when the chat model takes ``response_format``, else the prompt only
STRUCTURED_MODES = ("auto", "json_schema", "prompt")
_REJECTED = frozenset({400, 422})


@dataclass(frozen=True)
class Outcome:
    """A structured call's result: the validated ``reply``, or the unmeasured ``reason`` and ``detail``."""

    reply: BaseModel | None = None
    reason: str | None = None
    detail: str = ""


def _keywords(llm: ChatLLM) -> set[str]:
    try:
        params = inspect.signature(llm.chat).parameters
    except (TypeError, ValueError):
        return set()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return {"response_format", "seed", "temperature"}
    return {name for name in ("response_format", "seed", "temperature") if name in params}


@functools.lru_cache(maxsize=16)
def _format(form: type[BaseModel]) -> dict[str, Any]:
    return response_format(form)


def _read(text: str, form: type[BaseModel], check: Callable[[Any], Any] | None) -> BaseModel:
    reply = read_reply(text, form)
    if check is not None:
        check(reply)
    return reply


def _sent_params(llm: ChatLLM, keywords: set[str], seed: int | None) -> dict[str, Any]:
    """What the calls send, named in every cache key: the prompt version, temperature 0 and the seed where the
    chat model takes them, else its own temperature (a framework model keeps its setting) and no seed."""
    return {"prompt_version": PROMPT_VERSION, "seed": seed if "seed" in keywords else None,
            "temperature": 0.0 if "temperature" in keywords else getattr(llm, "temperature", None)}


class StructuredCaller(ChatCaller):
    """Structured model calls through the model-call layer (:class:`~rag_eval_adapters.modelcalls.ChatCaller`; see
    the module docstring).

    Parameters
    ----------
    llm : ChatLLM
        The judge model.
    cache : CallCache or None
        Replies by key; None for none.
    policy, limiter, meter, timeout :
        Retries, concurrency and rate limit, usage, seconds per call.
    seed : int or None
        Sent where the chat model takes a seed.
    structured : str
        One of :data:`STRUCTURED_MODES`.
    """

    def __init__(self, llm: ChatLLM, cache: CallCache | None, policy: RetryPolicy, limiter: CallLimiter,
                 meter: UsageMeter, timeout: float | None, seed: int | None, structured: str) -> None:
        if structured not in STRUCTURED_MODES:
            raise ValueError(f"structured must be one of {', '.join(STRUCTURED_MODES)}, got {structured!r}")
        self.keywords = _keywords(llm)
        super().__init__(llm, cache, policy, limiter, meter, timeout, _sent_params(llm, self.keywords, seed))
        self.seed = seed
        if structured == "json_schema" and "response_format" not in self.keywords:
            raise ValueError(f"structured='json_schema' needs a chat model whose chat() takes response_format; "
                             f"{llm!r} does not (use structured='auto' or 'prompt')")
        self.native = structured != "prompt" and "response_format" in self.keywords
        self.dry = False
        self._lock = threading.Lock()

    @property
    def mode(self) -> str:
        """``json_schema`` while the API's structured output is used, else ``prompt``."""
        return "json_schema" if self.native else "prompt"

    def _send(self, messages: list[dict[str, str]], form: type[BaseModel] | None, native: bool) -> Completion:
        extra: dict[str, Any] = {}
        if native and form is not None:
            extra["response_format"] = _format(form)
        if "seed" in self.keywords and self.seed is not None:
            extra["seed"] = self.seed
        if "temperature" in self.keywords:
            extra["temperature"] = 0.0
        return self.send(messages, **extra)

    def chat(self, messages: list[dict[str, str]], what: str | type[BaseModel],
             old_what: str | None = None) -> Completion:
        """:meth:`chat_form` without a reply form (no ``response_format`` is sent), as
        :meth:`ChatCaller.chat <rag_eval_adapters.modelcalls.ChatCaller.chat>`; the earlier form
        ``chat(messages, form, what)`` still works (it is ``chat_form``)."""
        if isinstance(what, type):
            return self.chat_form(messages, what, old_what or "model call")
        return self.chat_form(messages, None, what)

    def chat_form(self, messages: list[dict[str, str]], form: type[BaseModel] | None, what: str) -> Completion:
        """One reply to ``messages`` (from the cache when there), retried per the policy; ``form`` is asked for
        through ``response_format`` while the API's structured output is used.

        Raises
        ------
        ModelCallError
            The call failed for good.
        NotCached
            In a dry run, when the reply is not cached.
        """
        hit = self.hit(messages)
        if hit is not None:
            return hit
        if self.dry:
            raise NotCached(messages)
        while True:
            sent = (self.native, frozenset(self.keywords))
            try:
                done = self.retried(lambda: self._send(messages, form, self.native), what)
                break
            except ModelCallError as exc:
                refused = exc.status_code in _REJECTED or isinstance(exc.__cause__, TypeError)
                if not (refused and self._fall_back(sent, exc)):
                    self.meter.add(failures=1)
                    raise
        return self.keep(done, messages)

    def _fall_back(self, sent: tuple[bool, frozenset], exc: ModelCallError) -> bool:
        """After a request was refused (HTTP 400/422, or a chat model that takes no such keyword): stop sending
        ``response_format``, then ``seed`` and ``temperature``, for good. False when nothing is left to drop."""
        with self._lock:
            if (self.native, frozenset(self.keywords)) != sent:
                return True  # another thread already fell back: ask again
            if self.native:
                self.native, dropped = False, "response_format"
            elif self.keywords & {"seed", "temperature"}:
                self.keywords, dropped = set(), "seed and temperature"
            else:
                return False
            self.params = _sent_params(self.llm, self.keywords, self.seed)
        why = f"HTTP {exc.status_code}" if exc.status_code is not None else type(exc.__cause__).__name__
        warnings.warn(f"{self.llm!r} refused {dropped} ({why}); the judges no longer send it", RuntimeWarning,
                      stacklevel=3)
        return True

    @property
    def call_timeout(self) -> float | None:
        """The timeout call_with_retry enforces (in a watcher thread): none when the chat model's own client
        already stops within it (``OpenAICompatibleLLM``'s SDK timeout)."""
        own = getattr(self.llm, "timeout", None)
        if self.timeout is not None and isinstance(own, (int, float)) and not isinstance(own, bool) \
                and 0 < own <= self.timeout:
            return None
        return self.timeout

    def ask(self, messages: list[dict[str, str]], form: type[BaseModel], what: str,
            check: Callable[[Any], Any] | None = None) -> Outcome:
        """The reply to ``messages`` read into ``form`` (and passing ``check``, which raises
        :class:`~rag_eval_adapters.judges.schemas.ReplyInvalid` to refuse it), with one repair request when it
        cannot be read (:func:`~rag_eval_adapters.modelcalls.ask_json`: the repair sends back a bounded excerpt
        of the bad reply); or the reason there is none (``refusal``, ``invalid_output``, ``call_failed``).

        Raises
        ------
        ModelCallError
            Only for :data:`FATAL_STATUS` (a configuration error every further call would repeat).
        """
        try:
            got = ask_json(lambda sent, name: self.chat_form(sent, form, name), messages,
                           lambda text: _read(text, form, check), repair_messages, what)
        except ModelCallError as exc:
            if exc.status_code in FATAL_STATUS:
                raise
            return Outcome(reason="call_failed", detail=str(exc)[:500])
        return Outcome(got.value, got.reason, got.detail)
