r"""The metric registry: each metric declared once, as a class, with its names, options and formula.

A metric class declares its ``name``, its ``aliases`` (trec_eval's and ir_measures' names among them), its
options (pydantic fields: the cutoff ``k``, ``granular``, ``gain``, ``rel``) and its formula, once, in its
docstring; the one line it adds is the :class:`~rag_eval_adapters._kernel.Judged` method that computes it.
Everything else is derived from :data:`METRICS`: :meth:`Metric.score` (written once, here), the per-query
functions of :mod:`rag_eval_adapters.metrics`, the LlamaIndex and LangChain adapter classes, the names
:func:`parse_metric` accepts, the ``rag-eval`` defaults and the names table of ``docs/metrics.md``.

Notation (for one query): the ranking :math:`d_1, \dots, d_n` is the retrieved ids, best first, each kept once
at its first rank; a judged id has grade :math:`g(d)`; it is *relevant* when :math:`g(d) \ge \ell`, the
relevance level (default 1), and an unjudged id is never relevant (as in trec_eval); :math:`R` is the number of
relevant judged ids; :math:`N_k` the number of relevant ids ranked within :math:`k` (``k=None``: the whole
ranking).

>>> from rag_eval_adapters.measures import NDCG, parse_metric
>>> parse_metric("ndcg@10") == NDCG(k=10)
True
>>> NDCG(k=10, gain="exponential").key
'ndcg_exp@10'
>>> parse_metric("mrr_granular@5")
MRR(k=5, granular=True)
>>> parse_metric("P(rel=2)@5")
Precision(k=5, rel=2.0)

A metric's ``key`` is its name, then its options, then its cutoff: ``hit_rate@3``, ``mrr_granular``,
``ndcg_exp@10``, ``precision_rel2@5``. Its ``label`` is the name it was asked for (``"map@100"``, ``"P@5"``);
reports, LangSmith feedback and the ``rag-eval`` output name each column by its label, so the names users ask
for are the names they read back. A metric object made directly is labelled by its key.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from pydantic import field_validator

from ._kernel import Judged
from ._names import MetricLike, parse_metric, parse_metrics
from ._registry import METRICS, REGISTRY, Metric, Registered, TextRule, close_name, names_of, unknown_name
from .validation import Flag, Gain, RelevanceLevel

__all__ = [
    "Metric",
    "HitRate",
    "MRR",
    "Precision",
    "Recall",
    "F1",
    "AveragePrecision",
    "RPrecision",
    "DCG",
    "NDCG",
    "JudgedShare",
    "METRICS",
    "parse_metric",
    "parse_metrics",
    "metric_names",
    "default_metric_names",
    "MetricLike",
    "TextRule",
    # the registry's own vocabulary, public for the other metric families (answers/): the base class of a
    # registered metric, the table by family, and the name lookup with its errors
    "Registered",
    "REGISTRY",
    "names_of",
    "unknown_name",
    "close_name",
]


class _Binary(Metric):
    """A metric of relevant / not relevant, decided by the relevance level."""

    rel: RelevanceLevel | None = None
    """This metric's own relevance level (ir_measures' ``rel``), above 0; None: the evaluation's level."""

    @field_validator("rel", mode="after")
    @classmethod
    def _positive_rel(cls, value: float | None) -> float | None:
        if value is not None and not value > 0:
            raise ValueError(f"rel must be above 0, got {value!r}; for levels <= 0 pass relevance_level=")
        return value


class _Granular(_Binary):
    granular: Flag = False
    """LlamaIndex's granular variant (``use_granular_hit_rate`` / ``use_granular_mrr``)."""
    granular_text_rule: ClassVar[TextRule | None] = None
    """The granular variant's rule under text matching, when it differs from ``text_rule``."""


class _Graded(Metric):
    gain: Gain = "linear"
    """``"linear"``: :math:`G(g) = \\max(g, 0)` (trec_eval); ``"exponential"``: :math:`2^{\\max(g, 0)} - 1`."""


