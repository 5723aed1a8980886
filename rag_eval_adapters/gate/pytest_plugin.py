"""The pytest plugin of the gate: the ``rag_gate`` fixture (registered through the ``pytest11`` entry point).

::

    def test_retrieval(rag_gate):
        rag_gate.check(candidate, baseline, {"ndcg@10": 0.02})

``check`` takes what :func:`rag_eval_adapters.gate.gate` takes (reports, ``report.json`` paths or
``{question: {metric: value}}``) and makes the same decision: a failing gate fails the test with the gate's
explanation; an inconclusive one fails it too, or skips it with ``--rag-gate-inconclusive=skip`` (or the ini
option ``rag_gate_inconclusive = skip``); a passing one returns the :class:`~rag_eval_adapters.gate.GateDecision`.

pytest is imported only inside the hooks: the plugin module itself loads with the standard library, as the
package's inner modules do.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

from .decision import GateDecision, gate

__all__ = ["RagGate", "pytest_addoption", "pytest_configure", "INCONCLUSIVE_CHOICES"]

INCONCLUSIVE_CHOICES = ("fail", "skip")


class RagGate:
    """The ``rag_gate`` fixture's object: :meth:`check` gates a candidate and fails (or skips) the test."""

    def __init__(self, inconclusive: str = "fail", alpha: float = 0.05) -> None:
        if inconclusive not in INCONCLUSIVE_CHOICES:
            raise ValueError(f"rag_gate: inconclusive must be 'fail' or 'skip', got {inconclusive!r}")
        self.inconclusive = inconclusive
        self.alpha = alpha
        self.decisions: list[GateDecision] = []

    def check(self, candidate: Any, baseline: Any, margins: Mapping[str, float | None] | Sequence[str], *,
              alpha: float | None = None, human: Mapping[str, Mapping[Hashable, Mapping[str, float]]] | None = None,
              config: str | None = None, inconclusive: str | None = None) -> GateDecision:
        """Gate ``candidate`` against ``baseline`` (:func:`rag_eval_adapters.gate.gate`) and fail the test on a
        failing gate (skip or fail it on an inconclusive one), with the gate's explanation.

        Returns
        -------
        GateDecision
            The decision of a passing gate.
        """
        import pytest

        mode = inconclusive or self.inconclusive
        if mode not in INCONCLUSIVE_CHOICES:
            raise ValueError(f"rag_gate: inconclusive must be 'fail' or 'skip', got {mode!r}")
        decision = gate(candidate, baseline, margins, alpha=self.alpha if alpha is None else alpha,
                        inconclusive="fail", human=human, config=config)
        self.decisions.append(decision)
        if decision.outcome == "fail" or (decision.outcome == "inconclusive" and mode == "fail"):
            pytest.fail(decision.explanation(), pytrace=False)
        if decision.outcome == "inconclusive":
            pytest.skip(decision.explanation())
        return decision


def pytest_addoption(parser: Any) -> None:
    """``--rag-gate-inconclusive {fail,skip}`` and ``--rag-gate-alpha A`` (and their ini options)."""
    group = parser.getgroup("rag-gate", "rag-eval gate")
    group.addoption("--rag-gate-inconclusive", choices=INCONCLUSIVE_CHOICES, default=None,
                    help="what an inconclusive rag_gate.check does to the test: fail (default) or skip")
    group.addoption("--rag-gate-alpha", type=float, default=None, help="level of the gate's tests (default 0.05)")
    parser.addini("rag_gate_inconclusive", "fail or skip: what an inconclusive rag_gate.check does", default="fail")
    parser.addini("rag_gate_alpha", "level of the gate's tests", default="0.05")


def pytest_configure(config: Any) -> None:
    """Register the ``rag_gate`` fixture (pytest imported here, not at module level)."""
    import pytest

    class _Fixtures:
        @pytest.fixture
        def rag_gate(self, request: Any) -> RagGate:
            """A :class:`RagGate` with the run's ``--rag-gate-inconclusive`` and ``--rag-gate-alpha``."""
            options = request.config
            mode = options.getoption("--rag-gate-inconclusive") or options.getini("rag_gate_inconclusive")
            alpha = options.getoption("--rag-gate-alpha")
            return RagGate(mode, float(options.getini("rag_gate_alpha")) if alpha is None else alpha)

    if not config.pluginmanager.has_plugin("rag_gate_fixtures"):
        config.pluginmanager.register(_Fixtures(), "rag_gate_fixtures")
