"""A spending limit checked before each paid model call: at most ``max_calls`` requests, at most ``max_cost``.

:class:`Budget` is charged before a request is sent (cached replies never reach the model, so they cost
nothing): the request's input tokens are estimated from its messages and its output tokens bounded by the
model's ``max_tokens`` (so a cost limit is never overshot by a long reply); after the reply the estimate is
replaced by the tokens the server reported. A request that would pass a limit is not sent: it raises
:class:`BudgetExceeded`, which, like Ctrl-C, stops the whole run rather than failing one item (it is a
``BaseException``, so ``except Exception`` handlers that keep a batch going let it through); what was done is
kept (replies in the cache, generated cases in the output), so a re-run with a higher limit pays only for the
rest. :class:`BudgetedChatLLM` puts a chat model under a budget; :func:`spending_limit` does it for every model
:func:`~rag_eval_adapters.modelcalls.resolve_llm` builds inside a ``with`` block (the CLI's ``--max-cost`` and
``--max-calls``).
"""

from __future__ import annotations

import contextlib
import contextvars
import inspect
import math
import threading
from collections.abc import Callable, Iterator
from typing import Any

from .chat import Completion
from .closing import Closeable
from .structured import estimate_tokens, messages_tokens
from .usage import Prices

__all__ = ["Budget", "BudgetExceeded", "BudgetedChatLLM", "spending_limit", "active_budget"]

#: the output tokens a call is charged before its reply when the model names no ``max_tokens``
DEFAULT_OUTPUT_BOUND = 1024


class BudgetExceeded(BaseException):  # noqa: N818 - a stop signal like KeyboardInterrupt, not an error of one item
    """Sending one more request would pass a limit of a :class:`Budget`; nothing more was sent.

    Attributes
    ----------
    limit : str
        ``"max_calls"`` or ``"max_cost"``.
    calls, cost :
        What was spent before the stop (``cost`` None without prices).
    """

    def __init__(self, message: str, limit: str, calls: int, cost: float | None) -> None:
        super().__init__(message)
        self.limit, self.calls, self.cost = limit, calls, cost

    def __str__(self) -> str:
        return str(self.args[0])


def _check_limit(value: Any, name: str) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")


class Budget:
    """At most ``max_calls`` requests and at most ``max_cost`` (in the currency of ``prices``) for model calls.

    Parameters
    ----------
    max_calls : int, optional
        Requests that may be sent (every attempt counts, retries too); None for no limit.
    max_cost : float, optional
        Cost that may be spent; None for no limit. Needs ``prices`` (a cost limit without prices is refused:
        it could not be checked).
    prices : Prices, optional
        Prices per million input and output tokens.

    Raises
    ------
    ValueError
        A negative or non-finite limit, or ``max_cost`` without ``prices``.
    """

    def __init__(self, max_calls: int | None = None, max_cost: float | None = None,
                 prices: Prices | None = None) -> None:
        _check_limit(max_calls, "max_calls")
        _check_limit(max_cost, "max_cost")
        if max_cost is not None and prices is None:
            raise ValueError("a cost limit needs the prices (input and output per million tokens) to be checked")
        self.max_calls, self.max_cost, self.prices = max_calls, max_cost, prices
        self.calls = 0
        self.spent = 0.0
        self._reserved = 0.0
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"Budget(max_calls={self.max_calls}, max_cost={self.max_cost}, calls={self.calls})"

    @property
    def cost(self) -> float | None:
        """The cost of the replies so far (None without prices)."""
        return self.spent if self.prices is not None else None

    def _price(self, input_tokens: int, output_tokens: int) -> float:
        return self.prices.cost(input_tokens, output_tokens) if self.prices is not None else 0.0

    def _stop(self, limit: str, what: str) -> BudgetExceeded:
        spent = f", cost {self.spent:.4f} so far" if self.prices is not None else ""
        return BudgetExceeded(
            f"stopped before {what}: {limit} is {getattr(self, limit):g} ({self.calls} call(s) sent{spent}); "
            "what was done is kept (cached replies are not paid again), so a re-run with a higher limit pays "
            "only for the rest", limit, self.calls, self.cost)

    def charge(self, input_tokens: int, output_bound: int, what: str = "the next model call") -> float:
        """Reserve one request of ``input_tokens`` and at most ``output_bound`` output tokens; return its
        reserved cost (hand it to :meth:`settle`).

        Raises
        ------
        BudgetExceeded
            The request would pass ``max_calls``, or its bounded cost would pass ``max_cost``.
        """
        reserve = self._price(input_tokens, output_bound)
        with self._lock:
            if self.max_calls is not None and self.calls + 1 > self.max_calls:
                raise self._stop("max_calls", what)
            if self.max_cost is not None and self.spent + self._reserved + reserve > self.max_cost:
                raise self._stop("max_cost", what)
            self.calls += 1
            self._reserved += reserve
        return reserve

    def settle(self, reserved: float, input_tokens: int, output_tokens: int) -> None:
        """Replace a request's ``reserved`` cost by the cost of the tokens it used."""
        with self._lock:
            self._reserved = max(self._reserved - reserved, 0.0)
            self.spent += self._price(input_tokens, output_tokens)


