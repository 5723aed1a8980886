"""Rendering a :class:`~rag_eval_adapters.compare.Comparison`: the means and the paired tests."""

from __future__ import annotations

import csv
import io
import json
from typing import TYPE_CHECKING, Any

from ._text import FORMATS, _fmt, _fmt_p, _markdown_table, _render_rich, _rich_table

if TYPE_CHECKING:
    from ..compare import Comparison


def comparison_to_dict(comparison: Comparison) -> dict[str, Any]:
    """``{"mean": {run: {metric: v}}, "tests": [{metric, run_a, run_b, difference, ci_low, ci_high,
    t_test_p_value, p_value, ...}], "counts": {...}}``."""
    return comparison.to_dict()


def _adjusted(t: Any) -> float:
    return t.adjusted_p_value if t.adjusted_p_value is not None else t.p_value


def _comparison_rows(comparison: Comparison) -> tuple[list[str], list[list[str]], list[str], list[list[str]]]:
    runs = list(comparison.runs)
    mean_header = ["metric"] + runs
    def cell(run: str, metric: str) -> str:
        iv = (comparison.intervals or {}).get(run, {}).get(metric)
        return _fmt(comparison.mean[run][metric]) + (f" [{_fmt(iv.low)}, {_fmt(iv.high)}]" if iv is not None else "")

    mean_rows = [[m] + [cell(r, m) for r in runs] for m in comparison.metrics]
    conf = int(round(comparison.tests[0].confidence * 100)) if comparison.tests else 95
    test_header = ["metric", "run A", "run B", "B - A", f"{conf}% CI", "t-test p", "p_value", "adjusted p", ""]
    level = comparison.correction.alpha if comparison.correction else 0.05
    test_rows = []
    for t in comparison.tests:
        mark = "*" if _adjusted(t) < level else ""
        test_rows.append(
            [
                t.metric, t.run_a, t.run_b, f"{t.difference:+.4f}",
                f"[{t.ci_low:+.4f}, {t.ci_high:+.4f}]", _fmt_p(t.t_test_p_value), _fmt_p(t.p_value),
                _fmt_p(_adjusted(t)), mark,
            ]
        )
    return mean_header, mean_rows, test_header, test_rows


HUMAN_TITLE = "Corrected with human labels (prediction-powered, PPI++)"


def _mean_title(comparison: Comparison) -> str:
    """``"Mean over 72 queries"``, naming the intervals when the means carry them (``"[t 95%]"``)."""
    first = next((iv for by in (comparison.intervals or {}).values() for iv in by.values()), None)
    named = f" [{first.method} {first.confidence:.0%} interval]" if first is not None else ""
    return f"Mean over {comparison.n_queries} queries{named}"


def comparison_note(comparison: Comparison) -> str:
    """The legend under the tests: what each p is, the family the adjusted p-values were corrected over, and a
    warning when the randomization test's resolution keeps every test from reaching the level."""
    c = comparison.correction
    if c is not None and c.method != "none":
        name = "Benjamini-Hochberg" if c.method == "bh" else c.method
        family = (f"adjusted p: {name} over the {c.family_size} tests {c.scope}" if c.scope
                  else f"adjusted p: {name} over all {c.family_size} tests")
    else:
        family = "adjusted p: not corrected"
    where = f"significant {c}" if c is not None else "p < 0.05"
    floor = c.floor_note(_smallest_p(comparison)) if c is not None and comparison.tests else ""
    return (f"p_value: paired randomization test; t-test p: paired t-test; CI: bootstrap of the mean difference; "
            f"{family}; * = {where}" + (f" ({floor})" if floor else ""))


def _smallest_p(comparison: Comparison) -> float:
    """The smallest p-value the randomization tests could give: ``1 / (cap + 1)`` of a count over the cap's sign
    vectors, or a smaller p-value a test got from its bound."""
    test = comparison.tests[0]
    cap = test.max_permutations if test.max_permutations is not None else test.n_permutations
    return min([1.0 / (cap + 1)] + [t.p_value for t in comparison.tests])


def comparison_tables(comparison: Comparison) -> list[Any]:
    """Rich renderables for a comparison: the means table and the significance table."""
    from rich.text import Text

    mh, mr, th, tr = _comparison_rows(comparison)
    out = [
        _rich_table(_mean_title(comparison), mh, mr),
        _rich_table("Paired tests (difference = run B - run A)", th, tr, numeric_from=3),
        Text(comparison_note(comparison)),
    ]
    if comparison.human is not None:
        out.append(Text("\n".join([HUMAN_TITLE, *comparison.human.lines()])))
    return out


def render_comparison(comparison: Comparison, fmt: str = "table") -> str:
    """Render a comparison as text.

    Parameters
    ----------
    comparison : Comparison
        From :func:`~rag_eval_adapters.compare.compare_reports`.
    fmt : {"table", "json", "csv", "markdown"}
        ``csv`` has one row per metric and pair of runs: ``metric,run_a,run_b,mean_a,mean_b,
        difference,ci_low,ci_high,t_statistic,t_test_p_value,p_value,adjusted_p_value,correction,n_queries``.

    Returns
    -------
    str
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if fmt == "json":
        return json.dumps(comparison_to_dict(comparison), indent=2) + "\n"
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        cols = [
            "metric", "run_a", "run_b", "mean_a", "mean_b", "difference", "ci_low", "ci_high",
            "t_statistic", "t_test_p_value", "p_value", "adjusted_p_value", "correction", "n_queries",
        ]
        writer.writerow(cols)
        method = comparison.correction.method if comparison.correction else ""
        for t in comparison.tests:
            d = {**t.to_dict(), "correction": method}
            writer.writerow(["" if d[c] is None else d[c] for c in cols])
        return buffer.getvalue()
    if fmt == "markdown":
        mh, mr, th, tr = _comparison_rows(comparison)
        return "\n".join(
            [
                f"### {_mean_title(comparison)}\n",
                _markdown_table(mh, mr),
                "",
                "### Paired tests (difference = run B - run A)\n",
                _markdown_table(th, tr, numeric_from=3),
                "",
                comparison_note(comparison),
                "",
                *([f"### {HUMAN_TITLE}", "", *(f"- {line}" for line in comparison.human.lines()), ""]
                  if comparison.human is not None else []),
            ]
        )
    return _render_rich(comparison_tables(comparison))
