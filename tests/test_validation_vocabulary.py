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


# ------------------------------------------------------------------------------ issue 20, item 5: counts, fractions,
# seeds and positive amounts: one check each (rag_eval_adapters.validation), one message at every entry point
PAIRED_A, PAIRED_B = [0.1, 0.4, 0.3, 0.9], [0.2, 0.5, 0.2, 1.0]
PER_QUERY = {"A": {f"q{i}": {"mrr": a} for i, a in enumerate(PAIRED_A)},
             "B": {f"q{i}": {"mrr": b} for i, b in enumerate(PAIRED_B)}}


def _resampling_entry_points(**bad):
    """The public calls that take the resampling options: Report.by, paired_test, compare_per_query and
    compare_reports."""
    from rag_eval_adapters.compare import compare_per_query, compare_reports, paired_test

    report = evaluate(QRELS, RUN, ["mrr"])
    entry_points = {
        "paired_test": lambda: paired_test(PAIRED_A, PAIRED_B, **bad),
        "compare_per_query": lambda: compare_per_query(PER_QUERY, ["mrr"], **bad),
        "compare_reports": lambda: compare_reports({"A": report, "B": report}, **bad),
    }
    if "n_permutations" not in bad:
        entry_points["Report.by"] = lambda: report.by(lambda q: "all queries", **bad)
    return entry_points


@pytest.mark.parametrize("option", ["n_permutations", "n_bootstrap"])
@pytest.mark.parametrize("bad, kind, shown", [
    (True, TypeError, "True"), (False, TypeError, "False"), (2.0, TypeError, "2.0"), ("10", TypeError, "'10'"),
    (0, ValueError, "0"), (-5, ValueError, "-5"),
])
def test_a_resample_count_is_a_positive_integer_and_never_a_bool(option, bad, kind, shown):
    assert_same_error(_resampling_entry_points(**{option: bad}), kind, f"{option} must be a positive integer, got {shown}")


@pytest.mark.parametrize("bad, kind", [
    (0, ValueError), (1, ValueError), (1.5, ValueError), (-0.1, ValueError), (NAN, ValueError),
    (True, TypeError), ("0.95", TypeError), (None, TypeError),
])
def test_confidence_is_a_number_strictly_between_0_and_1_everywhere(tmp_path, bad, kind):
    assert_same_error(_resampling_entry_points(confidence=bad), kind,
                      f"confidence must be a number strictly between 0 and 1, got {bad!r}")


def test_the_cli_gives_the_same_messages_as_the_python_api(tmp_path):
    qrels, run = write_trec_qrels(tmp_path / "q.qrels", QRELS), write_trec_run(tmp_path / "r.run", RUN)
    for option, value, tail in [
        ("--confidence", "1.5", "--confidence must be a number strictly between 0 and 1, got 1.5"),
        ("--permutations", "0", "--permutations must be a positive integer, got 0"),
        ("--bootstrap", "-2", "--bootstrap must be a positive integer, got -2"),
    ]:
        code, _, err = run_cli("compare", "--qrels", qrels, "--run", run, "--run", run, option, value)
        assert code == 2 and err == f"rag-eval: error: {tail}\n", (option, err)
    code, _, err = run_cli("demo", "--output", tmp_path / "d", "--permutations", "0")
    assert code == 2 and err == "rag-eval: error: --permutations must be a positive integer, got 0\n"


@pytest.mark.parametrize("bad, kind", [(-1, ValueError), (True, TypeError), (1.5, TypeError), ("7", TypeError)])
def test_a_bad_seed_gets_our_message_not_numpys(bad, kind):
    assert_same_error(_resampling_entry_points(seed=bad), kind,
                      f"seed must be None or a non-negative integer, got {bad!r}")


def test_good_resampling_options_are_accepted_as_numpy_integers_and_give_the_same_result():
    from rag_eval_adapters.compare import paired_test

    plain = paired_test(PAIRED_A, PAIRED_B, n_permutations=50, n_bootstrap=60, seed=3, confidence=0.9)
    numpy = paired_test(PAIRED_A, PAIRED_B, n_permutations=np.int64(50), n_bootstrap=np.int32(60),
                        seed=np.uint8(3), confidence=np.float32(0.9).item())
    assert (plain.ci_low, plain.ci_high, plain.p_value) == (numpy.ci_low, numpy.ci_high, numpy.p_value)
    assert type(numpy.n_permutations) is int and type(numpy.n_bootstrap) is int


