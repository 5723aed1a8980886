"""The per-query functions: worked examples, edge cases and errors, through the public API."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag_eval_adapters import metrics as m
from rag_eval_adapters.measures import (
    DCG,
    F1,
    MRR,
    NDCG,
    AveragePrecision,
    HitRate,
    Precision,
    Recall,
    RPrecision,
    parse_metric,
    parse_metrics,
)

BOUNDED = [m.hit_rate, m.mrr, m.precision, m.recall, m.f1, m.average_precision, m.ndcg]


# ---------------------------------------------------------------- worked examples from the issue
def test_at_k_worked_example():
    grades = [3, 2, 3, 0, 1]
    assert round(m.dcg_at_k(grades, 5), 4) == 6.1487
    assert round(m.idcg_at_k(grades, 5), 4) == 6.3235
    assert round(m.ndcg_at_k(grades, 5), 4) == 0.9724


def test_at_k_matches_the_formula():
    grades = [3, 2, 3, 0, 1]
    expected = sum(g / math.log2(i + 1) for i, g in enumerate(grades, 1))
    assert m.dcg_at_k(grades) == pytest.approx(expected, abs=1e-12)
    assert m.dcg_at_k(grades, 2) == pytest.approx(3 + 2 / math.log2(3), abs=1e-12)
    assert m.dcg_at_k(grades, 2, gain="exponential") == pytest.approx(7 + 3 / math.log2(3), abs=1e-12)
    assert m.ndcg_at_k([0, 0]) == 0.0
    assert m.dcg_at_k([]) == 0.0


# ---------------------------------------------------------------- definitions, hand computed
RANKING = ["a", "x", "b", "y", "c"]
RELEVANT = {"a", "b", "c", "z"}


@pytest.mark.parametrize(
    "fn, kwargs, expected",
    [
        (m.hit_rate, {"k": 1}, 1.0),
        (m.hit_rate, {"k": 1, "granular": True}, 0.25),
        (m.hit_rate, {"granular": True}, 0.75),
        (m.mrr, {}, 1.0),
        (m.mrr, {"granular": True}, (1 + 1 / 3 + 1 / 5) / 3),
        (m.mrr, {"k": 4, "granular": True}, (1 + 1 / 3) / 2),
        (m.precision, {"k": 3}, 2 / 3),
        (m.precision, {"k": 10}, 3 / 10),
        (m.precision, {}, 3 / 5),
        (m.recall, {"k": 3}, 2 / 4),
        (m.recall, {}, 3 / 4),
        (m.f1, {"k": 3}, 2 * (2 / 3) * (1 / 2) / (2 / 3 + 1 / 2)),
        (m.average_precision, {}, (1 / 1 + 2 / 3 + 3 / 5) / 4),
        (m.average_precision, {"k": 3}, (1 / 1 + 2 / 3) / 4),
    ],
)
def test_binary_definitions(fn, kwargs, expected):
    assert fn(RANKING, RELEVANT, **kwargs) == pytest.approx(expected, abs=1e-12)


def test_r_precision():
    # R = 4 relevant; the top 4 hold a and b
    assert m.r_precision(RANKING, RELEVANT) == pytest.approx(2 / 4)
    assert m.r_precision(["a"], ["a", "b"]) == 0.5  # fewer retrieved than R still divides by R


def test_mrr_without_a_relevant_hit_in_k():
    assert m.mrr(RANKING, {"c"}, k=3) == 0.0
    assert m.mrr(RANKING, {"c"}) == pytest.approx(1 / 5)


def test_ndcg_graded_with_unretrieved_judgments():
    expected = {"a": 1, "b": 3, "q": 2, "neg": -2}
    dcg = 1 / math.log2(2) + 3 / math.log2(4)
    idcg = 3 / math.log2(2) + 2 / math.log2(3) + 1 / math.log2(4)
    assert m.dcg(RANKING, expected) == pytest.approx(dcg)
    assert m.idcg(expected) == pytest.approx(idcg)
    assert m.ndcg(RANKING, expected) == pytest.approx(dcg / idcg)
    assert m.idcg(expected, k=1) == 3.0
    assert m.ndcg(["neg"], expected) == 0.0  # negative grades count 0


def test_exponential_gain():
    expected = {"a": 2, "b": 1}
    assert m.dcg(["b", "a"], expected, gain="exponential") == pytest.approx(1 + 3 / math.log2(3))
    assert m.ndcg(["a", "b"], expected, gain="exponential") == 1.0


def test_relevance_level_decides_binary_metrics_only():
    expected = {"a": 1, "b": 2}
    assert m.precision(["a", "b"], expected, relevance_level=2) == 0.5
    assert m.recall(["a"], expected, relevance_level=2) == 0.0
    assert m.hit_rate(["a"], expected, relevance_level=2) == 0.0
    # gains stay the raw grades whatever the level: nDCG of [a (1), b (2)] against the ideal [b, a]
    by_hand = (1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3))
    for level in (-1, 0, 1, 2, 5):
        assert m.ndcg(["a", "b"], expected, relevance_level=level) == pytest.approx(by_hand, abs=1e-12)
        assert NDCG().score(["a", "b"], expected, relevance_level=level) == pytest.approx(by_hand, abs=1e-12)


def test_all_grades_below_level_is_valid_and_scores_zero():
    expected = {"a": 0, "b": 1}
    for fn in (m.hit_rate, m.mrr, m.precision, m.recall, m.f1, m.average_precision):
        assert fn(["a", "b"], expected, relevance_level=2) == 0.0
    assert m.r_precision(["a", "b"], expected, relevance_level=2) == 0.0
    assert m.ndcg(["a"], {"a": 0}) == 0.0


# ---------------------------------------------------------------- semantics of odd inputs
def test_repeated_ids_count_once_at_first_rank():
    repeated = ["a", "a", "a", "b"]
    assert m.precision(repeated, ["a"]) == 0.5  # two distinct ids
    assert m.precision(repeated, ["a", "b"], k=2) == 1.0  # ranking is [a, b]
    assert m.recall(repeated, ["a", "b"], k=2) == 1.0
    assert m.mrr(["x", "x", "a"], ["a"]) == 0.5
    assert m.ndcg(["a", "a"], ["a"]) == 1.0


def test_empty_retrieval_scores_zero():
    for fn in BOUNDED:
        assert fn([], ["a"]) == 0.0
    assert m.dcg([], ["a"]) == 0.0
    assert m.r_precision([], ["a"]) == 0.0


def test_score_mapping_is_ranked_like_trec_eval():
    # ties broken by doc id descending: "b" before "a"
    scores = {"a": 1.0, "b": 1.0, "c": 0.5}
    assert m.mrr(scores, ["a"]) == 0.5
    assert m.mrr(scores, ["b"]) == 1.0


@settings(max_examples=150, deadline=None)
@given(
    ranking=st.lists(st.sampled_from("abcdefghij"), max_size=15),
    grades=st.dictionaries(st.sampled_from("abcdefghijkl"), st.integers(-2, 4), min_size=1),
    k=st.one_of(st.none(), st.integers(1, 12)),
    level=st.integers(-1, 3),
    granular=st.booleans(),
)
def test_scores_always_lie_in_unit_interval(ranking, grades, k, level, granular):
    values = [
        m.hit_rate(ranking, grades, k, granular, relevance_level=level),
        m.mrr(ranking, grades, k, granular, relevance_level=level),
        m.precision(ranking, grades, k, relevance_level=level),
        m.recall(ranking, grades, k, relevance_level=level),
        m.f1(ranking, grades, k, relevance_level=level),
        m.average_precision(ranking, grades, k, relevance_level=level),
        m.r_precision(ranking, grades, relevance_level=level),
        m.ndcg(ranking, grades, k),
        m.ndcg(ranking, grades, k, "exponential"),
    ]
    assert all(0.0 <= v <= 1.0 and not math.isnan(v) for v in values)
    assert m.dcg(ranking, grades, k) <= m.idcg(grades, k) + 1e-12


# ---------------------------------------------------------------- errors name the query and the field
@pytest.mark.parametrize("fn", BOUNDED + [m.dcg])
def test_missing_or_empty_expectation_is_a_value_error(fn):
    with pytest.raises(ValueError, match=r"query 'q7': expected is missing"):
        fn(["a"], None, query_id="q7")
    with pytest.raises(ValueError, match=r"expected is empty"):
        fn(["a"], [])
    with pytest.raises(ValueError, match=r"expected is empty"):
        fn([], {})  # checked before the (valid, empty) retrieval


def test_bad_inputs_name_query_and_field():
    with pytest.raises(ValueError, match=r"query 'q1': retrieved_ids is missing"):
        m.recall(None, ["a"], query_id="q1")
    with pytest.raises(TypeError, match=r"retrieved_ids is a single string"):
        m.recall("abc", ["a"])
    with pytest.raises(TypeError, match=r"expected is a single string"):
        m.recall(["a"], "a")
    with pytest.raises(TypeError, match=r"query 'q2': expected\['a'\] must be a number"):
        m.ndcg(["a"], {"a": "high"}, query_id="q2")
    with pytest.raises(ValueError, match=r"expected\['a'\] must be a finite grade"):
        m.ndcg(["a"], {"a": float("nan")})
    with pytest.raises(ValueError, match=r"retrieved_ids\['a'\] is NaN"):
        m.ndcg({"a": float("nan")}, ["a"])
    with pytest.raises(TypeError, match=r"not a usable document id"):
        m.precision([["a"]], ["a"])
    with pytest.raises(TypeError, match=r"not a usable document id"):
        m.precision([None], ["a"])


@pytest.mark.parametrize("k, error", [(0, ValueError), (-3, ValueError), (2.5, TypeError), (True, TypeError)])
def test_bad_cutoffs(k, error):
    with pytest.raises(error, match="k must be a positive int or None"):
        m.precision(["a"], ["a"], k=k)


def test_bad_gain_and_level():
    with pytest.raises(ValueError, match="gain must be 'linear'"):
        m.ndcg(["a"], ["a"], gain="log")
    with pytest.raises(ValueError, match="relevance_level must be a finite number"):
        m.precision(["a"], ["a"], relevance_level=float("inf"))
    with pytest.raises(TypeError, match="relevance_level must be a finite number"):
        m.precision(["a"], ["a"], relevance_level="2")
    with pytest.raises(TypeError, match="relevances must be a list of grades"):
        m.dcg_at_k("321")


def test_numpy_inputs_are_accepted():
    assert m.precision(np.array(["a", "b"]), {"a"}) == 0.5
    assert m.ndcg_at_k(np.array([1, 0, 2])) == pytest.approx(m.ndcg_at_k([1, 0, 2]))


# ---------------------------------------------------------------- metric objects
@pytest.mark.parametrize(
    "spec, obj, key",
    [
        ("hit_rate@3", HitRate(k=3), "hit_rate@3"),
        ("mrr", MRR(), "mrr"),
        ("mrr_granular@10", MRR(k=10, granular=True), "mrr_granular@10"),
        ("hit_rate_granular", HitRate(granular=True), "hit_rate_granular"),
        ("precision@5", Precision(k=5), "precision@5"),
        ("P@5", Precision(k=5), "precision@5"),
        ("recall@100", Recall(k=100), "recall@100"),
        ("f1@10", F1(k=10), "f1@10"),
        ("f1", F1(), "f1"),
        ("ap", AveragePrecision(), "ap"),
        ("map@100", AveragePrecision(k=100), "ap@100"),
        ("ap@100", AveragePrecision(k=100), "ap@100"),
        ("ndcg", NDCG(), "ndcg"),
        ("nDCG@10", NDCG(k=10), "ndcg@10"),
        ("ndcg_exp@10", NDCG(k=10, gain="exponential"), "ndcg_exp@10"),
        ("dcg@5", DCG(k=5), "dcg@5"),
        ("r_precision", RPrecision(), "r_precision"),
        ("recip_rank", MRR(), "mrr"),
    ],
)
def test_parse_metric(spec, obj, key):
    parsed = parse_metric(spec)
    assert parsed == obj
    assert parsed.key == key
    assert parse_metric(parsed.key) == parsed


def test_unknown_metric_lists_the_valid_ones():
    with pytest.raises(ValueError, match=r"unknown metric 'ndgc@10'.*Valid metrics: ap, dcg, f1, hit_rate"):
        parse_metric("ndgc@10")
    with pytest.raises(ValueError, match="has no option 'granular'"):
        parse_metric("precision_granular")
    with pytest.raises(ValueError, match=r"^metric 'r_precision@3': r_precision takes no cutoff"):
        parse_metric("r_precision@3")
    with pytest.raises(ValueError, match="no metric given"):
        parse_metrics([])
    with pytest.raises(TypeError):
        parse_metric(10)


def test_metric_objects_score_like_the_functions():
    ranking, expected = ["a", "x", "b"], {"a": 1, "b": 2}
    assert NDCG(k=2).score(ranking, expected) == m.ndcg(ranking, expected, 2)
    assert MRR(granular=True)(ranking, expected) == m.mrr(ranking, expected, granular=True)
    assert Precision(k=2).score(ranking, expected, relevance_level=2) == 0.0
    assert repr(NDCG(k=10, gain="exponential")) == "NDCG(k=10, gain='exponential')"
    assert str(HitRate(k=3)) == "hit_rate@3"
    assert parse_metrics(["ndcg@10", NDCG(k=10), "mrr"]) == [NDCG(k=10), MRR()]
    with pytest.raises(ValueError, match=r"^k must be a positive int or None \(the whole list\), got 0$"):
        NDCG(k=0)
    with pytest.raises(ValueError, match=r"^gain must be 'linear' \(g = rel\) or 'exponential'.*got 'log'$"):
        NDCG(gain="log")
    with pytest.raises(TypeError, match=r"^granular must be True or False, got 'no'$"):
        MRR(granular="no")
