"""One structured JSON call with one repair, and the dry-run estimate of calls not yet made.

"Ask for JSON, read it, and when it cannot be read send one repair request" is the same for the test-set
generator and the judges: :func:`ask_json` does it for both, given how to send (``chat``), how to read a reply
(``read``, raising ``ValueError`` for one that cannot be used) and how to word the repair (``repair``, given
the bounded :func:`~rag_eval_adapters.modelcalls.replies.reply_excerpt` of the bad reply). A refusal (reported
by the API, or a reply that starts like one) gets no repair. :class:`CallEstimate` adds up what calls not in
the cache would cost, with :func:`estimate_tokens`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .chat import Completion
from .replies import is_refusal, reply_excerpt
from .usage import Prices

__all__ = ["FATAL_STATUS", "NotCached", "JsonOutcome", "ask_json", "estimate_tokens", "messages_tokens",
           "CallEstimate"]

#: HTTP statuses that stop a batch (bad key, no access, unknown model or endpoint): every call would fail alike
FATAL_STATUS = frozenset({401, 403, 404})

Messages = list[dict[str, str]]


class NotCached(Exception):
    """Raised in a dry run when a call is not in the cache (it would be paid for)."""

    def __init__(self, messages: Messages) -> None:
        super().__init__("not cached")
        self.messages = messages


@dataclass(frozen=True)
class JsonOutcome:
    """What :func:`ask_json` got: the ``value`` read, or the ``reason`` there is none (``refusal``,
    ``invalid_output``) with its ``detail``; ``texts`` are the replies received (the first, then the repair's)
    and ``refusal`` the refusal the API reported for the first."""

    value: Any = None
    reason: str | None = None
    detail: str = ""
    texts: Sequence[str] = field(default_factory=tuple)
    refusal: str | None = None


def _refused(done: Completion) -> str | None:
    """The refusal of a reply: the one the API reported, else the text when it starts like a refusal."""
    if done.refusal:
        return done.refusal
    return done.text if is_refusal(done.text) else None


def ask_json(chat: Callable[[Messages, str], Completion], messages: Messages, read: Callable[[str], Any],
             repair: Callable[[Messages, str, str], Messages], what: str) -> JsonOutcome:
    """The reply to ``messages`` read by ``read``, with one repair request when it cannot be read.

    Parameters
    ----------
    chat : callable
        ``chat(messages, what) -> Completion`` (e.g. a :class:`~rag_eval_adapters.modelcalls.ChatCaller`'s
        ``chat``); its errors propagate.
    messages : list of dict
        The request.
    read : callable
        ``read(text)``: the value of a reply; raises ``ValueError`` (its message says what is wrong) for a
        reply that cannot be used.
    repair : callable
        ``repair(messages, excerpt, problem)``: the repair request, given the bad reply's bounded excerpt
        (:func:`~rag_eval_adapters.modelcalls.replies.reply_excerpt`) and the problem.
    what : str
        Names the call in errors (the repair is ``what + " (repair)"``).

    Returns
    -------
    JsonOutcome
        The value, or ``refusal`` (no repair is asked for) or ``invalid_output`` (after one repair).
    """
    first = chat(messages, what)
    if first.refusal:
        return JsonOutcome(reason="refusal", detail=first.refusal[:300], texts=(first.text,), refusal=first.refusal)
    try:
        return JsonOutcome(read(first.text), texts=(first.text,))
    except ValueError as exc:
        if is_refusal(first.text):
            return JsonOutcome(reason="refusal", detail=first.text[:300], texts=(first.text,))
        problem = str(exc)
    second = chat(repair(messages, reply_excerpt(first.text), problem), what + " (repair)")
    texts = (first.text, second.text)
    refused = _refused(second)
    if refused is not None:
        return JsonOutcome(reason="refusal", detail=refused[:300], texts=texts)
    try:
        return JsonOutcome(read(second.text), texts=texts)
    except ValueError as exc:
        return JsonOutcome(reason="invalid_output", detail=f"after one repair request: {exc}", texts=texts)


def estimate_tokens(text: str) -> int:
    """A token estimate without a tokenizer: one per CJK character (kana, Han, Hangul and their compatibility
    blocks), one per four other characters."""
    cjk = sum(1 for ch in text if "\u3040" <= ch <= "\u9fff" or "\uac00" <= ch <= "\ud7af"
              or "\u1100" <= ch <= "\u11ff" or "\uf900" <= ch <= "\ufaff")
    return cjk + math.ceil((len(text) - cjk) / 4)


def messages_tokens(messages: Messages) -> int:
    """:func:`estimate_tokens` of every message's content."""
    return sum(estimate_tokens(m.get("content") or "") for m in messages)


@dataclass
class CallEstimate:
    """What calls not in the cache would cost: ``calls``, ``cached_calls`` and estimated tokens (a dry run)."""

    calls: int = 0
    cached_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0

    def add(self, input_tokens: int, output_tokens: int, calls: int = 1) -> None:
        """Count ``calls`` paid calls of these estimated tokens."""
        self.calls += calls
        self.input_tokens += input_tokens
        self.output_tokens += output_tokens

    def cost(self, prices: Prices | None) -> float | None:
        """The estimated cost at ``prices`` (None without prices)."""
        return prices.cost(self.input_tokens, self.output_tokens) if prices is not None else None

    def summary(self, prices: Prices | None) -> dict[str, Any]:
        """``calls``, ``cached_calls``, ``estimated_input_tokens``, ``estimated_output_tokens``,
        ``estimated_cost`` (None without prices)."""
        return {"calls": self.calls, "cached_calls": self.cached_calls,
                "estimated_input_tokens": self.input_tokens, "estimated_output_tokens": self.output_tokens,
                "estimated_cost": self.cost(prices)}