@pytest.mark.parametrize("bad, kind", [(True, TypeError), (0, ValueError), (2.5, TypeError)])
def test_max_concurrency_is_the_same_count_for_the_cohere_reranker_and_the_async_batch(bad, kind):
    import asyncio

    from rag_eval_adapters.modelcalls import CallLimiter
    from rag_eval_adapters.rerank import CohereReranker, LexicalScorer, arerank_relevancy_batch

    assert_same_error({
        "CohereReranker": lambda: CohereReranker(api_key="unused", max_concurrency=bad),
        "arerank_relevancy_batch": lambda: asyncio.run(
            arerank_relevancy_batch({"q": ("a b", ["a", "b"])}, LexicalScorer(), max_concurrency=bad)),
        "CallLimiter": lambda: CallLimiter(max_concurrency=bad),
    }, kind, f"max_concurrency must be a positive integer, got {bad!r}")


@pytest.mark.parametrize("bad, kind", [(True, TypeError), (0, ValueError), (-3, ValueError), ("4", TypeError)])
def test_shards_and_batch_sizes_are_counts_with_one_message(bad, kind):
    from rag_eval_adapters.answers import OpenAIEmbedder
    from rag_eval_adapters.distributed import shard_of

    assert_same_error({"shard_of": lambda: shard_of(["q1", "q2"], bad)}, kind,
                      f"shards must be a positive integer, got {bad!r}")
    assert_same_error({
        "batch_size": lambda: OpenAIEmbedder(client=object(), batch_size=bad),
        "dimensions": lambda: OpenAIEmbedder(client=object(), dimensions=bad),
    }, kind, f"must be a positive integer, got {bad!r}")


@pytest.mark.parametrize("bad, kind", [(0, ValueError), (-1.0, ValueError), (float("inf"), ValueError),
                                       (NAN, ValueError), (True, TypeError), ("5", TypeError)])
def test_a_timeout_is_a_positive_finite_number_of_seconds(bad, kind):
    from rag_eval_adapters.rerank import CohereReranker
    from rag_eval_adapters.testsets import OpenAICompatibleLLM

    assert_same_error({
        "CohereReranker": lambda: CohereReranker(api_key="unused", timeout=bad),
        "OpenAICompatibleLLM": lambda: OpenAICompatibleLLM("gpt-4o-mini", api_key="unused", timeout=bad),
    }, kind, f"timeout must be a positive finite number of seconds, got {bad!r}")


@pytest.mark.parametrize("bad, tail", [
    ("rome", "expected_ids is a single string; pass a list of texts, e.g. ['rome']"),
    ({"rome": 1}, "expected_ids must be a list of texts, got dict"),
    (["rome", 7], "expected_ids[1] must be a str, got int: 7"),
])
def test_a_list_of_texts_has_one_check_for_data_set_rows_given_as_objects_or_as_a_jsonl_file(tmp_path, bad, tail):
    pytest.importorskip("llama_index.core")
    from llama_index.core.evaluation import RetrieverEvaluator
    from llama_index.core.retrievers import BaseRetriever
    from llama_index.core.schema import NodeWithScore, TextNode

    class OneNode(BaseRetriever):
        def _retrieve(self, query_bundle):
            return [NodeWithScore(node=TextNode(id_="rome", text="Rome"), score=1.0)]

    evaluator = RetrieverEvaluator(metrics=[li.HitRate()], retriever=OneNode())
    row = {"query": "capital of italy", "expected_ids": bad}
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    for given, where in (([row], ""), (path, f" ({path}:1)")):
        run = li.evaluate_dataset(evaluator, given, show_progress=False)
        assert [e.message for e in run.errors] == [f"TypeError: {tail}{where}"]


@pytest.mark.parametrize("bad, kind", [(True, TypeError), (None, TypeError), (0, ValueError), (2.0, TypeError)])
def test_a_retrievers_top_k_and_a_data_set_runs_workers_are_counts(bad, kind):
    pytest.importorskip("llama_index.core")
    from llama_index.core.evaluation import RetrieverEvaluator

    nodes = li.nodes_from_records([{"id": "d1", "text": "alpha"}])
    retriever = li.ScoringRetriever(nodes, lambda q: [1.0])
    assert_same_error({"ScoringRetriever": lambda: li.ScoringRetriever(nodes, lambda q: [1.0], top_k=bad)},
                      kind, f"top_k must be a positive integer, got {bad!r}")
    evaluator = RetrieverEvaluator(metrics=[li.HitRate()], retriever=retriever)
    rows = [{"query": "alpha", "expected_ids": ["d1"]}]
    assert_same_error({"evaluate_dataset": lambda: li.evaluate_dataset(evaluator, rows, workers=bad)},
                      kind, f"workers must be a positive integer, got {bad!r}")
