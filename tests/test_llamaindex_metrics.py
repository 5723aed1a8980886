"""The LlamaIndex metric classes: LlamaIndex's own unit-test cases, parity with LlamaIndex's installed classes,
each documented difference, graded nDCG, text matching, options and keys."""

from __future__ import annotations

import random
from math import log2

import pytest
from llama_index.core.evaluation.retrieval import metrics as li
from llama_index.core.evaluation.retrieval.metrics_base import BaseRetrievalMetric

from rag_eval_adapters import llamaindex as ours

# --------------------------------------------------------------------------------------------------------------
# Every case of llama-index-core tests/evaluation/test_metrics.py (run-llama/llama_index), transcribed as data:
# (expected_ids, retrieved_ids, option value, expected score). LlamaIndex's tests set the option as an attribute
# after construction; so do we.

HIT_RATE_CASES = [
    (["id1", "id2", "id3"], ["id3", "id1", "id2", "id4"], False, 1.0),
    (["id1", "id2", "id3", "id4"], ["id1", "id5", "id2"], True, 2 / 4),
    (["id1", "id2"], ["id3", "id4"], False, 0.0),
    (["id1", "id2"], ["id2", "id1", "id7"], True, 2 / 2),
]

MRR_CASES = [
    (["id1", "id2", "id3"], ["id3", "id1", "id2", "id4"], False, 1 / 1),
    (["id1", "id2", "id3", "id4"], ["id5", "id1"], False, 1 / 2),
    (["id1", "id2"], ["id3", "id4"], False, 0.0),
    (["id1", "id2"], ["id2", "id1", "id7"], False, 1 / 1),
    (["id1", "id2", "id3"], ["id3", "id1", "id2", "id4"], True, (1 / 1 + 1 / 2 + 1 / 3) / 3),
    (["id1", "id2", "id3", "id4"], ["id1", "id2", "id5"], True, (1 / 1 + 1 / 2) / 2),
    (["id1", "id2"], ["id1", "id7", "id15", "id2"], True, (1 / 1 + 1 / 4) / 2),
]

PRECISION_CASES = [
    (["id1", "id2", "id3"], ["id3", "id1", "id2", "id4"], None, 3 / 4),
    (["id1", "id2", "id3", "id4"], ["id5", "id1"], None, 1 / 2),
    (["id1", "id2"], ["id3", "id4"], None, 0 / 2),
    (["id1", "id2"], ["id2", "id1", "id7"], None, 2 / 3),
    (["id1", "id2", "id3"], ["id3", "id1", "id2", "id4"], None, 3 / 4),
    (["id1", "id2", "id3", "id4"], ["id1", "id2", "id5"], None, 2 / 3),
    (["id1", "id2"], ["id1", "id7", "id15", "id2"], None, 2 / 4),
]

RECALL_CASES = [
    (["id1", "id2", "id3"], ["id3", "id1", "id2", "id4"], None, 3 / 3),
    (["id1", "id2", "id3", "id4"], ["id5", "id1"], None, 1 / 4),
    (["id1", "id2"], ["id3", "id4"], None, 0 / 2),
    (["id1", "id2"], ["id2", "id1", "id7"], None, 2 / 2),
    (["id1", "id2", "id3"], ["id3", "id1", "id2", "id4"], None, 3 / 3),
    (["id1", "id2", "id3", "id4"], ["id1", "id2", "id5"], None, 2 / 4),
    (["id1", "id2"], ["id1", "id7", "id15", "id2"], None, 2 / 2),
]

