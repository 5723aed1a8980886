"""rag_eval_adapters.bench: relevance across chunkings, retrievers, reranking, answers and the report folder."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from bench_helpers import HashEmbedder, case_records, documents  # noqa: E402

from rag_eval_adapters import evaluate, read_trec_qrels, read_trec_run  # noqa: E402
from rag_eval_adapters.bench import (  # noqa: E402
    BenchSettings,
    BM25Retriever,
    Case,
    DenseRetriever,
    Document,
    E5Scorer,
    ExtractiveAnswerer,
    FunctionChunking,
    HybridRetriever,
    Span,
    build_qrels,
    cases_from_records,
    judge_case,
    load_cases,
    reciprocal_rank_fusion,
    run_bench,
    sentence_chunking,
    span_grades,
)
from rag_eval_adapters.bench.rerank_step import rerank_hits  # noqa: E402
from rag_eval_adapters.rerank import LexicalScorer  # noqa: E402

pytest.importorskip("bm25s")
pytest.importorskip("llama_index.core")

TEXT = "Alpha one. Bravo two. Charlie three. Delta four. Echo five."
DOC = Document("d.txt", TEXT)


def pieces(*cuts):
    """A chunking cutting TEXT at the given (start, end) character ranges (overlaps allowed)."""
    return FunctionChunking("cut" + "-".join(f"{a}_{b}" for a, b in cuts), lambda text: [text[a:b] for a, b in cuts])


# ---------------------------------------------------------------- relevance that survives re-chunking


def test_a_span_cut_by_a_chunk_boundary_makes_both_chunks_relevant_with_their_share():
    span = Span("d.txt", TEXT.index("Bravo"), TEXT.index("Bravo") + len("Bravo two. Charlie three."))
    boundary = TEXT.index("Charlie")  # the span is cut here
    chunks = pieces((0, boundary), (boundary, len(TEXT))).split([DOC])
    grades = span_grades(chunks, [span])
    first, second = chunks
    covered_first = boundary - span.start
    covered_second = span.end - boundary
    length = span.end - span.start
    assert grades == {first.chunk_id: -(-100 * covered_first // length), second.chunk_id: -(-100 * covered_second // length)}
    assert 100 <= sum(grades.values()) <= 101


def test_overlapping_chunks_that_both_hold_the_span_are_both_fully_relevant():
    span = Span("d.txt", TEXT.index("Charlie"), TEXT.index("Charlie") + len("Charlie three."))
    chunks = pieces((0, 40), (10, len(TEXT)), (TEXT.index("Delta"), len(TEXT))).split([DOC])
    grades = span_grades(chunks, [span])
    assert grades == {chunks[0].chunk_id: 100, chunks[1].chunk_id: 100}  # the third chunk does not overlap


def test_span_relevance_under_two_sentence_splitter_chunkings_matches_character_overlap():
    text = " ".join(f"Sentence number {i} talks about topic {i % 7} in some detail." for i in range(80))
    doc = Document("long.txt", text)
    start = text.index("Sentence number 40 ")
    end = text.index("Sentence number 45 ") - 1  # five sentences, longer than either chunk size
    case = Case("q", "topic 6", spans=(Span("long.txt", start + 9, end),))
    span = case.evidence_spans[0]
    for chunking in (sentence_chunking(32, 8), sentence_chunking(64, 0)):
        chunks = chunking.split([doc])
        assert all(text[c.start:c.end] == c.text for c in chunks)
        grades = judge_case(case, chunks, chunking.name)
        expected = {c.chunk_id for c in chunks if c.start < span.end and span.start < c.end}
        assert set(grades) == expected and expected
        for c in chunks:
            if c.chunk_id in grades:
                overlap = min(c.end, span.end) - max(c.start, span.start)
                assert grades[c.chunk_id] == math.ceil(100 * overlap / (span.end - span.start))
        assert any(g < 100 for g in grades.values())  # the span crosses a boundary in each chunking
    small, large = (sentence_chunking(32, 8).split([doc]), sentence_chunking(64, 0).split([doc]))
    assert len(small) > len(large)
    assert not set(c.chunk_id for c in small) & set(c.chunk_id for c in large)


def test_expected_texts_use_the_core_text_matcher():
    chunks = pieces((0, 21), (21, len(TEXT))).split([DOC])
    case = cases_from_records([{"query_id": "q", "query": "x", "expected_texts": ["bravo   TWO"]}])[0]
    assert judge_case(case, chunks, "c") == {chunks[0].chunk_id: 1}


def test_chunk_ids_judge_only_their_own_chunking():
    own = pieces((0, 21), (21, len(TEXT)))
    other = pieces((0, 30), (30, len(TEXT)))
    own_chunks = own.split([DOC])
    case = cases_from_records([{"query_id": "q7", "query": "x", "relevant_chunk_ids": [own_chunks[1].chunk_id]}])[0]
    assert judge_case(case, own_chunks, own.name) == {own_chunks[1].chunk_id: 1}
    with pytest.raises(ValueError, match=r"query 'q7'.*not chunks of chunking .*evidence_spans"):
        build_qrels([case], other.split([DOC]), other.name)


def test_a_case_no_chunk_matches_is_left_out_with_a_reason_not_scored_zero():
    chunks = pieces((0, 21), (21, len(TEXT))).split([DOC])
    cases = cases_from_records([{"query_id": "a", "query": "x", "expected_texts": ["Bravo two. Charlie three."]},
                                {"query_id": "b", "query": "y", "expected_texts": ["Echo five"]}])
    qrels, unjudged = build_qrels(cases, chunks, "c")
    assert list(qrels) == ["b"] and "no chunk" in unjudged["a"]


# ---------------------------------------------------------------- test-set lines


def test_a_bad_test_set_line_is_named_with_its_number(tmp_path):
    path = tmp_path / "t.jsonl"
    good = json.dumps({"query_id": "q1", "query": "what", "evidence": "Alpha"})
    path.write_text(good + "\n\n" + json.dumps({"query_id": "q2", "query": "", "evidence": "x"}) + "\n")
    with pytest.raises(ValueError, match=r"t\.jsonl:3: field 'query' must be a non-empty string"):
        load_cases(path)
    path.write_text(good + "\n{not json\n")
    with pytest.raises(ValueError, match=r"t\.jsonl:2: not valid JSON"):
        load_cases(path)
    path.write_text(good + "\n" + json.dumps({"query_id": "q2", "query": "x", "query_type": "trivia", "evidence": "x"}))
    with pytest.raises(ValueError, match=r":2: field 'query_type' must be one of literal, paraphrase, scenario"):
        load_cases(path)
    path.write_text(json.dumps({"query_id": "q2", "query": "x",
                                "evidence_spans": [{"doc_id": "d", "start": 5, "end": 2}]}))
    with pytest.raises(ValueError, match=r":1: field 'evidence_spans\[0\]' needs integer offsets"):
        load_cases(path)


# ---------------------------------------------------------------- retrievers and reranking


@pytest.fixture()
def chunks():
    docs = [Document(d["doc_id"], d["text"]) for d in documents()]
    return sentence_chunking(16, 0).split(docs)


def _text_of(chunks, chunk_id):
    return next(c.text for c in chunks if c.chunk_id == chunk_id)


def test_bm25_ranks_the_chunk_with_the_query_words_first(chunks):
    hits = BM25Retriever().index(chunks).search(["oxbow lake loop", "zzzz"], 3)
    assert "oxbow lake" in _text_of(chunks, hits[0][0][0])
    assert hits[1] == []  # no shared word, nothing retrieved
    scores = [s for _, s in hits[0]]
    assert scores == sorted(scores, reverse=True)


def test_dense_retriever_ranks_by_cosine_of_the_embeddings(chunks):
    embedder = HashEmbedder()
    hits = DenseRetriever(embedder).index(chunks).search(["fringed feathers owls silently"], 5)[0]
    assert "Fringed feathers" in _text_of(chunks, hits[0][0])
    assert len(hits) == 5 and all(-1.0 <= s <= 1.0 for _, s in hits)


def test_reciprocal_rank_fusion_and_the_hybrid_retriever(chunks):
    fused = reciprocal_rank_fusion([["a", "b", "c"], ["c", "a"]], k=60)
    assert [d for d, _ in fused] == ["a", "c", "b"]
    assert fused[0][1] == pytest.approx(1 / 61 + 1 / 62)
    with pytest.raises(ValueError, match="RRF constant"):
        reciprocal_rank_fusion([["a"]], k=-1)
    embedder = HashEmbedder()
    hybrid = HybridRetriever([BM25Retriever(), DenseRetriever(embedder)], depth=10).index(chunks)
    bm25 = BM25Retriever().index(chunks).search(["Amazon river water"], 10)[0]
    dense = DenseRetriever(embedder).index(chunks).search(["Amazon river water"], 10)[0]
    expected = reciprocal_rank_fusion([[d for d, _ in bm25], [d for d, _ in dense]])[:4]
    assert hybrid.search(["Amazon river water"], 4)[0] == expected


def test_rerank_step_reorders_candidates_by_the_scorer(chunks):
    texts = {c.chunk_id: c.text for c in chunks}
    candidates = [(c.chunk_id, 1.0 - i / 100) for i, c in enumerate(chunks)]
    reranked = rerank_hits("oxbow lake", candidates, texts, LexicalScorer(), 3)
    assert "oxbow lake" in texts[reranked[0][0]] and len(reranked) == 3
    e5 = rerank_hits("fringed feathers owls", candidates, texts, E5Scorer(HashEmbedder()), 2)
    assert "Fringed feathers" in texts[e5[0][0]]


def test_extractive_answerer_returns_the_closest_sentence():
    answerer = ExtractiveAnswerer(HashEmbedder())
    assert answerer.answer("which river carries the most water", [TEXT, documents()[3]["text"]]) == \
        "The Amazon carries more water than any other river."
    assert answerer.answer("anything", []) == ""


# ---------------------------------------------------------------- the whole run


@pytest.fixture(scope="module")
def bench_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench") / "report"
    embedder = HashEmbedder()
    result = run_bench(documents(), case_records(), chunkings=["16:0", "32:8"], retrievers=["bm25", "e5", "hybrid"],
                       rerankers=["lexical"], settings=BenchSettings(ks=(1, 3, 5), e2e_limit=5, permutations=200),
                       embedder=embedder, output_dir=out)
    return result, out, embedder


def test_report_json_equals_evaluate_on_the_written_trec_files_for_every_configuration(bench_run):
    result, out, _ = bench_run
    report = json.loads((out / "report.json").read_text())
    assert len(report["configurations"]) == 2 * 3 * 2
    for name, conf in report["configurations"].items():
        qrels = read_trec_qrels(out / conf["files"]["qrels"])
        run = read_trec_run(out / conf["files"]["run"])
        core = evaluate(qrels, run, list(conf["mean"]))
        assert core.mean == pytest.approx(conf["mean"], abs=0), name
        assert {str(q): v for q, v in core.per_query.items()} == conf["per_query"], name


def test_report_has_types_stages_tests_worst_queries_answers_and_provenance(bench_run):
    result, out, _ = bench_run
    report = json.loads((out / "report.json").read_text())
    conf = report["configurations"]["s16o0/bm25+lexical"]
    assert conf["stage"] == "reranked" and conf["reranker"] == "lexical"
    assert report["configurations"]["s16o0/bm25"]["stage"] == "retrieval"
    assert set(conf["by_query_type"]) == {"literal", "paraphrase", "scenario"}
    assert conf["by_query_type"]["literal"]["count"] == 3
    worst = conf["worst_queries"][0]
    assert worst["evidence"] and all({"chunk_id", "text", "grade"} <= set(r) for r in worst["retrieved"])
    assert conf["answers"]["queries"] == 5 and set(conf["answers"]["by_query_type"]) <= {"literal", "paraphrase", "scenario"}
    for row in conf["answers"]["per_query"].values():
        assert 0.0 <= row["token_f1"] <= 1.0 and 0.0 <= row["semantic_similarity"] <= 1.0 and row["query_type"]
    tests = report["comparison"]["tests"]
    assert len(tests) == 2 * (12 * 11 // 2)
    prov = report["provenance"]
    assert prov["version"] and len(prov["documents"]["sha256"]) == 64 and prov["testset"]["cases"] == 8
    assert prov["settings"]["ks"] == [1, 3, 5] and prov["chunkings"]["s16o0"] > prov["chunkings"]["s32o8"]
    assert "Recall@k" in report["metric_definitions"]["hit_rate"]
    assert report["usage"]["embeddings"]["computed"] > 0 and report["verdict"][0].startswith("On all questions")
    for name in ("report.md", "report.txt"):
        text = (out / name).read_text()
        assert "Verdict" in text and "s32o8/hybrid+lexical" in text and "scenario" in text
    for chart in ("by_query_type.png", "metrics_vs_k.png"):
        assert (out / "charts" / chart).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_eval_mode_scores_only_the_chosen_question_types():
    for mode, types in (("literal", {"literal"}), ("semantic", {"paraphrase", "scenario"})):
        result = run_bench(documents(), case_records(), chunkings=["32:8"], retrievers=["bm25"],
                           settings=BenchSettings(ks=(1, 3), eval_mode=mode, e2e_limit=0), embedder=HashEmbedder())
        (conf,) = result.results
        assert {g.group for g in conf.by_type.groups} == types
        assert {c.query_type for c in result.cases} == types
        assert len(conf.report.query_ids) == sum(r["query_type"] in types for r in case_records())
    with pytest.raises(ValueError, match="eval_mode"):
        BenchSettings(eval_mode="semantics")


def test_e2e_limit_answers_that_many_questions_and_zero_skips_answers():
    embedder = HashEmbedder()
    result = run_bench(documents(), case_records(), chunkings=["32:8"], retrievers=["bm25"],
                       settings=BenchSettings(ks=(1, 3), e2e_limit=3), embedder=embedder)
    assert result.results[0].answers.query_ids == ["q1", "q2", "q3"]
    skipped = run_bench(documents(), case_records(), chunkings=["32:8"], retrievers=["bm25"],
                        settings=BenchSettings(ks=(1, 3), e2e_limit=0))
    assert skipped.results[0].answers is None and "answerer" not in skipped.usage


def test_a_second_run_reuses_the_embedding_cache(tmp_path):
    first, second = HashEmbedder(), HashEmbedder()
    kwargs = dict(chunkings=["32:8"], retrievers=["e5"], settings=BenchSettings(ks=(1, 3), e2e_limit=2),
                  cache_dir=tmp_path / "cache")
    run_bench(documents(), case_records(), embedder=first, **kwargs)
    run_bench(documents(), case_records(), embedder=second, **kwargs)
    assert first.embedded > 0 and second.embedded == 0


def test_a_failing_answerer_is_recorded_per_question_and_the_rest_are_scored():
    class Flaky:
        name = "flaky"

        def answer(self, question, contexts):
            if "Pompeii" in question:
                raise RuntimeError("model timed out")
            return contexts[0] if contexts else ""

    result = run_bench(documents(), case_records(), chunkings=["32:8"], retrievers=["bm25"],
                       settings=BenchSettings(ks=(1, 3), e2e_limit=4), answerer=Flaky(), embedder=HashEmbedder())
    conf = result.results[0]
    assert conf.answer_errors == {"q1": "RuntimeError: model timed out"}
    assert conf.answers.query_ids == ["q2", "q3", "q4"]


def test_bad_inputs_are_clear_errors():
    with pytest.raises(ValueError, match="evidence_spans\\[0\\] names document 'nope.txt'"):
        run_bench(documents(), [{"query_id": "q", "query": "x",
                                 "evidence_spans": [{"doc_id": "nope.txt", "start": 0, "end": 3}]}],
                  chunkings=["32:8"], retrievers=["bm25"], settings=BenchSettings(e2e_limit=0))
    with pytest.raises(ValueError, match="unknown retriever 'dense'"):
        run_bench(documents(), case_records(), chunkings=["32:8"], retrievers=["dense"],
                  settings=BenchSettings(e2e_limit=0))
    with pytest.raises(ValueError, match="SIZE:OVERLAP"):
        run_bench(documents(), case_records(), chunkings=["big"], retrievers=["bm25"],
                  settings=BenchSettings(e2e_limit=0))


def test_tests_and_verdict_are_corrected_for_the_family_they_come_from(bench_run):
    import re

    from rag_eval_adapters.compare import compare_per_query

    multipletests = pytest.importorskip("statsmodels.stats.multitest").multipletests
    result, out, _ = bench_run
    report = json.loads((out / "report.json").read_text())
    comparison = report["comparison"]
    assert comparison["correction"]["method"] == "holm" and comparison["correction"]["family_size"] == 66
    assert comparison["correction"]["text"] == "at 0.05 after Holm's correction over 66 comparisons of each metric"
    for metric in {t["metric"] for t in comparison["tests"]}:  # each metric's 66 pairs are one family
        tests = [t for t in comparison["tests"] if t["metric"] == metric]
        raw = [t["p_value"] for t in tests]
        assert len(tests) == 66
        assert [t["adjusted_p_value"] for t in tests] == pytest.approx(multipletests(raw, method="holm")[1])
    # the verdict: every pair of the 12 configurations on the headline metric is the family of a sentence
    first = report["verdict"][0]
    assert "significant at 0.05 after Holm's correction over 66 comparisons; " in report["verdict"][-1]
    metric = report["headline_metric"]
    per_query = {r.name: r.report.per_query for r in result.results}
    plain = compare_per_query(per_query, [metric], n_permutations=200, n_bootstrap=200, correction="none")
    best, last = re.match(r"On all questions, (\S+) .* it beats the last, (\S+), by ", first).groups()
    holm = dict(zip([(t.run_a, t.run_b) for t in plain.tests], multipletests([t.p_value for t in plain.tests], method=
                                                                               "holm")[1], strict=True))
    adjusted = holm.get((best, last), holm.get((last, best)))
    assert f"adjusted p = {adjusted:.3g}, 95% CI" in first.split("it beats the last")[1]
    md = (out / "report.md").read_text()
    assert "| metric | A | B | B - A | 95% CI | p | adjusted p |" in md
    assert "adjusted p: holm over the 66 tests of each metric" in md
    assert "No test can reach 0.05 after the correction: the smallest p-value 200 permutations give is 0.005" in md
    with pytest.raises(ValueError, match="unknown correction 'sidak'"):
        BenchSettings(correction="sidak")


def test_a_verdict_interval_bound_of_zero_reads_plus_zero():
    from rag_eval_adapters.bench.scoring import ConfigResult, verdict

    qrels = {f"q{i}": {"good": 1} for i in range(10)}
    best = {q: {"good": 2.0, "bad": 1.0} for q in qrels}
    # the last equals the best on every question but one, so the interval of (last - best) ends at exactly 0
    last = {q: ({"good": 1.0, "bad": 2.0} if q == "q0" else {"good": 2.0, "bad": 1.0}) for q in qrels}
    middle = {q: ({"good": 1.0, "bad": 2.0} if q in ("q0",) else {"good": 2.0, "bad": 1.0}) for q in qrels}
    middle["q1"] = {"good": 2.0, "bad": 3.0}
    runs = {"best": best, "middle": middle, "last": last}
    results = [ConfigResult(name, "c", name, None, {}, evaluate(qrels, run, ["ndcg@10"])) for name, run in runs.items()]
    line = verdict(results, "ndcg@10", permutations=200)[0]
    assert "-0.000" not in line and "95% CI [+0.000, +0.111]" in line
