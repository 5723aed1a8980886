"""``rag-eval gate``: did a change make retrieval or answers worse, decided with statistics that hold.

For each metric two one-sided paired tests at its margin (the drop tolerated), Holm's correction over the
gate's metrics, and one verdict: pass, fail or inconclusive (:mod:`~rag_eval_adapters.gate.decision`); the
power of the fail test and the questions a gate needs (:mod:`~rag_eval_adapters.stats.power`); renderers for
people and CI (:mod:`~rag_eval_adapters.gate.render`); a pytest plugin with the ``rag_gate`` fixture
(:mod:`~rag_eval_adapters.gate.pytest_plugin`). See ``docs/gate.md``.

>>> from rag_eval_adapters.gate import gate
>>> base = {f"q{i}": {"ndcg@10": 0.5 + 0.01 * (i % 7)} for i in range(40)}
>>> gate(base, base, {"ndcg@10": 0.02}).outcome
'pass'
"""

from __future__ import annotations

from ..stats.noninferiority import OneSidedTests, one_sided_tests, paired_one_sided_tests
from ..stats.power import POWER_TARGET, PowerAnalysis, detectable_drop, power_analysis, power_to_fail, questions_needed
from .decision import (
    DEFAULT_MARGINS,
    EXIT_CODES,
    OUTCOMES,
    GateDecision,
    MetricGate,
    default_margin,
    gate,
    gate_columns,
    paired_differences,
    parse_margin_spec,
)
from .inputs import as_columns, columns_report, read_report_file
from .render import gate_page, render_json, render_junit, render_markdown, render_power, render_text

__all__ = [
    "gate", "gate_columns", "GateDecision", "MetricGate", "OUTCOMES", "EXIT_CODES", "DEFAULT_MARGINS",
    "default_margin", "parse_margin_spec", "paired_differences", "as_columns", "columns_report", "read_report_file",
    "OneSidedTests", "one_sided_tests", "paired_one_sided_tests", "PowerAnalysis", "POWER_TARGET", "power_analysis",
    "power_to_fail", "questions_needed", "detectable_drop", "render_text", "render_markdown", "render_junit",
    "render_json", "render_power", "gate_page",
]
