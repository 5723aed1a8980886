"""The metric registry: every metric reachable through every entry point, the names users write (ours,
trec_eval's, ir_measures') read back as written, and docs/metrics.md kept in step with the registry."""

from __future__ import annotations

import doctest
import importlib.util
import inspect
import json
import re
from pathlib import Path

import pytest
from cli_support import run_cli, write_trec_qrels, write_trec_run

from rag_eval_adapters import evaluate, evaluate_columns, measures, metrics, validation
from rag_eval_adapters.answers import ANSWER_METRICS, evaluate_answers
from rag_eval_adapters.langchain import RetrievalMetricEvaluator, RetrievalMetricsEvaluator
from rag_eval_adapters.langchain import evaluators as lc_evaluators
from rag_eval_adapters.llamaindex import metrics_from_names
from rag_eval_adapters.matching import score_texts
from rag_eval_adapters.measures import METRICS, parse_metric

ROOT = Path(__file__).resolve().parents[1]

RANKING = ["d3", "d1", "d4", "d2", "d9"]
GRADES = {"d1": 1, "d2": 2, "d7": 3, "d9": 0}


def _spec(cls: type[measures.Metric]) -> str:
    return cls.name + ("@3" if cls.cutoff else "")


@pytest.mark.parametrize("cls", list(METRICS.values()), ids=list(METRICS))
def test_every_registry_metric_is_reachable_everywhere_with_one_value(cls):
    spec = _spec(cls)
    metric = parse_metric(spec)
    function = getattr(metrics, cls.function)
    value = function(RANKING, GRADES, *([3] if cls.cutoff else []))
    assert metric.score(RANKING, GRADES) == value
    assert evaluate({"q": GRADES}, {"q": RANKING}, [spec]).mean[spec] == value
    [adapter] = metrics_from_names([spec])
    assert adapter.compute(query="q", expected_ids=[d for d, g in GRADES.items() if g == 1],
                           retrieved_ids=RANKING,
                           expected_relevance=GRADES).score == pytest.approx(value, abs=1e-12)
    if cls.bounded:
        evaluator = lc_evaluators.EVALUATORS[cls.name](3 if cls.cutoff else None)
        result = evaluator(outputs={"documents": RANKING}, reference_outputs={"expected_ids": GRADES})
        assert (result["key"], result["score"]) == (spec, value)
    else:  # LangSmith feedback here is continuous in [0, 1]
        with pytest.raises(ValueError, match="not bounded by 1"):
            RetrievalMetricEvaluator(spec)


def test_every_registry_metric_declares_its_documentation():
    for cls in METRICS.values():
        doc = cls.__doc__ or ""
        assert ".. math::" in doc and "References" in doc and ">>> " in doc, cls.__name__
        assert f"trec_eval: {'none' if not cls.trec_eval else ''}" in doc.replace("\n", " ") or cls.trec_eval in doc
        assert cls.function in vars(metrics) and cls.__name__ in measures.__all__


def test_docstring_examples_run():
    for module in (measures, metrics, validation):
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert result.failed == 0 and result.attempted > 0, module.__name__
    for cls in METRICS.values():
        finder = doctest.DocTestFinder(recurse=False)
        for test in finder.find(cls, cls.__name__, globs={}):
            assert doctest.DocTestRunner().run(test).failed == 0, cls.__name__


