"""One test case from generation to benchmark: ``generate_testset`` (real openai SDK, local server) into
``run_bench`` and ``rag-eval bench`` as the returned object, its file and hand-written lines, with equal reports;
and ``read_testset``'s rules for every form."""

from __future__ import annotations

import gzip
import io
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

pytest.importorskip("openai")
pytest.importorskip("bm25s")
pytest.importorskip("llama_index.core")

from bench_helpers import documents  # noqa: E402

from rag_eval_adapters.bench import BenchSettings, load_documents, parse_chunking, run_bench  # noqa: E402
from rag_eval_adapters.cli import main  # noqa: E402
from rag_eval_adapters.testsets import (  # noqa: E402
    QUESTION_TYPES,
    OpenAICompatibleLLM,
    TestCase,
    TestSet,
    evaluate_dataset_rows,
    generate_testset,
    langsmith_examples,
    read_testset,
)

SETTINGS = BenchSettings(ks=(1, 3, 5), e2e_limit=0, permutations=50)
BENCH = {"chunkings": ["32:8"], "retrievers": ["bm25"], "settings": SETTINGS}


def scores(result):
    """Every configuration's per-query scores and means: what two equal benchmarks share."""
    return {r.name: (r.report.per_query, r.report.mean) for r in result.results}


@pytest.fixture()
def docs(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    for d in documents():
        (folder / d["doc_id"]).write_text(d["text"], encoding="utf-8")
    return folder


@pytest.fixture()
def generated(openai_server, docs, tmp_path):  # noqa: F811
    chunks = parse_chunking("32:8").split(load_documents(docs))
    records = [{"chunk_id": c.chunk_id, "text": c.text, "doc_id": c.doc_id, "start": c.start} for c in chunks]
    llm = OpenAICompatibleLLM("gpt-4o-mini", base_url=openai_server.base_url, api_key=openai_server.api_key)
    path = tmp_path / "testset.jsonl"
    testset = generate_testset(records, llm, samples=6, min_chunk_chars=10, max_concurrency=2, output=path,
                               retry_base_delay=0.0)
    assert len(testset) == 6
    return testset, path


def cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = main([str(a) for a in argv], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_a_generated_test_set_is_benchmarked_as_object_file_and_command(generated, docs, tmp_path):
    testset, path = generated
    from_object = run_bench(docs, testset, **BENCH)
    from_file = run_bench(docs, path, **BENCH)
    assert from_object.cases == from_file.cases == testset.cases
    assert scores(from_object) == scores(from_file)
    assert sorted(from_object.results[0].report.query_ids) == sorted(c.query_id for c in testset)
    assert from_object.provenance["testset"]["source"] == "TestSet"
    code, _, stderr = cli("bench", "--documents", docs, "--testset", path, "--chunking", "32:8", "--retriever", "bm25",
                          "--k", "1,3,5", "--skip-e2e", "--permutations", "50", "--output", tmp_path / "report")
    assert code == 0, stderr
    report = json.loads((tmp_path / "report" / "report.json").read_text(encoding="utf-8"))
    assert report["configurations"]["s32o8/bm25"]["mean"] == pytest.approx(from_object.results[0].report.mean)


def test_hand_written_lines_are_benchmarked_like_the_generated_ones(generated, docs, tmp_path):
    testset, _ = generated
    # what a person types: question, answer, evidence (text or chunk ids), type; nothing else
    typed = [{"query_id": c.query_id, "query": c.query, "answer": c.answer, "evidence": c.evidence,
              "query_type": c.query_type} for c in testset]
    by_ids = [{"query_id": c.query_id, "query": c.query, "relevant_chunk_ids": c.relevant_chunk_ids}
              for c in testset]
    hand = tmp_path / "hand.jsonl.gz"
    hand.write_bytes(gzip.compress(("\ufeff" + "\r\n".join(json.dumps(r) for r in typed) + "\r\n").encode()))
    from_text = run_bench(docs, hand, **BENCH)
    assert [c.evidence_spans for c in from_text.cases] == [[]] * len(testset)  # judged by text, not spans
    assert scores(from_text) == scores(run_bench(docs, typed, **BENCH))
    assert scores(run_bench(docs, by_ids, **BENCH)) == scores(run_bench(docs, testset, **BENCH))
    code, stdout, stderr = cli("bench", "--documents", docs, "--testset", hand, "--chunking", "32:8", "--retriever",
                               "bm25", "--k", "1,3,5", "--skip-e2e", "--permutations", "50", "--output",
                               tmp_path / "report")
    assert code == 0, stderr
    report = json.loads((tmp_path / "report" / "report.json").read_text(encoding="utf-8"))
    assert report["configurations"]["s32o8/bm25"]["mean"] == pytest.approx(from_text.results[0].report.mean)


def test_rows_and_langsmith_examples_take_path_records_or_testset(generated):
    testset, path = generated
    records = [c.to_dict() for c in testset]
    for source in (testset, path, str(path), records, list(testset)):
        assert evaluate_dataset_rows(source) == testset.to_rows()
        assert langsmith_examples(source) == testset.to_langsmith_examples()
    assert read_testset(path).cases == testset.cases


def test_a_hand_written_line_needs_only_id_question_and_relevance():
    (case,) = read_testset([{"query_id": 7, "query": "what erupted?", "evidence": "Vesuvius"}])
    assert (case.query_id, case.query_type, case.answer, case.texts) == ("7", "literal", "", ["Vesuvius"])
    (case,) = read_testset([{"query_id": "a", "query": "x", "expected_ids": ["c1"], "note": "kept"}])
    assert case.relevant_chunk_ids == ["c1"] and case.source_chunk_id == "c1" and case.extra == {"note": "kept"}
    assert read_testset([case.to_dict()]).cases == [case]  # a hand-written case round-trips
    (case,) = read_testset([{"query_id": "b", "query": "x", "evidence": ["one text", "another"]}])
    assert case.texts == ["one text", "another"]
    assert QUESTION_TYPES == ("literal", "paraphrase", "scenario", "multi_hop", "unanswerable")


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ({"query": "x", "evidence": "e"}, r"testset\[0\]: field 'query_id' must be a non-empty string"),
        ({"query_id": "a", "query": " ", "evidence": "e"}, r"testset\[0\]: field 'query' must be a non-empty"),
        ({"query_id": "a", "query": "x"}, r"testset\[0\]: query 'a' has no relevance"),
        ({"query_id": "a", "query": "x", "evidence": "e", "query_type": "trivia"},
         r"'query_type' must be one of literal, paraphrase, scenario, multi_hop, unanswerable, got 'trivia'"),
        ({"query_id": "a", "query": "x", "evidence_spans": [{"doc_id": "d", "start": 5, "end": 5}]},
         r"'evidence_spans\[0\]' needs integer offsets 0 <= start < end"),
        ({"query_id": "a", "query": "x", "evidence": "e", "lexical_overlap": float("nan")},
         r"'lexical_overlap' must be a finite number"),
        ({"query_id": "a", "query": "x", "evidence": "e", "retriever_rank": 1.5}, r"'retriever_rank' must be an integer"),
        (["a"], r"testset\[0\]: a test case is a JSON object \(or a TestCase\), got list"),
    ],
)
def test_a_bad_record_is_named(record, message):
    with pytest.raises(ValueError, match=message):
        read_testset([record])