AP_CASES = [
    (["id1", "id2", "id3"], ["id3", "id1", "id2", "id4"], None, (1 / 1 + 2 / 2 + 3 / 3 + 0) / 3),
    (["id1", "id2", "id3", "id4"], ["id5", "id1"], None, (0 + 1 / 2) / 4),
    (["id1", "id2"], ["id3", "id4"], None, (0 + 0) / 2),
    (["id1", "id2"], ["id2", "id1", "id7"], None, (1 / 1 + 2 / 2 + 0) / 2),
    (["id1", "id2", "id3"], ["id3", "id1", "id2", "id4"], None, (1 / 1 + 2 / 2 + 3 / 3 + 0) / 3),
    (["id1", "id2", "id3", "id4"], ["id1", "id2", "id5"], None, (1 / 1 + 2 / 2 + 0) / 4),
    (["id1", "id2"], ["id1", "id7", "id15", "id2"], None, (1 / 1 + 0 + 0 + 2 / 4) / 2),
]

NDCG_CASES = [
    (["id1", "id2", "id3"], ["id3", "id1", "id2", "id4"], "linear",
     (1 / log2(1 + 1) + 1 / log2(2 + 1) + 1 / log2(3 + 1))
     / (1 / log2(1 + 1) + 1 / log2(2 + 1) + 1 / log2(3 + 1))),
    (["id1", "id2", "id3", "id4"], ["id5", "id1"], "linear",
     (1 / log2(2 + 1))
     / (1 / log2(1 + 1) + 1 / log2(2 + 1) + 1 / log2(3 + 1) + 1 / log2(4 + 1))),
    (["id1", "id2"], ["id3", "id4"], "linear", 0.0),
    (["id1", "id2"], ["id2", "id1", "id7"], "linear",
     (1 / log2(1 + 1) + 1 / log2(2 + 1)) / (1 / log2(1 + 1) + 1 / log2(2 + 1))),
    (["id1", "id2", "id3"], ["id3", "id1", "id2", "id4"], "exponential",
     (1 / log2(1 + 1) + 1 / log2(2 + 1) + 1 / log2(3 + 1))
     / (1 / log2(1 + 1) + 1 / log2(2 + 1) + 1 / log2(3 + 1))),
    (["id1", "id2", "id3", "id4"], ["id1", "id2", "id5"], "exponential",
     (1 / log2(1 + 1) + 1 / log2(2 + 1))
     / (1 / log2(1 + 1) + 1 / log2(2 + 1) + 1 / log2(3 + 1) + 1 / log2(4 + 1))),
    (["id1", "id2"], ["id1", "id7", "id15", "id2"], "exponential",
     (1 / log2(1 + 1) + 1 / log2(4 + 1)) / (1 / log2(1 + 1) + 1 / log2(2 + 1))),
]

# (class name, option attribute or None, cases)
LLAMAINDEX_TESTS = [
    ("HitRate", "use_granular_hit_rate", HIT_RATE_CASES),
    ("MRR", "use_granular_mrr", MRR_CASES),
    ("Precision", None, PRECISION_CASES),
    ("Recall", None, RECALL_CASES),
    ("AveragePrecision", None, AP_CASES),
    ("NDCG", "mode", NDCG_CASES),
]

UPSTREAM_CASES = [
    pytest.param(name, option, *case, id=f"{name}-{i}")
    for name, option, cases in LLAMAINDEX_TESTS
    for i, case in enumerate(cases)
]

# test_exceptions: (expected_ids, retrieved_ids, use_granular) must raise ValueError for every class
EXCEPTION_CASES = [
    (None, ["id3", "id1", "id2", "id4"], False),  # None expected_ids
    (["id1", "id2", "id3"], None, True),  # None retrieved_ids
    ([], [], False),  # empty ids
]

CLASS_NAMES = ["HitRate", "MRR", "Precision", "Recall", "AveragePrecision", "NDCG"]


def test_upstream_cases_are_all_transcribed():
    assert [len(cases) for _, _, cases in LLAMAINDEX_TESTS] == [4, 7, 7, 7, 7, 7]
    assert len(EXCEPTION_CASES) == 3


