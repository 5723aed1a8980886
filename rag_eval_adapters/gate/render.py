"""The gate's decision for people and CI: plain text, Markdown (a pull-request comment, ``$GITHUB_STEP_SUMMARY``),
JUnit XML (one test case a metric, a ``<failure>`` for each failing one), JSON, and the page data of
``report.html``."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from ..reports import escape_markdown
from ..stats.power import PowerAnalysis
from .decision import GateDecision, MetricGate

__all__ = ["render_text", "render_markdown", "render_junit", "render_json", "render_power", "gate_page",
           "GATE_FORMATS"]

GATE_FORMATS = ("table", "json", "markdown")

_MARK = {"pass": "✅ pass", "fail": "❌ fail", "inconclusive": "⚠️ inconclusive"}
_HEADER = ["metric", "outcome", "baseline", "candidate", "difference", "lower", "upper", "margin", "n",
           "p pass (adj.)", "p fail (adj.)"]


def _cells(m: MetricGate) -> list[str]:
    return [m.metric, m.outcome, f"{m.baseline_mean:.4f}", f"{m.candidate_mean:.4f}", f"{m.difference:+.4f}",
            f"{m.lower:+.4f}", f"{m.upper:+.4f}", f"{m.margin:g}", str(m.n),
            f"{m.p_pass:.3g} ({m.p_pass_adjusted:.3g})", f"{m.p_fail:.3g} ({m.p_fail_adjusted:.3g})"]


def render_text(decision: GateDecision) -> str:
    """A fixed-width table of the metrics, then the explanation of each and the rule."""
    rows = [_HEADER] + [_cells(m) for m in decision.metrics]
    widths = [max(len(r[i]) for r in rows) for i in range(len(_HEADER))]
    lines = ["  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True)))
             for r in rows]
    return "\n".join([decision.summary(), "", *lines, "", *(m.explain() for m in decision.metrics),
                      "", "Rule: " + decision.rule()]) + "\n"


def render_markdown(decision: GateDecision) -> str:
    """A Markdown summary for a pull-request comment or ``$GITHUB_STEP_SUMMARY``."""
    note = " (counted as a pass)" if decision.outcome == "inconclusive" and decision.passed else ""
    lines = [f"### rag-eval gate: {_MARK[decision.outcome]}{note}", "",
             f"{escape_markdown(decision.candidate)} vs {escape_markdown(decision.baseline)}", "",
             "| " + " | ".join(_HEADER) + " |", "|" + "|".join([" --- "] * 2 + [" ---: "] * (len(_HEADER) - 2)) + "|"]
    for m in decision.metrics:
        cells = _cells(m)
        cells[0], cells[1] = escape_markdown(m.metric), _MARK[m.outcome]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", *(f"- {escape_markdown(m.explain())}" for m in decision.metrics), "",
              f"Rule: {decision.rule()}. lower/upper: one-sided {1 - decision.alpha:.0%} bounds of candidate - "
              "baseline; fail when the upper bound is below -margin, pass when the lower bound is above it "
              "(after Holm's correction)."]
    return "\n".join(lines) + "\n"


def render_junit(decision: GateDecision, name: str = "rag-eval gate") -> str:
    """JUnit XML: one ``<testcase>`` a metric; a failing metric has a ``<failure>``, an inconclusive one a
    ``<failure>`` (``inconclusive="fail"``) or a ``<skipped>`` (``"pass"``), each with the explanation."""
    failures = sum(m.outcome == "fail" or (m.outcome == "inconclusive" and decision.inconclusive == "fail")
                   for m in decision.metrics)
    skipped = sum(m.outcome == "inconclusive" and decision.inconclusive == "pass" for m in decision.metrics)
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             f"<testsuites name={quoteattr(name)} tests=\"{len(decision.metrics)}\" failures=\"{failures}\">",
             f"  <testsuite name={quoteattr(name)} tests=\"{len(decision.metrics)}\" failures=\"{failures}\" "
             f"errors=\"0\" skipped=\"{skipped}\">"]
    for m in decision.metrics:
        lines.append(f"    <testcase classname=\"rag_eval_gate\" name={quoteattr(m.metric)}>")
        if m.outcome == "fail" or (m.outcome == "inconclusive" and decision.inconclusive == "fail"):
            lines.append(f"      <failure type={quoteattr(m.outcome)} message={quoteattr(m.explain())}>"
                         f"{escape(m.explain())}</failure>")
        elif m.outcome == "inconclusive":
            lines.append(f"      <skipped message={quoteattr(m.explain())}/>")
        else:
            lines.append(f"      <system-out>{escape(m.explain())}</system-out>")
        lines.append("    </testcase>")
    lines += ["  </testsuite>", "</testsuites>"]
    return "\n".join(lines) + "\n"


def render_json(decision: GateDecision, power: Sequence[PowerAnalysis] = ()) -> str:
    """The decision's :meth:`~GateDecision.to_dict` (and ``power``), as JSON."""
    data: dict[str, Any] = decision.to_dict()
    if power:
        data["power"] = [p.to_dict() for p in power]
    return json.dumps(data, indent=2) + "\n"


def render_power(analyses: Sequence[PowerAnalysis], fmt: str = "table") -> str:
    """The power analysis: per metric the questions, the spread of the differences, the smallest drop failed
    with 80% power now, and the questions needed for each drop asked."""
    if fmt == "json":
        return json.dumps({"power": [p.to_dict() for p in analyses]}, indent=2) + "\n"
    drops = sorted({d for p in analyses for d in p.needed})
    header = ["metric", "margin", "n", "sd of differences", "level", "detectable drop (80%)",
              *(f"n for drop {d:g}" for d in drops)]
    rows = [[p.metric, f"{p.margin:g}", str(p.n), f"{p.sd:.4f}", f"{p.alpha:.3g}",
             "-" if p.detectable_drop is None else f"{p.detectable_drop:.4f}",
             *("-" if p.needed.get(d) is None else str(p.needed[d]) for d in drops)] for p in analyses]
    note = ("Power of the fail test (noncentral t) at the level Holm gives the first of the gate's metrics; a drop "
            "within the margin cannot be failed (-).")
    if fmt == "markdown":
        table = ["| " + " | ".join(header) + " |", "|" + "|".join([" --- "] + [" ---: "] * (len(header) - 1)) + "|",
                 *("| " + " | ".join([escape_markdown(r[0]), *r[1:]]) + " |" for r in rows)]
        return "### rag-eval gate: power\n\n" + "\n".join(table) + "\n\n" + note + "\n"
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True)))
             for r in [header, *rows]]
    return "\n".join([*lines, "", note]) + "\n"


def gate_page(decision: GateDecision, reports: dict[str, Any], title: str) -> dict[str, Any]:
    """The page data of ``report.html`` (:func:`rag_eval_adapters.reports.report_page`) with the gate as its
    verdict section and one test a metric (difference, one-sided bounds, Holm-adjusted p of the deciding test)."""
    from ..reports import report_page

    page = report_page(reports, title=title, summary=[decision.summary(), "Rule: " + decision.rule()])
    page["verdict"] = [m.explain() for m in decision.metrics]
    page["tests"] = [{"metric": m.metric, "a": decision.baseline, "b": decision.candidate,
                      "difference": m.difference, "ci_low": m.lower, "ci_high": m.upper,
                      "p": m.p_fail if m.outcome == "fail" else m.p_pass,
                      "p_adjusted": m.p_fail_adjusted if m.outcome == "fail" else m.p_pass_adjusted, "n": m.n}
                     for m in decision.metrics]
    return page