def test_a_bad_file_line_names_the_file_and_line(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text('{"query_id": "a", "query": "x", "evidence": "e"}\n\n{"query_id": "a", "query": "y", '
                    '"evidence": "e"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"t\.jsonl: query_id 'a' appears twice \(line 3 repeats line 1\)"):
        read_testset(path)
    path.write_text('{"query_id": "a", "query": "x", "evidence": "e"}\n{"query_id": "b", "query": 3}\n',
                    encoding="utf-8")
    with pytest.raises(ValueError, match=r"t\.jsonl:2: field 'query' must be a non-empty string, got 3"):
        read_testset(path)
    path.write_text("\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"t\.jsonl holds no test case"):
        read_testset(path)
    with pytest.raises(TypeError, match="a test set is a JSONL path, a TestSet or an iterable"):
        read_testset(42)
    assert read_testset(TestSet([TestCase("q", "x", evidence="e")]))[0].texts == ["e"]
    with pytest.raises(ValueError, match=r"testset\[1\]: query 'r' has no relevance"):
        read_testset([TestCase("q", "x", evidence="e"), TestCase("r", "y")])
    with pytest.raises(ValueError, match=r"testset\[0\]: field 'query_type' must be one of"):
        read_testset([TestCase("q", "x", "trivia", evidence="e")])