class HitRate(_Granular):
    r"""Hit rate at k: 1 when a relevant id is ranked within k, else 0.

    .. math:: \mathrm{HitRate@k} = \mathbb{1}[N_k > 0]

    Granular (LlamaIndex's ``use_granular_hit_rate``): the share of relevant ids found, :math:`N_k / R`
    (0 when :math:`R = 0`). trec_eval: ``success_k``.

    References
    ----------
    E. M. Voorhees, "The TREC-8 Question Answering Track Report", TREC-8, 1999.

    Examples
    --------
    >>> from rag_eval_adapters.metrics import hit_rate
    >>> hit_rate(["a", "b", "c"], ["c", "x"], k=2)
    0.0
    >>> hit_rate(["a", "b", "c"], ["c", "x"], granular=True)
    0.5
    """

    name: ClassVar[str] = "hit_rate"
    aliases: ClassVar[tuple[str, ...]] = ("success", "Success", "hit", "hitrate")
    trec_eval: ClassVar[str] = "success_k"
    ir_measures: ClassVar[str] = "Success@k"
    function: ClassVar[str] = "hit_rate"
    granular_text_rule: ClassVar[TextRule | None] = "coverage"  # N_k / R: the share of expected texts found

    def _compute(self, judged: Judged) -> np.ndarray:
        return judged.hit_rate(self.k, self.granular)


class MRR(_Granular):
    r"""Reciprocal rank at k: 1 / the rank of the first relevant id ranked within k, 0 when there is none.

    .. math:: \mathrm{RR@k} = \frac{1}{\min\{i \le k : g(d_i) \ge \ell\}}

    Granular (LlamaIndex's ``use_granular_mrr``): the mean of :math:`1/i` over the relevant ranks
    :math:`i \le k` (0 when :math:`N_k = 0`). The mean over queries is the MRR. trec_eval: ``recip_rank``
    (no cutoff).

    References
    ----------
    E. M. Voorhees, "The TREC-8 Question Answering Track Report", TREC-8, 1999.

    Examples
    --------
    >>> from rag_eval_adapters.metrics import mrr
    >>> mrr(["a", "b", "c"], ["b", "c"])
    0.5
    >>> round(mrr(["a", "b", "c"], ["b", "c"], granular=True), 4)
    0.4167
    """

    name: ClassVar[str] = "mrr"
    aliases: ClassVar[tuple[str, ...]] = ("recip_rank", "RR", "rr")
    trec_eval: ClassVar[str] = "recip_rank"
    ir_measures: ClassVar[str] = "RR@k"
    function: ClassVar[str] = "mrr"

    def _compute(self, judged: Judged) -> np.ndarray:
        return judged.mrr(self.k, self.granular)


class Precision(_Binary):
    r"""Precision at k: the relevant ids within k, divided by k.

    .. math:: \mathrm{P@k} = \frac{N_k}{k}

    The denominator is k even when fewer ids were retrieved; with ``k=None`` it is the number of distinct
    retrieved ids (0 when none). trec_eval: ``P_k``.

    References
    ----------
    C. D. Manning, P. Raghavan, H. Schütze, *Introduction to Information Retrieval*, 2008, ch. 8.

    Examples
    --------
    >>> from rag_eval_adapters.metrics import precision
    >>> precision(["a", "b"], ["a"], k=4)
    0.25
    """

    name: ClassVar[str] = "precision"
    aliases: ClassVar[tuple[str, ...]] = ("P",)
    trec_eval: ClassVar[str] = "P_k"
    ir_measures: ClassVar[str] = "P@k"
    function: ClassVar[str] = "precision"

    def _compute(self, judged: Judged) -> np.ndarray:
        return judged.precision(self.k)


class Recall(_Binary):
    r"""Recall at k: the relevant ids within k, divided by the number of relevant ids.

    .. math:: \mathrm{R@k} = \frac{N_k}{R} \quad (0 \text{ when } R = 0)

    trec_eval: ``recall_k``.

    References
    ----------
    C. D. Manning, P. Raghavan, H. Schütze, *Introduction to Information Retrieval*, 2008, ch. 8.

    Examples
    --------
    >>> from rag_eval_adapters.metrics import recall
    >>> recall(["a", "b", "c"], ["a", "c", "z"], k=2)
    0.3333333333333333
    """

    name: ClassVar[str] = "recall"
    aliases: ClassVar[tuple[str, ...]] = ("R",)
    trec_eval: ClassVar[str] = "recall_k"
    ir_measures: ClassVar[str] = "R@k"
    function: ClassVar[str] = "recall"
    text_rule: ClassVar[TextRule] = "coverage"

    def _compute(self, judged: Judged) -> np.ndarray:
        return judged.recall(self.k)