@pytest.mark.parametrize(("name", "option", "expected_ids", "retrieved_ids", "value", "expected"), UPSTREAM_CASES)
def test_llamaindex_unit_test_cases(name, option, expected_ids, retrieved_ids, value, expected):
    metric = getattr(ours, name)()
    if option is not None:
        setattr(metric, option, value)  # as LlamaIndex's tests do
    result = metric.compute(expected_ids=expected_ids, retrieved_ids=retrieved_ids)
    assert result.score == pytest.approx(expected)
    # and LlamaIndex's own class agrees on the same case (the transcription is faithful)
    theirs = getattr(li, name)()
    if option is not None:
        setattr(theirs, option, value)
    assert theirs.compute(expected_ids=expected_ids, retrieved_ids=retrieved_ids).score == pytest.approx(expected)


@pytest.mark.parametrize(("expected_ids", "retrieved_ids", "use_granular"), EXCEPTION_CASES)
@pytest.mark.parametrize("name", CLASS_NAMES)
def test_llamaindex_exception_cases(name, expected_ids, retrieved_ids, use_granular):
    metric = getattr(ours, name)()
    if name == "HitRate":
        metric.use_granular_hit_rate = use_granular
    if name == "MRR":
        metric.use_granular_mrr = use_granular
    with pytest.raises(ValueError):
        metric.compute(expected_ids=expected_ids, retrieved_ids=retrieved_ids)


# -------------------------------------------------------------------------------------------- parity


def _pairs():
    """Our metric and LlamaIndex's with the same options."""
    return [
        (ours.HitRate(), li.HitRate()),
        (ours.HitRate(use_granular_hit_rate=True), li.HitRate(use_granular_hit_rate=True)),
        (ours.MRR(), li.MRR()),
        (ours.MRR(use_granular_mrr=True), li.MRR(use_granular_mrr=True)),
        (ours.Precision(), li.Precision()),
        (ours.Recall(), li.Recall()),
        (ours.AveragePrecision(), li.AveragePrecision()),
        (ours.NDCG(), li.NDCG()),
        (ours.NDCG(mode="exponential"), li.NDCG(mode="exponential")),
    ]


def test_random_valid_inputs_match_llamaindex_to_1e_12():
    rng = random.Random(20240611)
    pairs = _pairs()
    pool = [f"doc{i}" for i in range(30)]
    for _ in range(600):
        expected = rng.sample(pool, rng.randint(1, 12))
        retrieved = rng.sample(pool, rng.randint(1, 20))
        if rng.random() < 0.2:  # sometimes every retrieved id is relevant, sometimes none
            retrieved = rng.sample(expected, rng.randint(1, len(expected)))
        for mine, theirs in pairs:
            a = mine.compute(expected_ids=expected, retrieved_ids=retrieved).score
            b = theirs.compute(expected_ids=expected, retrieved_ids=retrieved).score
            assert abs(a - b) <= 1e-12, (mine, expected, retrieved, a, b)


def test_classes_are_llamaindex_metrics_with_llamaindex_names():
    names = {"HitRate": "hit_rate", "MRR": "mrr", "Precision": "precision", "Recall": "recall",
             "AveragePrecision": "ap", "NDCG": "ndcg"}
    for cls_name, metric_name in names.items():
        cls = getattr(ours, cls_name)
        assert issubclass(cls, BaseRetrievalMetric)
        assert cls.metric_name == metric_name == getattr(li, cls_name).metric_name
        assert cls().metric_name == metric_name
    assert ours.F1.metric_name == "f1" and issubclass(ours.F1, BaseRetrievalMetric)


def test_positional_call_as_retrieval_evaluator_makes_it():
    # BaseRetrievalEvaluator.aevaluate calls compute(query, expected_ids, retrieved_ids, expected_texts, retrieved_texts)
    result = ours.MRR().compute("q", ["b"], ["a", "b"], None, ["text a", "text b"])
    assert result.score == 0.5
    assert result.metadata == {"key": "mrr", "match": "id"}


# --------------------------------------------------------------------------------------- differences


