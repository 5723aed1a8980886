"""The gate's decision: for each metric two one-sided paired tests at its margin, Holm's correction, one verdict.

For each metric with margin ``m`` (the drop tolerated) and per-question differences ``d = candidate - baseline``
on the questions both scored (:mod:`~rag_eval_adapters.stats.noninferiority`):

* **pass** when non-inferiority is shown: H0 ``mean(d) <= -m`` rejected;
* **fail** when the candidate is worse by more than the margin: H0 ``mean(d) >= -m`` rejected;
* **inconclusive** otherwise.

The p-values of each kind (the gate's pass tests, its fail tests) are adjusted together with Holm's correction
(:func:`rag_eval_adapters.multitest.adjust_p_values`), and a test rejects when its adjusted p-value is below
``alpha`` (default 0.05). The overall outcome is **fail** if any metric fails, else **inconclusive** if any is,
else **pass**; an inconclusive gate counts as a failure unless ``inconclusive="pass"``.

Error rates: when the true difference of a metric is ``-m`` or better, the chance that the gate fails it is at
most ``alpha`` (and, with Holm, the chance that it fails *any* such metric is at most ``alpha`` however many are
gated); when a metric is truly worse than ``-m``, the chance that it passes is at most ``alpha`` likewise. Both
hold as the t-test's level holds: exactly for normal differences, approximately (the central limit theorem) for
others; ``benchmarks/bench_gate_simulation.py`` measures them on the demo's differences.

A metric with human labels of some questions for both systems (``human``) is tested on its prediction-powered
difference (PPI++, :func:`rag_eval_adapters.ppi.ppi_paired_by_id`), so the judge's own noise and bias are part
of the interval.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ..multitest import adjust_p_values
from ..stats.noninferiority import OneSidedTests, one_sided_tests, paired_one_sided_tests
from .inputs import Columns, as_columns, find_metric

__all__ = ["MetricGate", "GateDecision", "gate", "gate_columns", "paired_differences", "default_margin",
           "parse_margin_spec", "OUTCOMES", "EXIT_CODES", "DEFAULT_MARGINS", "FEW_CHANGED"]

OUTCOMES = ("pass", "fail", "inconclusive")
EXIT_CODES = {"pass": 0, "fail": 1, "inconclusive": 3}
"""The exit status of ``rag-eval gate`` by outcome (an inconclusive gate under ``--inconclusive pass`` exits 0;
2 is an error)."""
FEW_CHANGED = 20
"""Below this many changed questions (a paired difference other than 0) a verdict carries a caution."""
DEFAULT_MARGINS = {"retrieval": 0.02, "answer": 0.03}
"""The margin of a metric given without one: 0.02 for a retrieval metric of the registry (nDCG, MRR, recall...),
0.03 for any other (answer metrics, judged metrics)."""


def default_margin(metric: str) -> float:
    """The default margin of ``metric`` (:data:`DEFAULT_MARGINS`, by the metric's family)."""
    from ..measures import parse_metric

    try:
        parse_metric(metric)
    except (TypeError, ValueError):
        return DEFAULT_MARGINS["answer"]
    return DEFAULT_MARGINS["retrieval"]


def parse_margin_spec(spec: str) -> tuple[str, float]:
    """``"ndcg@10:0.02"`` -> ``("ndcg@10", 0.02)``; ``"ndcg@10"`` -> its :func:`default_margin`.

    Raises ``ValueError`` for a margin that is not a finite number ``>= 0``.
    """
    name, sep, margin = spec.strip().rpartition(":")
    if not sep:
        name = margin
        return name, default_margin(name)
    try:
        value = float(margin)
    except ValueError:
        raise ValueError(f"{spec!r}: the margin after ':' must be a number, e.g. ndcg@10:0.02") from None
    if not name or not 0.0 <= value < float("inf"):
        raise ValueError(f"{spec!r}: give METRIC:MARGIN with a margin >= 0 (the drop tolerated), e.g. ndcg@10:0.02")
    return name, value


@dataclass(frozen=True)
class MetricGate:
    """The verdict on one metric (difference = candidate - baseline).

    ``lower``/``upper`` are the one-sided ``1 - alpha`` bounds of the difference (before the correction);
    ``p_pass``/``p_fail`` the raw p-values of the pass and fail tests and ``p_pass_adjusted``/``p_fail_adjusted``
    their Holm-adjusted values, which decide ``outcome``. ``method`` is ``"paired t"`` or ``"ppi++"``.
    """

    metric: str
    margin: float
    n: int
    baseline_mean: float
    candidate_mean: float
    difference: float
    std_error: float
    lower: float
    upper: float
    p_pass: float
    p_fail: float
    p_pass_adjusted: float
    p_fail_adjusted: float
    outcome: str
    alpha: float = 0.05
    method: str = "paired t"
    n_labelled: int | None = None
    n_changed: int | None = None

    @property
    def few_changed(self) -> bool:
        """Whether fewer than :data:`FEW_CHANGED` questions changed (but some did): the t-test's normal
        approximation is then rough, and its error rates can exceed ``alpha`` (``docs/gate.md``)."""
        return self.n_changed is not None and 0 < self.n_changed < FEW_CHANGED

    def explain(self) -> str:
        """One sentence: the verdict, the numbers behind it and why."""
        head = (f"{self.metric}: {self.outcome.upper()}: candidate {self.candidate_mean:.4f} vs baseline "
                f"{self.baseline_mean:.4f} on {self.n} questions, difference {self.difference:+.4f} "
                f"(one-sided {1 - self.alpha:.0%} bounds {self.lower:+.4f} / {self.upper:+.4f}, margin "
                f"{self.margin:g}{', ' + self.method + f' with {self.n_labelled} human labels' if self.n_labelled else ''})")
        if self.outcome == "fail":
            why = (f"worse by more than the margin: upper bound below -{self.margin:g} "
                   f"(p = {self.p_fail:.3g}, Holm-adjusted {self.p_fail_adjusted:.3g} < {self.alpha:g})")
        elif self.outcome == "pass":
            why = (f"shown not worse than the margin: lower bound above -{self.margin:g} "
                   f"(p = {self.p_pass:.3g}, Holm-adjusted {self.p_pass_adjusted:.3g} < {self.alpha:g})")
        else:
            why = (f"neither shown within the margin (adjusted p {self.p_pass_adjusted:.3g}) nor worse by more "
                   f"(adjusted p {self.p_fail_adjusted:.3g}): more questions are needed to decide")
        caution = (f" [only {self.n_changed} of {self.n} questions changed: the test's error rates are rough with "
                   "so few; gate on more questions]" if self.few_changed else "")
        return f"{head}: {why}{caution}"

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON."""
        return asdict(self)


@dataclass(frozen=True)
class GateDecision:
    """The gate's verdict over its metrics; ``outcome`` is fail if any fails, else inconclusive if any is, else
    pass; ``exit_code`` is what ``rag-eval gate`` returns."""

    metrics: tuple[MetricGate, ...]
    alpha: float = 0.05
    inconclusive: str = "fail"
    baseline: str = "baseline"
    candidate: str = "candidate"

    @property
    def outcome(self) -> str:
        outcomes = {m.outcome for m in self.metrics}
        return "fail" if "fail" in outcomes else "inconclusive" if "inconclusive" in outcomes else "pass"

    @property
    def passed(self) -> bool:
        """Whether CI should go on: a pass, or an inconclusive gate under ``inconclusive="pass"``."""
        return self.outcome == "pass" or (self.outcome == "inconclusive" and self.inconclusive == "pass")

    @property
    def exit_code(self) -> int:
        return 0 if self.passed else EXIT_CODES[self.outcome]

    def metric(self, name: str) -> MetricGate:
        """The verdict on metric ``name``."""
        found = next((m for m in self.metrics if m.metric == name), None)
        if found is None:
            raise KeyError(f"the gate has no metric {name!r}")
        return found

    def rule(self) -> str:
        """The rule in one sentence."""
        k = len(self.metrics)
        return (f"two one-sided paired tests per metric at its margin, Holm's correction over {k} "
                f"metric{'s' if k != 1 else ''} for each kind, alpha {self.alpha:g}; inconclusive counts as "
                f"{self.inconclusive}")

    def summary(self) -> str:
        """``"Gate FAIL: ..."``: the outcome and the metrics behind it."""
        by = {o: [m.metric for m in self.metrics if m.outcome == o] for o in OUTCOMES}
        parts = [f"{len(by[o])} {o}" + (f" ({', '.join(by[o])})" if by[o] and o != "pass" else "")
                 for o in ("fail", "inconclusive", "pass") if by[o]]
        note = " (counted as a pass)" if self.outcome == "inconclusive" and self.passed else ""
        return f"Gate {self.outcome.upper()}{note}: {self.candidate} vs {self.baseline}: {', '.join(parts)}"

    def explanation(self) -> str:
        """The summary, one line a metric and the rule."""
        return "\n".join([self.summary(), *("  " + m.explain() for m in self.metrics), "Rule: " + self.rule()])

    def to_dict(self) -> dict[str, Any]:
        """``{"outcome", "passed", "exit_code", "baseline", "candidate", "alpha", "inconclusive", "rule",
        "metrics": [...]}``."""
        return {"outcome": self.outcome, "passed": self.passed, "exit_code": self.exit_code,
                "baseline": self.baseline, "candidate": self.candidate, "alpha": self.alpha,
                "inconclusive": self.inconclusive, "rule": self.rule(), "summary": self.summary(),
                "metrics": [m.to_dict() for m in self.metrics]}


def paired_differences(baseline: Mapping[Hashable, float], candidate: Mapping[Hashable, float]
                       ) -> tuple[list[Hashable], np.ndarray, np.ndarray]:
    """The questions both columns hold (the baseline's order) and the two value arrays on them."""
    common = [q for q in baseline if q in candidate]
    base = np.fromiter((baseline[q] for q in common), dtype=np.float64, count=len(common))
    cand = np.fromiter((candidate[q] for q in common), dtype=np.float64, count=len(common))
    return common, base, cand


def _ppi_tests(metric: str, base: Mapping, cand: Mapping, human: Mapping, margin: float,
               alpha: float) -> tuple[OneSidedTests, int] | None:
    """The tests on the PPI++ difference of ``metric`` when both systems have human labels for it, else None."""
    from ..ppi import ppi_paired_by_id

    labels = {side: {q: row[metric] for q, row in human.get(side, {}).items() if metric in row}
              for side in ("baseline", "candidate")}
    if not labels["baseline"] and not labels["candidate"]:
        return None
    both = [q for q in labels["baseline"] if q in labels["candidate"]]
    missing = [q for q in both if q not in base or q not in cand]
    if missing:
        raise ValueError(f"{metric}: human-labelled question {missing[0]!r} is not scored by both systems")
    if len(both) < 2 or len(both) >= len(base):
        raise ValueError(f"{metric}: PPI needs at least 2 questions labelled for both baseline and candidate and "
                         f"some unlabelled ones; {len(both)} of {len(base)} are labelled for both")
    result = ppi_paired_by_id(base, cand, {q: labels["baseline"][q] for q in both},
                              {q: labels["candidate"][q] for q in both}, confidence=1.0 - 2.0 * alpha)
    return one_sided_tests(result.estimate, result.std_error or 0.0, len(both) - 1, margin, alpha), len(both)


def _metric_tests(metric: str, key_b: str, key_c: str, baseline: Columns, candidate: Columns, margin: float,
                  alpha: float, human: Mapping | None) -> tuple[list, OneSidedTests, str, int | None]:
    common, base, cand = paired_differences(baseline[key_b], candidate[key_c])
    if len(common) < 2:
        raise ValueError(f"{metric}: {len(common)} questions scored by both baseline and candidate; the gate "
                         "needs at least 2")
    means = [float(base.mean()), float(cand.mean()), int(np.count_nonzero(cand != base))]
    if human:
        ppi = _ppi_tests(metric, dict(zip(common, base.tolist(), strict=True)),
                         dict(zip(common, cand.tolist(), strict=True)), human, margin, alpha)
        if ppi is not None:
            return [len(common), *means], ppi[0], "ppi++", ppi[1]
    return [len(common), *means], paired_one_sided_tests(cand - base, margin, alpha), "paired t", None


def gate_columns(baseline: Columns, candidate: Columns, margins: Mapping[str, float], *, alpha: float = 0.05,
                 inconclusive: str = "fail", human: Mapping[str, Mapping[Hashable, Mapping[str, float]]] | None = None,
                 names: Sequence[str] = ("baseline", "candidate")) -> GateDecision:
    """The :class:`GateDecision` of per-question columns (:mod:`~rag_eval_adapters.gate.inputs`); see
    :func:`gate` for the parameters."""
    _check_options(margins, alpha, inconclusive)
    rows = []
    for metric, margin in margins.items():
        key_b, key_c = find_metric(baseline, metric, names[0]), find_metric(candidate, metric, names[1])
        counts, tests, method, labelled = _metric_tests(metric, key_b, key_c, baseline, candidate, float(margin),
                                                        alpha, human)
        rows.append((metric, float(margin), counts, tests, method, labelled))
    adjusted_pass = adjust_p_values([r[3].p_pass for r in rows], "holm")
    adjusted_fail = adjust_p_values([r[3].p_fail for r in rows], "holm")
    verdicts = []
    for (metric, margin, (n, mean_b, mean_c, changed), t, method, labelled), ap, af in zip(
            rows, adjusted_pass.tolist(), adjusted_fail.tolist(), strict=True):
        outcome = "fail" if af < alpha else "pass" if ap < alpha else "inconclusive"
        verdicts.append(MetricGate(metric, margin, n, mean_b, mean_c, t.difference, t.std_error, t.lower, t.upper,
                                   t.p_pass, t.p_fail, ap, af, outcome, alpha, method, labelled, changed))
    return GateDecision(tuple(verdicts), alpha, inconclusive, names[0], names[1])


def _check_options(margins: Mapping[str, float], alpha: float, inconclusive: str) -> None:
    if not isinstance(margins, Mapping) or not margins:
        raise ValueError("give the gate at least one metric and its margin, e.g. {'ndcg@10': 0.02}")
    for metric, margin in margins.items():
        if isinstance(margin, bool) or not isinstance(margin, (int, float)) or not 0.0 <= margin < float("inf"):
            raise ValueError(f"{metric}: the margin must be a number >= 0 (the drop tolerated), got {margin!r}")
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0.0 < alpha < 0.5:
        raise ValueError(f"alpha must be a number between 0 and 0.5 (e.g. 0.05), got {alpha!r}")
    if inconclusive not in ("pass", "fail"):
        raise ValueError(f"inconclusive must be 'pass' or 'fail', got {inconclusive!r}")


def gate(candidate: Any, baseline: Any, margins: Mapping[str, float | None] | Sequence[str], *, alpha: float = 0.05,
         inconclusive: str = "fail", human: Mapping[str, Mapping[Hashable, Mapping[str, float]]] | None = None,
         config: str | None = None, names: Sequence[str] = ("baseline", "candidate")) -> GateDecision:
    """Gate a candidate against a baseline on the questions both scored.

    Parameters
    ----------
    candidate, baseline
        Each a :class:`~rag_eval_adapters.Report`, a ``report.json`` path (``evaluate``, ``answers``, ``judge``
        or ``bench``) or ``{question: {metric: value}}``.
    margins : mapping or sequence
        ``{metric: margin}`` (the drop tolerated; ``None`` for the metric's :func:`default_margin`) or metric
        names (``"ndcg@10:0.02"`` or ``"ndcg@10"``).
    alpha : float
        The level of every test after Holm's correction (default 0.05).
    inconclusive : {"fail", "pass"}
        What an inconclusive gate counts as (``GateDecision.passed``, ``exit_code``).
    human : mapping, optional
        Human labels, ``{"baseline": {question: {metric: value}}, "candidate": {...}}``
        (:func:`~rag_eval_adapters.human_labels.read_human_labels` with ``"run"`` on each line): a labelled
        metric is tested on its PPI++ difference.
    config : str, optional
        The configuration of a bench ``report.json``.
    names : pair of str
        How the baseline and candidate are named in the explanation.

    Returns
    -------
    GateDecision
    """
    if isinstance(margins, Mapping):
        wanted = {m: (default_margin(m) if v is None else v) for m, v in margins.items()}
    else:
        wanted = dict(parse_margin_spec(s) for s in ([margins] if isinstance(margins, str) else margins))
    return gate_columns(as_columns(baseline, names[0], config), as_columns(candidate, names[1], config), wanted,
                        alpha=alpha, inconclusive=inconclusive, human=human, names=names)
