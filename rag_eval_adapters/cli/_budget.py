"""``--max-cost`` and ``--max-calls``: the spending limits of every command that calls an LLM (``judge``,
``answers``, ``bench``, ``meta-eval``, ``generate``).

A command's ``add_arguments`` ends with ``add_budget_options(parser)`` (after its ``set_defaults(func=...)``):
the options are added (with ``--price-input`` / ``--price-output`` when the command has none), and the
command runs inside :func:`~rag_eval_adapters.modelcalls.spending_limit`, so every chat model it builds by
name (``resolve_llm``, through ``cli/_models.py``) is charged before each paid request (cached replies cost
nothing). A request that would pass a limit is not sent: the run stops with one error line saying what was
spent and that what was done is kept (the caches; ``generate``'s output), so a re-run with a higher limit pays
only for the rest. ``--max-cost`` without prices is refused before anything is read.
"""

from __future__ import annotations

import argparse
import contextlib
import contextvars
import functools
from collections.abc import Callable
from typing import Any, TextIO

from ._errors import CLIError

__all__ = ["add_budget_options", "budget_from_args", "print_estimate", "announce_judging"]

Command = Callable[[argparse.Namespace, TextIO, TextIO], int]
#: the standard error of the command running (set by the commands :func:`add_budget_options` wraps)
_STDERR: contextvars.ContextVar[TextIO | None] = contextvars.ContextVar("rag_eval_cli_stderr", default=None)


def add_budget_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--max-cost`` and ``--max-calls`` (and the prices, when missing) to ``parser`` and run its command
    under them; call it after the parser's ``set_defaults(func=...)``.

    Raises
    ------
    RuntimeError
        The parser has no ``func`` yet (the limits would silently not apply).
    """
    func = parser.get_default("func")
    if func is None:
        raise RuntimeError("add_budget_options(parser) must follow parser.set_defaults(func=...)")
    group = parser.add_argument_group("spending limits (paid model calls; cached replies do not count)")
    group.add_argument("--max-cost", type=float, metavar="C",
                       help="stop before the model calls would cost more than C (needs --price-input)")
    group.add_argument("--max-calls", type=int, metavar="N", help="stop before sending more than N model requests")
    for option, default, help_text in (("--price-input", None, "price per million input tokens"),
                                       ("--price-output", 0.0, "price per million output tokens")):
        try:
            group.add_argument(option, type=float, default=default, metavar="P", help=help_text)
        except argparse.ArgumentError:  # the command has its own price option
            pass
    parser.set_defaults(func=_limited(func))


def budget_from_args(args: argparse.Namespace) -> Any:
    """The :class:`~rag_eval_adapters.modelcalls.Budget` of ``--max-cost`` / ``--max-calls`` (None when neither
    is given); a bad value, or ``--max-cost`` without ``--price-input``, is a :class:`CLIError`."""
    from ..modelcalls import Budget, Prices

    max_cost, max_calls = getattr(args, "max_cost", None), getattr(args, "max_calls", None)
    if max_cost is None and max_calls is None:
        return None
    if max_cost is not None and getattr(args, "price_input", None) is None:
        raise CLIError("--max-cost needs the prices to be checked: give --price-input (and --price-output), per "
                       "million tokens")
    try:
        prices = Prices(args.price_input, args.price_output or 0.0) if args.price_input is not None else None
        return Budget(max_calls=max_calls, max_cost=max_cost, prices=prices)
    except (TypeError, ValueError) as exc:
        raise CLIError(f"--max-cost / --max-calls / --price-input: {exc}") from None


def _limited(func: Command) -> Command:
    """``func`` run under the budget of its arguments."""

    @functools.wraps(func)
    def run(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
        budget = budget_from_args(args)
        token = _STDERR.set(stderr)
        try:
            return _under(budget, func, args, stdout, stderr)
        finally:
            _STDERR.reset(token)

    return run


def _under(budget: Any, func: Command, args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """``func`` run under ``budget`` (None: no limit); its stop is one error line, its spending said after."""
    from ..modelcalls import BudgetExceeded, spending_limit

    if budget is None:
        return func(args, stdout, stderr)
    with spending_limit(budget):
        try:
            code = func(args, stdout, stderr)
        except BudgetExceeded as exc:
            option = "--max-calls" if exc.limit == "max_calls" else "--max-cost"
            raise CLIError(f"{option}: {exc}") from None
    spent = f", cost {budget.cost:.4f}" if budget.cost is not None else ""
    limits = ", ".join(f"{option} {value:g}" for option, value in (("--max-calls", budget.max_calls),
                                                                  ("--max-cost", budget.max_cost))
                       if value is not None)
    print(f"rag-eval: model requests sent: {budget.calls}{spent} (within {limits})", file=stderr)
    return code


def announce_judging(judge: Any) -> Any:
    """``judge`` (an :class:`~rag_eval_adapters.judges.LLMJudge` a command made) saying, before each batch it
    judges, the calls, tokens and cost the batch is expected to take (its dry run; nothing when every reply is
    cached), on the standard error of the running command. Outside a command wrapped by
    :func:`add_budget_options` the judge is returned unchanged.
    """
    stderr = _STDERR.get()
    if stderr is None:
        return judge
    batch = judge.judge_many

    def judge_many(metric: str, items: Any) -> Any:
        items = list(items)
        with contextlib.suppress(TypeError, ValueError):  # a malformed item: the batch itself says which
            estimate = judge.dry_run(metric, items)
            if estimate["calls"]:
                print_estimate(f"judge {judge.name} ({metric}, {len(items)} items)", estimate, stderr)
        return batch(metric, items)

    judge.judge_many = judge_many
    return judge


def print_estimate(what: str, estimate: dict[str, Any], stderr: TextIO) -> None:
    """Say on stderr what a run is expected to cost before it sends anything: ``estimate`` holds ``calls``,
    ``cached_calls``, ``estimated_input_tokens``, ``estimated_output_tokens`` and ``estimated_cost`` (a dry
    run's summary)."""
    cost = estimate.get("estimated_cost")
    print(f"rag-eval: {what} expects {estimate['calls']} model call(s) ({estimate.get('cached_calls', 0)} more "
          f"from the cache), about {estimate['estimated_input_tokens']} input and "
          f"{estimate['estimated_output_tokens']} output tokens"
          + (f", cost about {cost:.4f}" if cost is not None else " (give --price-input for the cost)"),
          file=stderr)