ALL_DEFAULTS = [ours.HitRate(), ours.HitRate(use_granular_hit_rate=True), ours.MRR(), ours.MRR(use_granular_mrr=True),
                ours.Precision(), ours.Recall(), ours.F1(), ours.AveragePrecision(), ours.NDCG(),
                ours.NDCG(mode="exponential")]


@pytest.mark.parametrize("metric", ALL_DEFAULTS, ids=lambda m: m.key)
def test_empty_retrieval_scores_zero_where_llamaindex_raises(metric):
    assert metric.compute(query="q", expected_ids=["a"], retrieved_ids=[]).score == 0.0
    assert metric.compute(query="q", expected_texts=["alpha"], retrieved_texts=[]).score == 0.0


@pytest.mark.parametrize("name", CLASS_NAMES)
def test_llamaindex_raises_on_empty_retrieval(name):
    with pytest.raises(ValueError):
        getattr(li, name)().compute(expected_ids=["a"], retrieved_ids=[])


@pytest.mark.parametrize(
    ("mine", "theirs", "score"),
    [
        (ours.HitRate(use_granular_hit_rate=True), li.HitRate(use_granular_hit_rate=True), 1.0),
        (ours.MRR(use_granular_mrr=True), li.MRR(use_granular_mrr=True), 1.0),
        (ours.AveragePrecision(), li.AveragePrecision(), 1.0),
        (ours.NDCG(), li.NDCG(), 1.0),
    ],
    ids=lambda v: getattr(v, "key", None) or str(v),
)
def test_repeated_retrieved_ids_count_once(mine, theirs, score):
    expected, retrieved = ["a"], ["a", "a", "a", "x"]
    assert mine.compute(expected_ids=expected, retrieved_ids=retrieved).score == pytest.approx(score)
    llama = theirs.compute(expected_ids=expected, retrieved_ids=retrieved).score
    assert llama != pytest.approx(score)  # LlamaIndex counts the repeats: granular hit rate 3.0, AP 3.0, ...


@pytest.mark.parametrize("metric", ALL_DEFAULTS, ids=lambda m: m.key)
def test_no_score_leaves_unit_interval_with_repeats(metric):
    rng = random.Random(7)
    for _ in range(200):
        expected = rng.sample("abcdefgh", rng.randint(1, 4))
        retrieved = [rng.choice("abcdefghij") for _ in range(rng.randint(0, 12))]  # repeats galore
        score = metric.compute(expected_ids=expected, retrieved_ids=retrieved).score
        assert 0.0 <= score <= 1.0


@pytest.mark.parametrize(
    ("metric", "expected_ids", "retrieved_ids", "score"),
    [
        (ours.Precision(top_k=5), ["a", "b"], ["a", "x"], 1 / 5),  # precision@k divides by k
        (ours.Precision(top_k=2), ["a", "b"], ["x", "a", "b"], 1 / 2),
        (ours.Recall(top_k=2), ["a", "b"], ["x", "a", "b"], 1 / 2),
        (ours.HitRate(top_k=1), ["a"], ["x", "a"], 0.0),
        (ours.HitRate(top_k=2), ["a"], ["x", "a"], 1.0),
        (ours.MRR(top_k=2), ["a"], ["x", "y", "a"], 0.0),
        (ours.MRR(top_k=3), ["a"], ["x", "y", "a"], 1 / 3),
        (ours.AveragePrecision(top_k=2), ["a", "b"], ["a", "x", "b"], (1 / 1) / 2),
        (ours.F1(top_k=2), ["a", "b"], ["a", "x", "b"], 2 * (1 / 2) * (1 / 2) / (1 / 2 + 1 / 2)),
        # nDCG@2: ideal of the 3 expected ids cut at 2
        (ours.NDCG(top_k=2), ["a", "b", "c"], ["x", "a", "b"], (1 / log2(3)) / (1 + 1 / log2(3))),
        # top_k cuts after repeats are dropped: [a, a, x] -> [a, x]
        (ours.Precision(top_k=2), ["a"], ["a", "a", "x"], 1 / 2),
    ],
    ids=lambda v: getattr(v, "key", None) if hasattr(v, "key") else None,
)
def test_top_k_cuts_the_list(metric, expected_ids, retrieved_ids, score):
    assert metric.compute(expected_ids=expected_ids, retrieved_ids=retrieved_ids).score == pytest.approx(score)


