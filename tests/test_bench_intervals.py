"""The benchmark says how far its means can be trusted: every mean with its named interval (``ci``) and the means
corrected with a few human labels (PPI++), through ``run_bench`` and ``rag-eval bench``."""

from __future__ import annotations

import io
import json
import sys
from dataclasses import replace
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

pytest.importorskip("bm25s")
pytest.importorskip("llama_index.core")

from bench_helpers import HashEmbedder  # noqa: E402
from html_pages import embedded  # noqa: E402

from rag_eval_adapters.bench import BenchSettings, run_bench  # noqa: E402
from rag_eval_adapters.bench.console import print_summary  # noqa: E402
from rag_eval_adapters.cli import main  # noqa: E402
from rag_eval_adapters.intervals import mean_interval  # noqa: E402
from rag_eval_adapters.ppi import ppi_mean  # noqa: E402

SETTINGS = dict(ks=(1, 3), e2e_limit=4, permutations=50)
CONFIG = "s32o8/bm25"
LABELS = {"q1": {"ndcg@3": 1.0, "token_f1": 0.5, "mrr@1": 1.0}, "q2": {"ndcg@3": 0.0, "token_f1": 1.0},
          "q3": {"ndcg@3": 1.0, "token_f1": 0.0}, "q5": {"ndcg@3": 0.5}}


def by_hand(per_query: dict, metric: str, human: dict) -> object:
    """``ppi_mean`` from the report's per-query values: the labelled queries' values and the others', cut to
    [0, 1]."""
    labelled = [q for q in per_query if metric in human.get(q, {})]
    out = ppi_mean([human[q][metric] for q in labelled], [per_query[q][metric] for q in labelled],
                   [v[metric] for q, v in per_query.items() if q not in labelled], confidence=0.9)
    # both metrics lie in [0, 1]: the corrected mean and its interval are cut to [0, 1]
    return replace(out, estimate=min(1.0, max(0.0, out.estimate)), low=max(0.0, out.low), high=min(1.0, out.high))


def test_run_bench_intervals_and_human_labels_equal_the_hand_computation(bench_inputs, tmp_path):
    docs, testset = bench_inputs
    result = run_bench(str(docs), str(testset), chunkings=["32:8"], retrievers=["bm25"], embedder=HashEmbedder(),
                       settings=BenchSettings(**SETTINGS, ci="t", confidence=0.9), human_labels={None: LABELS},
                       output_dir=tmp_path / "r")
    data = json.loads((tmp_path / "r" / "report.json").read_text())
    assert data["intervals"] == {"method": "t", "confidence": 0.9}
    conf = data["configurations"][CONFIG]
    retrieval, answers = conf["per_query"], conf["answers"]["per_query"]
    for metric, rows in (("ndcg@3", retrieval), ("token_f1", answers)):
        expected = by_hand(rows, metric, LABELS)
        got = conf["human_labels"][metric]
        assert (got["estimate"], got["low"], got["high"], got["n"]) == pytest.approx(
            (expected.estimate, expected.low, expected.high, expected.n), abs=1e-12)
        assert got["judge_mean"] == pytest.approx(sum(v[metric] for v in rows.values()) / len(rows))
    assert conf["human_labels"]["ndcg@3"]["n"] == 4 and conf["human_labels"]["token_f1"]["n"] == 3
    expected = mean_interval([v["mrr@3"] for v in retrieval.values()], method="t", confidence=0.9)
    got = conf["intervals"]["retrieval"]["all"]["mrr@3"]
    assert (got["low"], got["high"], got["method"]) == (pytest.approx(expected.low), pytest.approx(expected.high), "t")
    literal = [v["ndcg@3"] for q, v in retrieval.items() if q in ("q1", "q3", "q7")]
    assert conf["intervals"]["retrieval"]["by_query_type"]["literal"]["ndcg@3"]["high"] == pytest.approx(
        mean_interval(literal, method="t", confidence=0.9).high)
    ndcg = conf["intervals"]["retrieval"]["all"]["ndcg@3"]
    ndcg = f"{conf['mean']['ndcg@3']:.3f} [{ndcg['low']:.3f}, {ndcg['high']:.3f}]"
    for name in ("report.md", "report.txt"):
        text = (tmp_path / "r" / name).read_text()
        assert ndcg in text and "90% interval of each mean over its queries (t: Student's t)" in text
        assert "Means corrected with human labels" in text and "ppi++ 90%" in text
        assert f"not corrected: {CONFIG} mrr@1: 1 human label; PPI++ needs at least 2" in text  # said, not dropped
    page = embedded((tmp_path / "r" / "report.html").read_text())
    shown = next(c for c in page["configurations"] if c["name"] == CONFIG)
    assert any(line.startswith(f"{CONFIG} ndcg@3: judge mean") for line in page["human_labels"])
    assert any(line.startswith(f"not corrected: {CONFIG} mrr@1: 1 human label;") for line in page["human_labels"])
    assert shown["intervals"]["mrr@3"] == [got["low"], got["high"]] and "90% interval" in page["interval_note"]
    out = io.StringIO()
    print_summary(result, out, width=400)
    printed = out.getvalue()
    assert f"[{got['low']:.3f}, {got['high']:.3f}]" in printed and "interval of each mean over its queries (t)" in printed
    corrected = result.results[0].human["ndcg@3"]
    assert "mrr@1" not in result.results[0].human and f"not corrected: {CONFIG} mrr@1" in printed
    assert f"{CONFIG} ndcg@3: judge mean {corrected.judge_mean:.3f}, corrected {corrected.format(3)} from 4 human " \
           "labels" in printed