def _generator():
    """tools/gen_metric_docs.py, loaded by path (a development tool, not part of the package)."""
    spec = importlib.util.spec_from_file_location("gen_metric_docs", ROOT / "tools" / "gen_metric_docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("page", ["metrics.md", "answers.md"])
def test_docs_tables_and_definitions_are_the_generator_output(page):
    generator = _generator()
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    assert generator.rendered(page, text) == text, "regenerate with: python tools/gen_metric_docs.py"


def test_generated_docs_follow_the_registry():
    generator = _generator()
    for cls in METRICS.values():
        assert f"`{cls.name}" in generator.retrieval_table() and inspect.getdoc(cls).split("\n")[0] in \
            generator.retrieval_definitions()
    for cls in ANSWER_METRICS.values():
        assert f"`{cls.name}`" in generator.answer_table()
        assert re.search(r"\.\. math:: (.*)", inspect.getdoc(cls))[1] in generator.answer_definitions()


# ------------------------------------------------------------------------------ names (issue 10, items 18, 19)
QRELS = {"q1": {"d1": 1, "d2": 2, "d9": 0}, "q2": {"d5": 1, "d6": 2}}
RUN = {"q1": ["d3", "d1", "d4", "d2"], "q2": ["d6", "d5"]}


@pytest.mark.parametrize(
    ("name", "same_as"),
    [
        ("P_5", "precision@5"), ("recall_100", "recall@100"), ("ndcg_cut_10", "ndcg@10"), ("map", "ap"),
        ("map_cut_10", "ap@10"), ("recip_rank", "mrr"), ("success_10", "hit_rate@10"), ("Rprec", "r_precision"),
        ("P@5", "precision@5"), ("nDCG@10", "ndcg@10"), ("RR@10", "mrr@10"), ("AP@100", "ap@100"),
        ("R@100", "recall@100"), ("Success@10", "hit_rate@10"), ("map@100", "ap@100"),
    ],
)
def test_trec_eval_and_ir_measures_names_are_read_back_as_written(name, same_as):
    report = evaluate(QRELS, RUN, [name, same_as])
    assert report.mean[name] == report.mean[same_as]
    assert report.per_query["q1"][name] == report.per_query["q1"][same_as]
    assert parse_metric(name) == parse_metric(same_as)


def test_rel_parameter_is_a_metric_s_own_relevance_level():
    report = evaluate(QRELS, RUN, ["P(rel=2)@2", "precision_rel2@2", "P@2"])
    at_two = evaluate(QRELS, RUN, ["precision@2"], relevance_level=2).mean["precision@2"]
    assert report.mean["P(rel=2)@2"] == report.mean["precision_rel2@2"] == at_two == 0.25
    assert report.mean["P@2"] == 0.75
    columns = evaluate_columns(
        {"query_id": ["q1", "q1", "q1", "q2", "q2"], "doc_id": ["d1", "d2", "d9", "d5", "d6"],
         "grade": [1, 2, 0, 1, 2]},
        {"query_id": ["q1"] * 4 + ["q2"] * 2, "doc_id": ["d3", "d1", "d4", "d2", "d6", "d5"],
         "rank": [1, 2, 3, 4, 1, 2]},
        ["P(rel=2)@2"],
    )
    assert columns.mean == {"P(rel=2)@2": 0.25}
    assert metrics_from_names(["P(rel=2)@2"])[0].relevance_level == 2
    with pytest.raises(ValueError, match=r"rel must be above 0"):
        parse_metric("P(rel=0)@5")
    with pytest.raises(ValueError, match=r"ndcg has no option 'rel'"):
        parse_metric("nDCG(rel=2)@10")


def test_unknown_name_suggests_the_closest_and_lists_aliases_from_the_registry():
    with pytest.raises(ValueError, match=r"unknown metric 'ndgc@10' \(did you mean 'ndcg@10'\?\)") as info:
        evaluate(QRELS, RUN, ["ndgc@10"])
    message = str(info.value)
    for cls in METRICS.values():
        assert cls.name in message
        assert all(alias in message or alias.lower() in message.lower() for alias in cls.aliases)
    with pytest.raises(ValueError, match=r"did you mean 'recip_rank'\?"):
        parse_metric("recip_rnk")
    with pytest.raises(ValueError, match="gives two cutoffs"):
        parse_metric("P_5@10")


def test_cli_json_reads_names_back_as_written(tmp_path):
    qrels = write_trec_qrels(tmp_path / "q.qrels", QRELS)
    run = write_trec_run(tmp_path / "r.run", RUN)
    code, out, err = run_cli("evaluate", "--qrels", qrels, "--run", run, "-m", "map@100,nDCG@10,P@5,P_5",
                             "--format", "json")
    assert code == 0, err
    mean = json.loads(out)["mean"]
    assert list(mean) == ["map@100", "nDCG@10", "P@5", "P_5"]
    assert mean["P@5"] == mean["P_5"] == evaluate(QRELS, RUN, ["precision@5"]).mean["precision@5"]
    code, out, err = run_cli("evaluate", "--qrels", qrels, "--run", run, "-m", "ndgc@10")
    assert code == 2 and "did you mean 'ndcg@10'?" in err and err.startswith("rag-eval: error:")


def test_cli_defaults_and_demo_come_from_the_registry(tmp_path):
    from rag_eval_adapters.bench import METRIC_DEFINITIONS
    from rag_eval_adapters.bench.scoring import metric_keys

    defaults = [name for name, cls in METRICS.items() if cls.default]
    assert measures.default_metric_names() == defaults == ["hit_rate", "mrr", "precision", "recall", "f1", "ap",
                                                            "ndcg"]
    qrels = write_trec_qrels(tmp_path / "q.qrels", QRELS)
    run = write_trec_run(tmp_path / "r.run", RUN)
    code, out, err = run_cli("evaluate", "--qrels", qrels, "--run", run, "--k", "2,5", "--format", "json")
    assert code == 0, err
    assert list(json.loads(out)["mean"]) == [f"{name}@{k}" for name in defaults for k in (2, 5)]
    # the benchmark (and so the demo) reports registry metrics under their registry keys
    assert set(METRIC_DEFINITIONS) <= set(defaults)
    assert metric_keys([1, 10]) == [parse_metric(f"{m}@{k}").key for m in METRIC_DEFINITIONS for k in (1, 10)]


def test_langchain_evaluators_dedupe_the_same_metric_under_two_names():
    with pytest.raises(ValueError, match=r"\['ap@10'\] are given more than once"):
        RetrievalMetricsEvaluator(["map_cut_10", "AP@10"])


def test_llamaindex_results_keep_the_names_asked_for():
    adapters = metrics_from_names(["P@2", "map@100", "mrr", "hit_rate@3"])
    assert [adapter.metric_name for adapter in adapters] == ["P@2", "map@100", "mrr", "hit_rate@3"]
    result = adapters[0].compute(expected_ids=["d1", "d2"], retrieved_ids=["d3", "d1"])
    assert (result.score, result.metadata["key"]) == (0.5, "P@2")
    adapters[0].top_k = 3  # a changed option changes the key
    assert adapters[0].metric_name == "precision@3"


def test_every_registry_metric_has_an_importable_adapter_class():
    from rag_eval_adapters.langchain import evaluators
    from rag_eval_adapters.llamaindex import metrics as li_metrics

    for name, cls in METRICS.items():
        assert getattr(li_metrics, cls.__name__)._core_cls is cls
        if cls.bounded:
            assert getattr(evaluators, f"{cls.__name__}Evaluator") is evaluators.EVALUATORS[name]


# ------------------------------------------------------------------------------ metric objects, not label text
SORT_QRELS = {"qa": {"d1": 1, "d2": 3}, "qb": {"d5": 3, "d6": 1}, "qc": {"d8": 2}}
SORT_RUN = {"qa": ["d1", "x", "y", "d2"], "qb": ["x", "d5", "d6"], "qc": ["x", "y", "d8"]}


@pytest.mark.parametrize("fmt", ["json", "csv", "markdown", "table"])
def test_per_query_listing_sorts_by_ndcg_whatever_its_spelling(fmt):
    from rag_eval_adapters.reports import render_evaluation

    asked = evaluate(SORT_QRELS, SORT_RUN, ["mrr", "nDCG@10"])
    plain = evaluate(SORT_QRELS, SORT_RUN, ["mrr", "ndcg@10"])
    by_mrr = sorted(plain.per_query, key=lambda q: (plain.per_query[q]["mrr"], q))
    by_ndcg = sorted(plain.per_query, key=lambda q: (plain.per_query[q]["ndcg@10"], q))
    assert by_mrr != by_ndcg  # the data tells the two orders apart
    asked_text = render_evaluation(asked, fmt, per_query=True)
    plain_text = render_evaluation(plain, fmt, per_query=True)
    assert asked_text == plain_text.replace("ndcg@10", "nDCG@10")
    if fmt == "json":
        data = json.loads(asked_text)
        assert data["sort_by"] == "nDCG@10"
        assert [row["query_id"] for row in data["worst_queries"]] == by_ndcg


def test_cli_sorts_per_query_by_ndcg_asked_in_ir_measures_spelling(tmp_path):
    qrels = write_trec_qrels(tmp_path / "q.qrels", SORT_QRELS)
    run = write_trec_run(tmp_path / "r.run", SORT_RUN)
    outputs = []
    for names in ("mrr,nDCG@10", "mrr,ndcg@10"):
        code, out, err = run_cli("evaluate", "--qrels", qrels, "--run", run, "-m", names, "--per-query",
                                 "--format", "json")
        assert code == 0, err
        outputs.append(json.loads(out))
    asked, plain = outputs
    assert asked["sort_by"] == "nDCG@10" and plain["sort_by"] == "ndcg@10"
    assert [r["query_id"] for r in asked["worst_queries"]] == [r["query_id"] for r in plain["worst_queries"]]


# ------------------------------------------------------------------------------ one name, one metric everywhere
ANSWERS = [{"query_id": "q1", "prediction": "the cat sat", "reference": "a cat sat down", "contexts": ["a cat"]},
           {"query_id": "q2", "prediction": "dogs bark", "reference": "dogs bark loudly", "contexts": ["dogs"]}]


def test_f1_is_retrieval_f1_everywhere_and_where_answers_are_scored_an_error_listing_token_f1():
    assert evaluate(QRELS, RUN, ["f1"]).mean["f1"] == evaluate(QRELS, RUN, [measures.F1()]).mean["f1"]
    with pytest.raises(ValueError, match=r"^'f1' is retrieval F1 \(F1\(\): of retrieved ids, scored by "
                                         r"rag_eval_adapters.evaluate\), not an answer metric; for answers use one "
                                         r"of: token_f1, exact_match, token_precision, token_recall, rouge_l, "):
        evaluate_answers(ANSWERS, ["f1"], progress=False)
    answers = evaluate_answers(ANSWERS, ["token_f1", "token_recall"], progress=False)
    assert answers.keys == ["token_f1", "token_recall"]
    assert answers.per_query["q1"]["token_f1"] == pytest.approx(0.8)  # {cat, sat} of 2 and 3 tokens
    with pytest.raises(ValueError, match=r"'token_f1' is an answer metric \(rag_eval_adapters.answers.metrics.TokenF1\), "
                                         r"not a retrieval metric\).*scored by rag_eval_adapters.answers.evaluate_answers"):
        evaluate(QRELS, RUN, ["token_f1"])


@pytest.mark.parametrize(
    ("name", "choices"),
    [
        ("precision", r"^'precision' is retrieval Precision \(Precision\(\): .*; for answers use one of: "
                      r"token_precision, rouge_l_precision, rouge_l_stem_precision, answer_correctness_precision, exact_match, "),
        ("recall@5", r"^'recall@5' is retrieval Recall \(Recall\(k=5\): .*; for answers use one of: "
                     r"token_recall, rouge_l_recall, rouge_l_stem_recall, answer_correctness_recall, exact_match, "),
        ("F1@10", r"^'F1@10' is retrieval F1 \(F1\(k=10\): .*; for answers use one of: token_f1, exact_match, "),
        ("P_5", r"^'P_5' is retrieval Precision \(Precision\(k=5\): .*; for answers use one of: exact_match, "),
        ("ndcg@10", r"^'ndcg@10' is retrieval NDCG \(NDCG\(k=10\): of retrieved ids, scored by "
                    r"rag_eval_adapters.evaluate\), not an answer metric; for answers use one of: exact_match, "),
        ("stem", r"'stem' is ambiguous among the answer metrics: it could be rouge_l_stem, rouge_l_stem_precision, "
                 r"rouge_l_stem_recall; name one\. Answer metrics: exact_match, em, token_f1, token_precision"),
    ],
)
def test_an_ambiguous_or_retrieval_name_where_answers_are_scored_lists_the_answer_metrics(name, choices):
    with pytest.raises(ValueError, match=choices) as info:
        evaluate_answers(ANSWERS, [name], progress=False)
    assert "semantic_similarity" in str(info.value)


def _answer_names() -> list[str]:
    return [name for cls in ANSWER_METRICS.values() for name in cls.names()]


@pytest.mark.parametrize("name", _answer_names())
def test_an_answer_column_is_the_canonical_name_of_its_metric_and_parses_back_to_it(name):
    from rag_eval_adapters.answers import parse_answer_metric

    metric = parse_answer_metric(name)
    assert metric.key in {type(metric).name, *type(metric).variants}  # canonical, never a short alias
    assert parse_answer_metric(metric.key) == metric
    if not metric.needs_embedder and not metric.needs_judge:
        assert evaluate_answers(ANSWERS, [name], progress=False).keys == [metric.key]
    with pytest.raises(ValueError, match="evaluate_answers"):  # the column names no retrieval metric
        parse_metric(metric.key)


def test_no_name_or_alias_in_the_registry_resolves_to_two_metrics():
    from rag_eval_adapters.answers import parse_answer_metric

    owners: dict[str, set[str]] = {}
    for cls in [*METRICS.values(), *ANSWER_METRICS.values()]:
        for name in cls.names():
            owners.setdefault(name, set()).add(f"{cls.family}.{cls.__name__}")
    assert {name: found for name, found in owners.items() if len(found) > 1} == {}
    for cls in METRICS.values():  # a retrieval name, read by the answer parser, is an error, never an answer metric
        for name in cls.names():
            with pytest.raises(ValueError, match="is retrieval"):
                parse_answer_metric(name)
    for name in _answer_names():  # and the other way round (the retrieval parser also reads _k, _exp...)
        with pytest.raises(ValueError, match="is an answer metric"):
            parse_metric(name)


def test_a_metric_declaring_a_name_another_metric_has_is_refused():
    from rag_eval_adapters.answers import TokenF1

    before = {family: list(table) for family, table in (("retrieval", METRICS), ("answer", ANSWER_METRICS))}
    with pytest.raises(TypeError, match=r"TokenF1Again: the name 'f1' is already the retrieval metric "
                                        r"rag_eval_adapters.measures.F1's; a name means one metric"):
        class TokenF1Again(TokenF1):
            name = "token_f1_again"
            aliases = ("f1",)
    with pytest.raises(TypeError, match=r"the name 'em' is already the answer metric .*ExactMatch's"):
        class Em(measures.MRR):
            name = "em"
    assert {"retrieval": list(METRICS), "answer": list(ANSWER_METRICS)} == before


def test_an_answer_metric_checks_its_options_as_a_retrieval_metric_does():
    from rag_eval_adapters.answers import RougeL, TokenF1

    with pytest.raises(ValueError, match=r"TokenF1: part: Input should be 'f1', 'precision' or 'recall'"):
        TokenF1(part="f2")
    with pytest.raises(ValueError, match=r"RougeL: unknown option 'stemming'"):
        RougeL(stemming=True)
    assert ANSWER_METRICS["rouge_l"] is RougeL and RougeL.family == "answer" and METRICS["f1"].family == "retrieval"
    assert TokenF1("recall") == TokenF1(part="recall") and TokenF1("recall").key == "token_recall"
    with pytest.raises(TypeError, match="got two values for 'part'"):
        TokenF1("recall", part="f1")


@pytest.fixture
def coverage_mrr():
    """A new registry metric (MRR's formula) that declares the coverage rule for text matching."""

    class CoverageMRR(measures.MRR):
        name = "coverage_mrr"
        text_rule = "coverage"

    yield CoverageMRR
    del METRICS["coverage_mrr"]


def test_a_new_metric_class_picks_its_text_matching_rule_from_its_class_attribute(coverage_mrr):
    retrieved = ["Rome", "Paris is in France.", "Berlin"]
    expected = ["paris", "madrid", "berlin"]
    assert score_texts(measures.MRR(), retrieved, expected) == 0.5  # ranking: 1 / the rank of Paris
    assert score_texts(coverage_mrr(), retrieved, expected) == pytest.approx(2 / 3)  # coverage: 2 of 3 found
    assert parse_metric("coverage_mrr@2") == coverage_mrr(k=2)  # registered by declaring its name