@pytest.mark.parametrize("metric", ALL_DEFAULTS, ids=lambda m: m.key)
@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"retrieved_ids": ["a"]}, "no expectation"),
        ({"expected_ids": [], "retrieved_ids": ["a"]}, "no expectation"),
        ({"expected_ids": [], "expected_texts": [], "retrieved_ids": ["a"]}, "no expectation"),
        ({"expected_ids": ["a"]}, "retrieved_ids is missing"),
        ({"expected_ids": ["a"], "retrieved_ids": None}, "retrieved_ids is missing"),
        ({"expected_texts": ["alpha"], "retrieved_ids": ["a"]}, "retrieved_texts is missing"),
    ],
)
def test_missing_expectation_or_retrieval_raises_value_error_naming_query_and_field(metric, kwargs, fragment):
    with pytest.raises(ValueError) as info:
        metric.compute(query="where is paris?", **kwargs)
    assert fragment in str(info.value)
    assert "query 'where is paris?'" in str(info.value)


def test_wrong_types_and_unknown_keywords_raise():
    with pytest.raises(TypeError, match="expected_ids is a single string"):
        ours.HitRate().compute(query="q", expected_ids="id1", retrieved_ids=["id1"])
    with pytest.raises(TypeError, match="retrieved_ids is a single string"):
        ours.HitRate().compute(query="q", expected_ids=["id1"], retrieved_ids="id1")
    with pytest.raises(TypeError, match="unexpected keyword arguments \\['expected_relevances'\\]"):
        ours.NDCG().compute(expected_ids=["a"], retrieved_ids=["a"], expected_relevances={"a": 2})
    with pytest.raises(TypeError, match="expected_relevance must be a mapping"):
        ours.NDCG().compute(expected_ids=["a"], retrieved_ids=["a"], expected_relevance=[("a", 2)])


# ------------------------------------------------------------------------------------------- options


def test_invalid_options_are_rejected_in_constructor_and_assignment():
    with pytest.raises(ValueError, match="top_k must be a positive int"):
        ours.HitRate(top_k=0)
    metric = ours.HitRate()
    with pytest.raises(ValueError, match="top_k must be a positive int"):
        metric.top_k = -1
    with pytest.raises(ValueError):
        ours.NDCG(mode="quadratic")
    with pytest.raises(ValueError):
        ours.HitRate(use_granular=True)  # a typo is an error, not a silently ignored option
    with pytest.raises(ValueError):
        ours.Recall(match="fuzzy")


def test_options_set_as_attributes_change_score_and_key():
    metric = ours.HitRate()
    expected, retrieved = ["a", "b"], ["x", "a"]
    assert (metric.key, metric.compute(expected_ids=expected, retrieved_ids=retrieved).score) == ("hit_rate", 1.0)
    metric.top_k = 1
    assert (metric.key, metric.compute(expected_ids=expected, retrieved_ids=retrieved).score) == ("hit_rate@1", 0.0)
    metric.top_k = None
    metric.use_granular_hit_rate = True
    assert (metric.key, metric.compute(expected_ids=expected, retrieved_ids=retrieved).score) == (
        "hit_rate_granular", 0.5)