class F1(_Binary):
    r"""F1 at k: the harmonic mean of precision and recall at k.

    .. math:: \mathrm{F1@k} = \frac{2\,\mathrm{P@k}\,\mathrm{R@k}}{\mathrm{P@k} + \mathrm{R@k}} \quad (0 \text{ when both are } 0)

    trec_eval: none (``set_F`` is unranked).

    References
    ----------
    C. J. van Rijsbergen, *Information Retrieval*, 2nd ed., 1979, ch. 7.

    Examples
    --------
    >>> from rag_eval_adapters.metrics import f1
    >>> f1(["a", "b"], ["a", "c"])
    0.5
    """

    name: ClassVar[str] = "f1"
    function: ClassVar[str] = "f1"
    text_rule: ClassVar[TextRule] = "f1"

    def _compute(self, judged: Judged) -> np.ndarray:
        return judged.f1(self.k)


class AveragePrecision(_Binary):
    r"""Average precision at k: the precision at each relevant rank within k, summed, over the relevant ids.

    .. math:: \mathrm{AP@k} = \frac{1}{R} \sum_{i \le k,\ g(d_i) \ge \ell} \mathrm{P@i} \quad (0 \text{ when } R = 0)

    Relevant ids not ranked within k count 0, so the divisor is always R. The mean over queries is MAP.
    trec_eval: ``map`` (no cutoff) and ``map_cut_k``.

    References
    ----------
    C. Buckley, E. M. Voorhees, "Evaluating Evaluation Measure Stability", SIGIR 2000.

    Examples
    --------
    >>> from rag_eval_adapters.metrics import average_precision
    >>> average_precision(["a", "x", "b"], ["a", "b"])
    0.8333333333333333
    """

    name: ClassVar[str] = "ap"
    aliases: ClassVar[tuple[str, ...]] = ("map", "map_cut", "AP", "average_precision")
    trec_eval: ClassVar[str] = "map_cut_k"
    ir_measures: ClassVar[str] = "AP@k"
    function: ClassVar[str] = "average_precision"

    def _compute(self, judged: Judged) -> np.ndarray:
        return judged.average_precision(self.k)


class RPrecision(_Binary):
    r"""R-precision: precision at R, the number of relevant ids; it takes no cutoff.

    .. math:: \mathrm{RPrec} = \frac{N_R}{R} \quad (0 \text{ when } R = 0)

    Still divided by R when fewer than R ids were retrieved. trec_eval: ``Rprec``.

    References
    ----------
    C. D. Manning, P. Raghavan, H. Schütze, *Introduction to Information Retrieval*, 2008, §8.4.

    Examples
    --------
    >>> from rag_eval_adapters.metrics import r_precision
    >>> r_precision(["a", "x", "b"], ["a", "b"])
    0.5
    """

    name: ClassVar[str] = "r_precision"
    aliases: ClassVar[tuple[str, ...]] = ("Rprec", "r-precision")
    trec_eval: ClassVar[str] = "Rprec"
    ir_measures: ClassVar[str] = "Rprec"
    function: ClassVar[str] = "r_precision"
    cutoff: ClassVar[bool] = False
    default: ClassVar[bool] = False

    def _compute(self, judged: Judged) -> np.ndarray:
        return judged.r_precision()


class DCG(_Graded):
    r"""Discounted cumulative gain at k; not bounded by 1, and the relevance level plays no part.

    .. math:: \mathrm{DCG@k} = \sum_{i=1}^{\min(k,n)} \frac{G(g(d_i))}{\log_2(i + 1)}

    :math:`G(g) = \max(g, 0)` (``gain="linear"``, trec_eval) or :math:`2^{\max(g, 0)} - 1`
    (``gain="exponential"``, Burges et al. 2005); an unjudged id has gain 0. trec_eval: none (``ndcg``'s
    numerator).

    References
    ----------
    K. Järvelin, J. Kekäläinen, "Cumulated Gain-Based Evaluation of IR Techniques", ACM TOIS 20(4), 2002.

    Examples
    --------
    >>> from rag_eval_adapters.metrics import dcg
    >>> round(dcg(["a", "b"], {"a": 3, "b": 2}), 4)
    4.2619
    """

    name: ClassVar[str] = "dcg"
    function: ClassVar[str] = "dcg"
    bounded: ClassVar[bool] = False
    default: ClassVar[bool] = False

    def _compute(self, judged: Judged) -> np.ndarray:
        return judged.dcg(self.k, self.gain)


