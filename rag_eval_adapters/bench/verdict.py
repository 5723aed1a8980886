"""The benchmark's verdict in plain words: a short list, one line a set of questions, and one line saying how
the differences were tested.

Means within :data:`TIE` of each other (the same to the three decimals shown) tie: a tie is said as a tie,
never as a win by ``+0.000``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from ..compare import compare_per_query
from ..report import Report

__all__ = ["TIE", "verdict"]

TIE = 5e-4
"""Two means closer than this tie (they read the same to three decimals: a difference shown as ``+0.000``)."""


def _ranked(reports: Mapping[str, Report], metric: str) -> list[tuple[str, float]]:
    return sorted(((name, r.mean[metric]) for name, r in reports.items()), key=lambda x: (-x[1], x[0]))


def _test_of(best: str, other: str, comparison: Any, metric: str) -> Any:
    for test in comparison.tests:
        if test.metric == metric and {test.run_a, test.run_b} == {best, other}:
            return test
    raise KeyError(f"no test of {metric} between {best} and {other}")  # pragma: no cover - every pair is tested


def _versus(best: str, other: str, comparison: Any, metric: str, reports: Mapping[str, Report]) -> tuple[float, str]:
    """``(difference best - other, "(significant: adjusted p = 0.003, 95% CI [+0.012, +0.090])")`` from the test
    of the pair in ``comparison`` (every pair of configurations on the same questions)."""
    if comparison is None:
        return reports[best].mean[metric] - reports[other].mean[metric], "(too few shared queries to test)"
    test = _test_of(best, other, comparison, metric)
    sign = 1.0 if test.run_b == best else -1.0
    low, high = sorted((sign * test.ci_low + 0.0, sign * test.ci_high + 0.0))  # + 0.0: no "-0.000"
    adjusted = test.adjusted_p_value if test.adjusted_p_value is not None else test.p_value
    signif = "significant" if adjusted < comparison.correction.alpha else "not significant"
    return sign * test.difference, f"({signif}: adjusted p = {adjusted:.3g}, 95% CI [{low:+.3f}, {high:+.3f}])"


def _pairs(reports: Mapping[str, Report], metric: str, permutations: int, correction: str) -> Any:
    """Every pair of configurations tested on ``metric`` over the questions they share, as one family."""
    per_query = {name: cast(Mapping[str, Mapping[str, float]], r.per_query) for name, r in reports.items()}
    shared = set.intersection(*(set(rows) for rows in per_query.values()))
    if len(shared) < 2:
        return None
    return compare_per_query(per_query, [metric], n_permutations=permutations, n_bootstrap=permutations,
                             correction=correction)


def _of_type(report: Report, qtype: str | None) -> Report:
    if qtype is None:
        return report
    rows = [i for i, q in enumerate(report.query_ids) if report.attributes.get(q, {}).get("query_type") == qtype]
    return Report(report.metrics, [report.query_ids[i] for i in rows], report.values[rows], {}, {})


def _beats_last(best: str, ranked: list[tuple[str, float]], pairs: Any, reports: Mapping[str, Report],
                metric: str) -> str:
    """``"; it beats the last, X, by ..."``, or, when several tie for last, every one of them with its test."""
    low = ranked[-1][1]
    last = [name for name, v in ranked if v - low < TIE]
    if len(last) == 1:
        diff, how = _versus(best, last[0], pairs, metric, reports)
        return f"; it beats the last, {last[0]}, by {diff:+.3f} {how}"
    tests = "; ".join(f"{name} {_versus(best, name, pairs, metric, reports)[1]}" for name in last)
    return (f"; {len(last)} configurations tie for last at {metric} = {low:.3f} ({', '.join(last)}), and it beats "
            f"them by {reports[best].mean[metric] - low:+.3f}: {tests}")


def _line(label: str, reports: Mapping[str, Report], metric: str, pairs: Any) -> str:
    """One set of questions: who wins (or ties for first), by how much over the runner-up, and over the last."""
    ranked = _ranked(reports, metric)
    best, value = ranked[0]
    if len(ranked) == 1:
        return f"On {label}, {best} scores {metric} = {value:.3f}."
    tied = [name for name, v in ranked[1:] if value - v < TIE]
    if tied:
        text = f"On {label}, {best} ties for first with {', '.join(tied)} at {metric} = {value:.3f}"
    else:
        diff, how = _versus(best, ranked[1][0], pairs, metric, reports)
        text = f"On {label}, {best} wins: {metric} = {value:.3f}, {diff:+.3f} over {ranked[1][0]} {how}"
    if (tied or len(ranked) > 2) and value - ranked[-1][1] >= TIE:  # the last is neither first nor runner-up
        text += _beats_last(best, ranked, pairs, reports, metric)
    return text + "."


def verdict(results: Sequence[Any], metric: str, permutations: int = 2000, correction: str = "holm") -> list[str]:
    """A short list: for all questions, then each query type, which configuration wins (or which tie) on
    ``metric``, by how much, how surely; then one line saying how that was tested.

    On each set of questions every pair of configurations is tested on ``metric`` (paired randomization) and
    the p-values are adjusted together (Holm's correction by default): picking the winner and the runner-up
    looks at every pair, so every pair is the family. ``results`` are
    :class:`~rag_eval_adapters.bench.scoring.ConfigResult` objects (``name`` and ``report``).
    """
    lines: list[str] = []
    families: list[str] = []
    types = sorted({str(a["query_type"]) for r in results for a in r.report.attributes.values()
                    if a.get("query_type") is not None})
    for qtype in [None, *types]:
        reports = {r.name: _of_type(r.report, qtype) for r in results}
        reports = {n: rep for n, rep in reports.items() if rep.query_ids}
        if not reports:
            continue
        pairs = _pairs(reports, metric, permutations, correction) if len(reports) > 1 else None
        if pairs is not None and str(pairs.correction) not in families:
            families.append(str(pairs.correction))
        lines.append(_line("all questions" if qtype is None else f"{qtype} questions", reports, metric, pairs))
    if families:
        lines.append(f"How sure: each pair of configurations compared on the questions they share (paired "
                     f"randomization test of {metric}); significant {' / '.join(families)}; every test, with "
                     "its raw p-value, in the paired-tests table.")
    return lines