@pytest.mark.parametrize(
    ("metric", "key"),
    [
        (ours.HitRate(), "hit_rate"),
        (ours.HitRate(top_k=3), "hit_rate@3"),
        (ours.HitRate(use_granular_hit_rate=True, top_k=5), "hit_rate_granular@5"),
        (ours.MRR(use_granular_mrr=True), "mrr_granular"),
        (ours.Precision(top_k=10), "precision@10"),
        (ours.Recall(), "recall"),
        (ours.F1(top_k=4), "f1@4"),
        (ours.AveragePrecision(top_k=100), "ap@100"),
        (ours.NDCG(), "ndcg"),
        (ours.NDCG(mode="exponential", top_k=10), "ndcg_exp@10"),
        (ours.HitRate(relevance_level=2), "hit_rate_rel2"),
        (ours.NDCG(top_k=5, relevance_level=0.5), "ndcg_rel0.5@5"),
        (ours.Recall(match="text", top_k=5), "recall_text@5"),
        (ours.Recall(match="id"), "recall_id"),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_keys_say_the_options(metric, key):
    assert metric.key == key == metric.metric_name
    assert metric.compute(expected_ids=["a"], retrieved_ids=["a"], expected_texts=["a"],
                          retrieved_texts=["a"]).metadata["key"] == key


def test_key_of_custom_matcher_and_core_agreement():
    def fuzzy(retrieved: str, expected: str) -> bool:
        return True

    assert ours.Recall(matcher=fuzzy, top_k=3).key == "recall_fuzzy@3"
    assert ours.Recall(matcher=lambda r, e: True).key == "recall_custom"
    # with core options only, the key is the core metric's key (the one LangChain feedback uses)
    from rag_eval_adapters.measures import parse_metric

    for metric in ours.metrics_from_names(["hit_rate@3", "mrr_granular", "ndcg_exp@10", "ap@100", "recall@5"]):
        assert metric.key == metric.measure.key == parse_metric(metric.key).key


def test_repr_shows_non_default_options():
    assert repr(ours.HitRate()) == "HitRate()"
    assert repr(ours.NDCG(top_k=10, mode="exponential")) == "NDCG(top_k=10, mode='exponential')"


# ------------------------------------------------------------------------------------ metrics_from_names


def test_metrics_from_names():
    metrics = ours.metrics_from_names(["hit_rate@3", "ndcg@10", "mrr"])
    assert [type(m) for m in metrics] == [ours.HitRate, ours.NDCG, ours.MRR]
    assert [m.key for m in metrics] == ["hit_rate@3", "ndcg@10", "mrr"]
    assert metrics[0].top_k == 3 and metrics[1].top_k == 10 and metrics[2].top_k is None
    more = ours.metrics_from_names(["mrr_granular@5", "hit_rate_granular", "ndcg_exp", "map", "p@2", "recall"])
    assert repr(more) == ("[MRR(top_k=5, use_granular_mrr=True), HitRate(use_granular_hit_rate=True), "
                          "NDCG(mode='exponential'), AveragePrecision(), Precision(top_k=2), Recall()]")
    assert ours.metrics_from_names("ndcg@5", relevance_level=2)[0].relevance_level == 2
    from rag_eval_adapters.measures import F1

    assert ours.metrics_from_names([F1(k=3)]) == [ours.F1(top_k=3)]  # core metric objects are accepted


def test_metrics_from_names_f1():
    assert ours.metrics_from_names(["f1", "f1@5"]) == [ours.F1(), ours.F1(top_k=5)]


@pytest.mark.parametrize(("names", "fragment"), [
    (["hits@3"], "unknown metric"),
    ([], "no metric given"),
])
def test_metrics_from_names_rejects_what_it_cannot_build(names, fragment):
    with pytest.raises(ValueError, match=fragment):
        ours.metrics_from_names(names)


# ---------------------------------------------------------------------------------------- graded nDCG


def test_graded_ndcg_linear_and_exponential():
    grades = {"a": 3, "b": 1}
    linear = ours.NDCG().compute(expected_ids=["a", "b"], retrieved_ids=["b", "a", "x"], expected_relevance=grades)
    assert linear.score == pytest.approx((1 + 3 / log2(3)) / (3 + 1 / log2(3)), abs=1e-12)
    exponential = ours.NDCG(mode="exponential").compute(
        expected_ids=["a", "b"], retrieved_ids=["b", "a", "x"], expected_relevance=grades)
    assert exponential.score == pytest.approx((1 + 7 / log2(3)) / (7 + 1 / log2(3)), abs=1e-12)
    best = ours.NDCG().compute(expected_ids=["a", "b"], retrieved_ids=["a", "b"], expected_relevance=grades)
    assert best.score == pytest.approx(1.0, abs=1e-12)


def test_graded_ndcg_at_k_and_grades_alone_are_an_expectation():
    grades = {"a": 2, "b": 1, "c": 0}
    score = ours.NDCG(top_k=1).compute(retrieved_ids=["b", "a"], expected_relevance=grades).score
    assert score == pytest.approx(1 / 2, abs=1e-12)  # dcg@1 = 1, idcg@1 = 2


def test_expected_ids_without_grade_get_grade_one():
    score = ours.NDCG().compute(expected_ids=["a", "b"], retrieved_ids=["b", "a"], expected_relevance={"a": 2}).score
    assert score == pytest.approx((1 + 2 / log2(3)) / (2 + 1 / log2(3)), abs=1e-12)


def test_relevance_level_applies_to_binary_metrics():
    grades = {"a": 2, "b": 1}
    hit = ours.HitRate(relevance_level=2)
    assert hit.compute(retrieved_ids=["b"], expected_relevance=grades).score == 0.0
    assert hit.compute(retrieved_ids=["b", "a"], expected_relevance=grades).score == 1.0
    assert ours.MRR(relevance_level=2).compute(retrieved_ids=["b", "a"], expected_relevance=grades).score == 0.5
    assert ours.Recall().compute(retrieved_ids=["b"], expected_relevance=grades).score == 0.5
    assert ours.Recall(relevance_level=2).compute(retrieved_ids=["b"], expected_relevance=grades).score == 0.0


# --------------------------------------------------------------------------------------- text matching

CHUNKS = [
    "Berlin is the capital of Germany.",
    "PARIS is the capital\n of   France.",
    "The Seine flows through Paris.",
]


def test_text_matching_when_expected_ids_are_empty():
    expected_texts = ["Paris is the capital of France.", "Rome is the capital of Italy."]
    kwargs = dict(query="capitals", expected_ids=[], retrieved_ids=["n1", "n2", "n3"],
                  expected_texts=expected_texts, retrieved_texts=CHUNKS)
    assert ours.HitRate().compute(**kwargs).score == 1.0
    assert ours.MRR().compute(**kwargs).score == 1 / 2
    assert ours.Precision().compute(**kwargs).score == pytest.approx(1 / 3)
    assert ours.Recall().compute(**kwargs).score == 1 / 2  # expected texts matched / expected texts
    assert ours.HitRate(use_granular_hit_rate=True).compute(**kwargs).score == 1 / 2
    assert ours.F1().compute(**kwargs).score == pytest.approx(2 * (1 / 3) * (1 / 2) / (1 / 3 + 1 / 2))
    assert ours.AveragePrecision().compute(**kwargs).score == pytest.approx((1 / 2) / 2)
    assert ours.NDCG().compute(**kwargs).score == pytest.approx((1 / log2(3)) / (1 + 1 / log2(3)))
    assert ours.HitRate().compute(**kwargs).metadata["match"] == "text"


def test_text_matching_equals_id_scoring_when_texts_match_one_to_one():
    expected_texts = ["alpha one", "beta two", "gamma three"]
    ids = {"alpha one": "a", "beta two": "b", "gamma three": "c", "delta four": "d", "eps five": "e"}
    rng = random.Random(3)
    for _ in range(100):
        retrieved_texts = rng.sample(list(ids), rng.randint(1, 5))
        for metric in ALL_DEFAULTS:
            by_text = metric.compute(expected_texts=expected_texts, retrieved_texts=retrieved_texts).score
            by_id = metric.compute(expected_ids=[ids[t] for t in expected_texts],
                                   retrieved_ids=[ids[t] for t in retrieved_texts]).score
            assert by_text == pytest.approx(by_id, abs=1e-12), (metric, retrieved_texts)


def test_text_matching_forced_with_match_text_even_when_ids_are_given():
    kwargs = dict(expected_ids=["n9"], retrieved_ids=["n1", "n2"], expected_texts=["capital of germany"],
                  retrieved_texts=CHUNKS[:2])
    assert ours.HitRate().compute(**kwargs).score == 0.0  # ids: n9 was not retrieved
    assert ours.HitRate(match="text").compute(**kwargs).score == 1.0
    assert ours.HitRate().compute(**kwargs, match="text").score == 1.0
    with pytest.raises(ValueError, match="expected_ids is missing or empty, but match='id'"):
        ours.HitRate(match="id").compute(expected_texts=["x"], retrieved_texts=["x"])
    with pytest.raises(ValueError, match="match='text' needs the relevant texts"):
        ours.HitRate(match="text").compute(expected_ids=["a"], retrieved_ids=["a"])


def test_text_matching_contained_in_expected_and_chunks_of_one_section():
    section = "Paris is the capital of France. The Seine flows through Paris. It has many museums."
    chunks = ["Paris is the capital of France.", "The Seine flows through Paris.", "Berlin is in Germany."]
    kwargs = dict(expected_texts=[section], retrieved_texts=chunks)
    assert ours.Precision().compute(**kwargs).score == pytest.approx(2 / 3)
    assert ours.Recall().compute(**kwargs).score == 1.0
    for metric in ALL_DEFAULTS:
        assert 0.0 <= metric.compute(**kwargs).score <= 1.0
    assert ours.AveragePrecision().compute(**kwargs).score == 1.0
    assert ours.NDCG().compute(**kwargs).score == pytest.approx(1.0, abs=1e-12)


def test_text_matching_one_chunk_holding_two_expected_texts_recalls_both():
    score = ours.Recall().compute(expected_texts=["paris is in france", "rome is in italy"],
                                  retrieved_texts=["Paris is in France; Rome is in Italy."]).score
    assert score == 1.0


def test_text_matching_top_k_and_repeated_texts():
    texts = ["Berlin.", "Berlin.", "Paris is the capital of France.", "Rome."]
    expected = ["capital of france"]
    assert ours.HitRate(top_k=2).compute(expected_texts=expected, retrieved_texts=texts).score == 1.0  # dup dropped
    assert ours.MRR().compute(expected_texts=expected, retrieved_texts=texts).score == 1 / 2
    assert ours.Precision(top_k=4).compute(expected_texts=expected, retrieved_texts=texts).score == 1 / 4
    assert ours.Recall(top_k=1).compute(expected_texts=expected, retrieved_texts=texts).score == 0.0


def test_text_matching_pluggable_matcher_and_graded_texts():
    def same_city(retrieved: str, expected: str) -> bool:
        return retrieved.split()[0].lower() == expected.split()[0].lower()

    kwargs = dict(expected_texts=["paris (any fact)"], retrieved_texts=["Berlin is big", "Paris has museums"])
    assert ours.HitRate().compute(**kwargs).score == 0.0
    assert ours.HitRate(matcher=same_city).compute(**kwargs).score == 1.0
    graded = ours.NDCG(mode="exponential").compute(
        expected_texts=["capital of France", "Seine"], retrieved_texts=CHUNKS,
        expected_relevance={"capital of France": 2})
    # ranks 2 (grade 2) and 3 (grade 1); ideal 2, 1
    assert graded.score == pytest.approx((3 / log2(3) + 1 / log2(4)) / (3 + 1 / log2(3)), abs=1e-12)
