"""The metric registry: every metric reachable through every entry point, the names users write (ours,
trec_eval's, ir_measures') read back as written, and docs/metrics.md kept in step with the registry."""

from __future__ import annotations

import doctest
import inspect
import json
import re
from pathlib import Path

import pytest
from cli_support import run_cli, write_trec_qrels, write_trec_run

from rag_eval_adapters import evaluate, evaluate_columns, measures, metrics, validation
from rag_eval_adapters.langchain import RetrievalMetricEvaluator, RetrievalMetricsEvaluator
from rag_eval_adapters.langchain import evaluators as lc_evaluators
from rag_eval_adapters.llamaindex import metrics_from_names
from rag_eval_adapters.measures import METRICS, parse_metric

DOCS = Path(__file__).resolve().parents[1] / "docs" / "metrics.md"

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


def registry_table() -> str:
    """The names table of docs/metrics.md, generated from the registry."""
    rows = ["| ours | aliases | trec_eval | ir_measures | options |", "| --- | --- | --- | --- | --- |"]
    for cls in METRICS.values():
        options = [f"`{name}`" for name in cls.model_fields if name != "k"]
        name = f"`{cls.name}@k`" if cls.cutoff else f"`{cls.name}` (no cutoff)"
        rows.append(" | ".join([
            f"| {name}",
            ", ".join(f"`{alias}`" for alias in cls.aliases) or "—",
            f"`{cls.trec_eval}`" if cls.trec_eval else "—",
            f"`{cls.ir_measures}`" if cls.ir_measures else "—",
            ", ".join(options) or "—",
        ]) + " |")
    return "\n".join(rows) + "\n"


def _markdown(text: str) -> str:
    text = re.sub(r":math:`([^`]*)`", r"$\1$", text)
    text = re.sub(r":class:`~?([^`]*)`", lambda m: m[1].rsplit(".", 1)[-1], text)
    return text.replace("``", "`")


def registry_definitions() -> str:
    """The definitions of docs/metrics.md, generated from the registry classes' docstrings."""
    out = []
    for cls in METRICS.values():
        doc = inspect.getdoc(cls)
        summary, rest = doc.split("\n", 1)
        formula = re.search(r"\.\. math:: (.*)", rest)[1]
        notes = rest.split(formula, 1)[1].split("References")[0].strip()
        reference = rest.split("----------\n", 1)[1].split("\n\n")[0].strip()
        names = f"`{cls.name}`" + "".join(f", `{a}`" for a in cls.aliases)
        out.append(
            f"**{_markdown(summary)}** ({names})\n\n$${formula}$$\n\n{_markdown(' '.join(notes.split()))}\n\n"
            f"*Reference*: {' '.join(reference.split())}\n"
        )
    return "\n".join(out)


def _block(name: str) -> str:
    text = DOCS.read_text(encoding="utf-8")
    start, end = f"<!-- registry {name}: start -->\n", f"<!-- registry {name}: end -->"
    assert start in text and end in text
    return text.split(start, 1)[1].split(end, 1)[0]


def test_docs_metric_definitions_are_the_registry_docstrings():
    assert _block("definitions") == registry_definitions(), "regenerate with tests/test_registry.py"


def test_docs_metric_table_is_the_registry():
    text = DOCS.read_text(encoding="utf-8")
    start, end = "<!-- registry table: start -->\n", "<!-- registry table: end -->"
    assert start in text and end in text
    table = text.split(start, 1)[1].split(end, 1)[0]
    assert table == registry_table(), "regenerate the table with tests/test_registry.py:registry_table()"


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


def test_cli_defaults_and_demo_come_from_the_registry():
    from rag_eval_adapters.bench import METRIC_DEFINITIONS
    from rag_eval_adapters.bench.scoring import metric_keys
    from rag_eval_adapters.cli._common import DEFAULT_METRICS

    defaults = [name for name, cls in METRICS.items() if cls.default]
    assert list(DEFAULT_METRICS) == defaults == ["hit_rate", "mrr", "precision", "recall", "f1", "ap", "ndcg"]
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