def test_without_the_options_the_tables_are_unchanged(bench_inputs):
    docs, testset = bench_inputs
    result = run_bench(str(docs), str(testset), chunkings=["32:8"], retrievers=["bm25"], embedder=HashEmbedder(),
                       settings=BenchSettings(**SETTINGS))
    assert result.results[0].intervals == {} and result.results[0].human == {}
    out = io.StringIO()
    print_summary(result, out, width=400)
    assert " [" not in out.getvalue() and "interval" not in out.getvalue()


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = main([str(a) for a in argv], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_the_cli_reads_labels_by_configuration_and_names_a_bad_line(bench_inputs, tmp_path):
    docs, testset = bench_inputs
    labels = tmp_path / "labels.jsonl"
    retrieval = {q: {m: x for m, x in v.items() if m != "token_f1"} for q, v in LABELS.items()}
    lines = [{"query_id": q, "run": CONFIG, **v} for q, v in retrieval.items()]
    labels.write_text("".join(json.dumps(line) + "\n" for line in lines))
    base = ("bench", "--documents", docs, "--testset", testset, "--chunking", "32:8", "--retriever", "bm25",
            "--k", "1,3", "--skip-e2e", "--permutations", "50")  # no answers: no E5 model to load
    code, out, err = run(*base, "--human-labels", labels, "--ci", "normal", "--confidence", "0.9",
                         "--output", tmp_path / "r")
    assert code == 0, err
    data = json.loads((tmp_path / "r" / "report.json").read_text())
    assert data["intervals"] == {"method": "normal", "confidence": 0.9}
    assert data["human_labels"]["lines"] == 4 and data["human_labels"]["source"] == str(labels)
    conf = data["configurations"][CONFIG]
    expected = by_hand(conf["per_query"], "ndcg@3", retrieval)
    assert conf["human_labels"]["ndcg@3"]["estimate"] == pytest.approx(expected.estimate, abs=1e-12)
    assert conf["intervals"]["retrieval"]["all"]["mrr@3"]["method"] == "normal"
    assert "corrected" in out and "from 4 human labels" in out
    for bad, message in (({"query_id": "q99", "ndcg@3": 1}, "labels.jsonl:2: query 'q99' is not a question"),
                         ({"query_id": "q1", "bleu": 1}, "labels.jsonl:2: 'bleu' is not a metric of the benchmark"),
                         ({"query_id": "q1", "token_f1": 1}, "labels.jsonl:2: 'token_f1' is not a metric of the "
                                                             "benchmark (retrieval: hit_rate@1"),
                         ({"query_id": "q2", "run": "s9o1/bm25", "ndcg@3": 1},
                          "labels.jsonl:2: run 's9o1/bm25' is not a configuration")):
        labels.write_text(json.dumps(lines[0]) + "\n" + json.dumps(bad) + "\n")
        code, _, err = run(*base, "--human-labels", labels, "--output", tmp_path / "bad")
        assert code == 2 and message in err, err
    code, _, err = run(*base, "--ci", "wilson", "--output", tmp_path / "bad")
    assert code == 2 and "--ci" in err