class NDCG(_Graded):
    r"""Normalized DCG at k: DCG@k over the ideal DCG@k of every judged grade, retrieved or not.

    .. math:: \mathrm{nDCG@k} = \frac{\mathrm{DCG@k}}{\sum_{j=1}^{\min(k,m)} G(g^*_j) / \log_2(j + 1)}, \quad g^*_1 \ge \dots \ge g^*_m \quad (0 \text{ when the ideal is } 0)

    Gains as for :class:`DCG`; the relevance level plays no part. Without a cutoff the ideal covers every
    judged id, as LlamaIndex's ``NDCG``. trec_eval: ``ndcg`` (no cutoff) and ``ndcg_cut_k``.

    References
    ----------
    K. Järvelin, J. Kekäläinen, "Cumulated Gain-Based Evaluation of IR Techniques", ACM TOIS 20(4), 2002.

    Examples
    --------
    >>> from rag_eval_adapters.metrics import ndcg
    >>> round(ndcg(["d1", "d7", "d3"], {"d1": 2, "d3": 1}), 4)
    0.9502
    """

    name: ClassVar[str] = "ndcg"
    aliases: ClassVar[tuple[str, ...]] = ("nDCG", "ndcg_cut")
    trec_eval: ClassVar[str] = "ndcg_cut_k"
    ir_measures: ClassVar[str] = "nDCG@k"
    function: ClassVar[str] = "ndcg"

    def _compute(self, judged: Judged) -> np.ndarray:
        return judged.ndcg(self.k, self.gain)


class JudgedShare(Metric):
    r"""Judged at k: the ids ranked within k that have a judgment (of any grade, 0 included), divided by the ids
    ranked within k.

    .. math:: \mathrm{Judged@k} = \frac{|\{i \le \min(k, n) : d_i \text{ judged}\}|}{\min(k, n)}

    with :math:`n` the number of distinct retrieved ids (0 when none was retrieved). How complete the judgments
    of the top of the ranking are: an unjudged id counts as not relevant in every other metric, so a low
    judged@k says those metrics are lower bounds (fill the gaps with
    :func:`rag_eval_adapters.judges.fill_judgments`). A ranking shorter than k is judged on what it holds, so 3
    judged of 3 retrieved is 1.0 at k=10 (as ir_measures; earlier versions of this library divided by k). With
    ``k=None`` every retrieved id counts. The relevance level plays no part. trec_eval: none.

    ir_measures: ``Judged@k``, the same number, with one difference: ties. Like every metric here, the ranking
    is trec_eval's (score descending, equal scores by id *descending*); ir_measures' ``Judged`` orders equal
    scores by id *ascending*, so when ids of equal score straddle rank k the two can count different ids.

    References
    ----------
    S. MacAvaney, L. Soldaini, "One-Shot Labeling for Automatic Relevance Estimation", SIGIR 2023 (judged@k
    as the coverage of the judgments).

    Examples
    --------
    >>> from rag_eval_adapters.metrics import judged
    >>> judged(["a", "x", "b", "y"], {"a": 1, "b": 0}, k=4)
    0.5
    >>> judged(["a", "x"], {"a": 1}, k=10)  # 1 judged of the 2 retrieved
    0.5
    """

    name: ClassVar[str] = "judged"
    aliases: ClassVar[tuple[str, ...]] = ("Judged",)
    ir_measures: ClassVar[str] = "Judged@k"
    function: ClassVar[str] = "judged"
    default: ClassVar[bool] = False

    def _compute(self, judged: Judged) -> np.ndarray:
        return judged.judged(self.k)


def metric_names() -> list[str]:
    """The valid metric names (without cutoff or options)."""
    return sorted(METRICS)


def default_metric_names() -> list[str]:
    """The metrics ``rag-eval`` and the demo compute at every cutoff when none is named."""
    return [name for name, cls in METRICS.items() if cls.default]
