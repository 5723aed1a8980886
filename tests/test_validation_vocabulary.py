"""One validation vocabulary: one bad value gets the same exception type and message through every entry point
(the per-query functions, the metric objects, evaluate, evaluate_columns, the LlamaIndex adapter, the LangChain
evaluators and rag-eval); options are booleans; every entry point accepts the relevance levels trec_eval does."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from cli_support import run_cli, write_trec_qrels, write_trec_run

from rag_eval_adapters import MRR, NDCG, Precision, evaluate, evaluate_columns
from rag_eval_adapters import llamaindex as li
from rag_eval_adapters import metrics as m
from rag_eval_adapters.langchain import MRREvaluator, NDCGEvaluator, PrecisionEvaluator

NAN = float("nan")
QRELS = {"q1": {"d1": 1, "d2": 2}, "q2": {"d5": 1}}
RUN = {"q1": ["d3", "d1", "d2"], "q2": ["d5"]}
COLUMNS_QRELS = {"query_id": ["q1", "q1", "q2"], "doc_id": ["d1", "d2", "d5"], "grade": [1, 2, 1]}
COLUMNS_RUN = {"query_id": ["q1", "q1", "q1", "q2"], "doc_id": ["d3", "d1", "d2", "d5"], "rank": [1, 2, 3, 1]}


def _raised(call):
    try:
        call()
    except (ValueError, TypeError) as exc:
        return exc
    raise AssertionError(f"{call} accepted the bad value")


def assert_same_error(calls, kind, tail):
    """Every call raises exactly ``kind`` (not a subclass such as pydantic's ValidationError) ending in ``tail``."""
    for name, call in calls.items():
        exc = _raised(call)
        assert type(exc) is kind, (name, type(exc), exc)
        assert str(exc).endswith(tail), (name, str(exc))


def _llama(metric, **kwargs):
    return lambda: metric.compute(query="q1", expected_ids=["d1"], retrieved_ids=["d1"], **kwargs)


def _langchain(evaluator_factory, reference=("d1",)):
    return lambda: evaluator_factory()(outputs={"documents": ["d1"]}, reference_outputs={"expected_ids": reference})


def test_relevance_level_inf_is_the_same_value_error_everywhere(tmp_path):
    inf = float("inf")
    assert_same_error({
        "function": lambda: m.precision(["d1"], ["d1"], relevance_level=inf),
        "metric": lambda: Precision().score(["d1"], ["d1"], relevance_level=inf),
        "evaluate": lambda: evaluate(QRELS, RUN, ["precision"], relevance_level=inf),
        "evaluate_columns": lambda: evaluate_columns(COLUMNS_QRELS, COLUMNS_RUN, ["precision"], relevance_level=inf),
        "llamaindex": lambda: li.Precision(relevance_level=inf),
        "llamaindex names": lambda: li.metrics_from_names(["precision"], relevance_level=inf),
        "langchain": lambda: PrecisionEvaluator(relevance_level=inf),
    }, ValueError, "relevance_level must be a finite number (a grade threshold), got inf")
    qrels, run = write_trec_qrels(tmp_path / "q.qrels", QRELS), write_trec_run(tmp_path / "r.run", RUN)
    code, _, err = run_cli("evaluate", "--qrels", qrels, "--run", run, "--relevance-level", "inf")
    assert code == 2 and err == "rag-eval: error: --relevance-level must be a finite number (a grade threshold), got inf\n"


def test_relevance_level_of_the_wrong_type_is_the_same_type_error_everywhere():
    assert_same_error({
        "function": lambda: m.precision(["d1"], ["d1"], relevance_level="2"),
        "evaluate": lambda: evaluate(QRELS, RUN, ["precision"], relevance_level="2"),
        "llamaindex": lambda: li.Precision(relevance_level="2"),
        "langchain": lambda: PrecisionEvaluator(relevance_level="2"),
    }, TypeError, "relevance_level must be a finite number (a grade threshold), got '2'")


def test_bad_cutoff_is_the_same_value_error_everywhere(tmp_path):
    assert_same_error({
        "function": lambda: m.precision(["d1"], ["d1"], 0),
        "metric": lambda: Precision(k=0),
        "evaluate": lambda: evaluate(QRELS, RUN, ["precision@0"]),
        "evaluate_columns": lambda: evaluate_columns(COLUMNS_QRELS, COLUMNS_RUN, ["precision@0"]),
        "llamaindex": lambda: li.Precision(top_k=0),
        "llamaindex names": lambda: li.metrics_from_names(["precision@0"]),
        "langchain": lambda: PrecisionEvaluator(0),
    }, ValueError, "k must be a positive int or None (the whole list), got 0")
    qrels, run = write_trec_qrels(tmp_path / "q.qrels", QRELS), write_trec_run(tmp_path / "r.run", RUN)
    code, _, err = run_cli("evaluate", "--qrels", qrels, "--run", run, "-m", "precision@0")
    assert code == 2 and err.endswith("k must be a positive int or None (the whole list), got 0\n")


def test_bad_gain_is_the_same_value_error_everywhere():
    assert_same_error({
        "function": lambda: m.ndcg(["d1"], ["d1"], gain="log"),
        "metric": lambda: NDCG(gain="log"),
        "llamaindex": lambda: li.NDCG(mode="log"),
        "langchain": lambda: NDCGEvaluator(gain="log"),
    }, ValueError, "must be 'linear' (g = rel) or 'exponential' (g = 2**rel - 1), got 'log'")


def test_nan_grade_is_the_same_value_error_by_id_and_by_text():
    tail = "must be a finite grade, got nan"
    assert_same_error({
        "function": lambda: m.ndcg(["d1"], {"d1": NAN}),
        "metric": lambda: NDCG().score(["d1"], {"d1": NAN}),
        "llamaindex by id": _llama(li.NDCG(), expected_relevance={"d1": NAN}),
        "llamaindex by text": lambda: li.NDCG().compute(
            query="q1", expected_texts=["alpha"], retrieved_texts=["alpha"], expected_relevance={"alpha": NAN}),
        "langchain": _langchain(NDCGEvaluator, reference={"d1": NAN}),
    }, ValueError, tail)
    report = evaluate({"q1": {"d1": NAN}, "q2": {"d5": 1}}, RUN, ["ndcg"])
    assert report.errors["q1"].endswith(tail) and report.query_ids == ["q2"]


# ------------------------------------------------------------------------------ issue 10, item 8: options are booleans
def test_options_are_booleans_not_truthy_values():
    assert_same_error({
        "function": lambda: m.mrr(["d1"], ["d1"], granular="no"),
        "metric": lambda: MRR(granular="no"),
        "langchain": lambda: MRREvaluator(granular="no"),
    }, TypeError, "granular must be True or False, got 'no'")
    with pytest.raises(TypeError, match=r"^use_granular_mrr must be True or False, got 'no'$"):
        li.MRR(use_granular_mrr="no")
    with pytest.raises(TypeError, match=r"^granular must be True or False, got 1$"):
        m.hit_rate(["d1"], ["d1"], granular=1)
    # real booleans, numpy's included, still work
    assert m.mrr(["x", "d1", "d2"], ["d1", "d2"], granular=np.bool_(True)) == pytest.approx((1 / 2 + 1 / 3) / 2)


# ------------------------------------------------------------------------------ issue 10, item 9: levels <= 0
LOW = {"q": {"judged0": 0, "rel": 1}}
LOW_RUN = {"q": ["unjudged", "judged0", "rel"]}


@pytest.mark.parametrize("level", [0, -1])
def test_levels_at_or_below_zero_follow_trec_eval_everywhere(tmp_path, level):
    # a judged grade-0 document is relevant (0 >= level); an unjudged one never is
    expected = {"precision@1": 0.0, "precision@2": 0.5, "mrr": 0.5, "recall": 1.0, "r_precision": 0.5}
    names = list(expected)
    assert m.mrr(LOW_RUN["q"], LOW["q"], relevance_level=level) == 0.5
    assert m.precision(LOW_RUN["q"], LOW["q"], 1, relevance_level=level) == 0.0
    assert evaluate(LOW, LOW_RUN, names, relevance_level=level).mean == pytest.approx(expected)
    columns = evaluate_columns(
        {"query_id": ["q", "q"], "doc_id": ["judged0", "rel"], "grade": [0, 1]},
        {"query_id": ["q"] * 3, "doc_id": LOW_RUN["q"], "rank": [1, 2, 3]}, names, relevance_level=level)
    assert columns.mean == pytest.approx(expected)
    [llama] = li.metrics_from_names(["mrr"], relevance_level=level)
    assert llama.compute(expected_ids=["rel"], expected_relevance=LOW["q"], retrieved_ids=LOW_RUN["q"]).score == 0.5
    result = MRREvaluator(relevance_level=level)(outputs={"documents": LOW_RUN["q"]},
                                                 reference_outputs={"expected_ids": LOW["q"]})
    assert result["score"] == 0.5
    qrels, run = write_trec_qrels(tmp_path / "q.qrels", LOW), write_trec_run(tmp_path / "r.run", LOW_RUN)
    code, out, err = run_cli("evaluate", "--qrels", qrels, "--run", run, "--relevance-level", str(level),
                             "-m", ",".join(names), "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["mean"] == pytest.approx(expected)
    assert not any(math.isnan(v) for v in data["mean"].values())