class BudgetedChatLLM(Closeable):
    """A chat model whose every request is charged to a :class:`Budget` first (its ``name``, ``temperature``,
    ``timeout`` and the keywords its ``chat`` takes are the model's, so cache keys and structured output are
    unchanged).

    Parameters
    ----------
    llm : ChatLLM
        The model.
    budget : Budget
        Charged before each request.
    """

    def __init__(self, llm: Any, budget: Budget) -> None:
        self.llm, self.budget = llm, budget
        self.name = llm.name
        self.temperature = llm.temperature
        for attribute in ("timeout", "max_tokens", "model", "base_url"):
            if hasattr(llm, attribute):
                setattr(self, attribute, getattr(llm, attribute))

        def chat(messages: list[dict[str, str]], **extra: Any) -> Completion:
            return self._charged(messages, extra)

        with contextlib.suppress(TypeError, ValueError):  # the judges read which keywords the model takes
            chat.__signature__ = inspect.signature(llm.chat)  # type: ignore[attr-defined]
        self.chat: Callable[..., Completion] = chat

    def __repr__(self) -> str:
        return repr(self.llm)

    def _charged(self, messages: list[dict[str, str]], extra: dict[str, Any]) -> Completion:
        """The model's reply to ``messages``, the request charged to the budget first."""
        bound = getattr(self.llm, "max_tokens", None)
        bound = bound if isinstance(bound, int) and not isinstance(bound, bool) and bound > 0 else DEFAULT_OUTPUT_BOUND
        estimate = messages_tokens(messages)
        reserved = self.budget.charge(estimate, bound, f"a call to {self.name}")
        try:
            done = self.llm.chat(messages, **extra)
        except BaseException:
            self.budget.settle(reserved, estimate, 0)
            raise
        if not isinstance(done, Completion):
            self.budget.settle(reserved, estimate, bound)
        elif done.input_tokens or done.output_tokens:
            self.budget.settle(reserved, done.input_tokens, done.output_tokens)
        else:  # the server reported no usage: the estimates
            self.budget.settle(reserved, estimate, estimate_tokens(done.text))
        return done

    def close(self) -> None:
        """Close the model (when it can be closed)."""
        close = getattr(self.llm, "close", None)
        if callable(close):
            close()


_ACTIVE: contextvars.ContextVar[Budget | None] = contextvars.ContextVar("rag_eval_budget", default=None)


def active_budget() -> Budget | None:
    """The budget of the enclosing :func:`spending_limit` block, or None."""
    return _ACTIVE.get()


@contextlib.contextmanager
def spending_limit(budget: Budget | None) -> Iterator[Budget | None]:
    """Inside the block, every chat model :func:`~rag_eval_adapters.modelcalls.resolve_llm` builds is a
    :class:`BudgetedChatLLM` charged to ``budget`` (None: no limit)."""
    token = _ACTIVE.set(budget)
    try:
        yield budget
    finally:
        _ACTIVE.reset(token)
