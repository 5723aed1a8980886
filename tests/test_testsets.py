"""generate_testset through the real openai SDK against a local OpenAI-compatible server."""

from __future__ import annotations

import json
import re
import warnings

import pytest

pytest.importorskip("openai")

from openai_server import (
    FakeOpenAIServer,
    bad_quote,
    duplicate,
    empty_answer,
    fail,
    malformed,
    preamble,
    preamble_line,
    refusal,
    reply,
    slow,
)

from rag_eval_adapters import evaluate
from rag_eval_adapters.modelcalls import Prices
from rag_eval_adapters.testsets import (
    DROP_REASONS,
    Completion,
    OpenAICompatibleLLM,
    TestSet,
    build_messages,
    generate_testset,
)

DOCS = {
    "paris": (
        "Paris is the capital of France and its largest city.   The Seine river flows through the centre of "
        "the city.\nThe Louvre is the most visited museum in the world."
    ),
    "moscow": (
        "Москва является столицей России и крупнейшим городом страны. Через город протекает река Москва. "
        "Третьяковская галерея хранит большое собрание русского искусства."
    ),
    "beijing": "北京是中华人民共和国的首都，也是全国的政治中心。故宫位于北京市中心，是明清两代的皇宫。长城距离市区大约七十公里。",
    "volcano": (
        "Volcanoes form where magma rises through the crust of the earth. Basalt is a dark rock that forms from "
        "lava cooling quickly at the surface. Eruptions can change the local climate for years."
    ),
}


def sentence_chunks():
    """Each document cut into one chunk per sentence (12 in all), with offsets."""
    chunks = []
    for doc_id, text in DOCS.items():
        cuts = [0] + [m.end() for m in re.finditer(r"(?<=[.。])\s*", text) if 0 < m.end() < len(text)] + [len(text)]
        for i, (start, end) in enumerate(zip(cuts, cuts[1:], strict=False)):
            chunks.append({"chunk_id": f"{doc_id}-{i}", "text": text[start:end], "doc_id": doc_id, "start": start})
    return chunks


def llm(server, **kwargs):
    return OpenAICompatibleLLM("gpt-4o-mini", base_url=server.base_url, api_key=server.api_key, **kwargs)


def run(server, chunks=None, **kwargs):
    options = {"samples": 8, "min_chunk_chars": 10, "max_concurrency": 2, "retry_base_delay": 0.0, **kwargs}
    return generate_testset(sentence_chunks() if chunks is None else chunks, llm(server), **options)


def chunk_with(text_part):
    return next(c for c in sentence_chunks() if text_part in c["text"])


def assert_accounted(testset):
    s = testset.summary
    assert s["generated"] == len(testset)
    assert s["generated"] + sum(s["dropped"].values()) == s["requested"]


# ----------------------------------------------------------------------------------------- the cases
def test_cases_carry_verbatim_evidence_spans_ids_and_usage(openai_server):
    testset = run(openai_server)
    assert len(testset) == 8 and testset.summary["dropped"] == {}
    assert_accounted(testset)
    by_id = {c["chunk_id"]: c for c in sentence_chunks()}
    for case in testset:
        source = by_id[case.source_chunk_id]
        assert case.evidence in source["text"]
        assert case.relevant_chunk_ids[0] == case.source_chunk_id
        assert [(s.doc_id, DOCS[s.doc_id][s.start : s.end]) for s in case.evidence_spans] == [(source["doc_id"], case.evidence)]
        assert case.model == "gpt-4o-mini" and case.prompt_version and case.temperature == 0.0
        assert 0.0 <= case.lexical_overlap <= 1.0
    assert {c.language for c in testset} == {"en", "ru", "zh"}
    assert {c.query_type for c in testset} == {"literal", "paraphrase", "scenario"}
    assert len({c.query_id for c in testset}) == 8
    usage = testset.summary
    assert usage["calls"] == len(openai_server.chat_requests) == 8
    assert (usage["input_tokens"], usage["output_tokens"]) == (
        openai_server.usage_sent["prompt_tokens"], openai_server.usage_sent["completion_tokens"])


def test_prices_give_a_cost(openai_server):
    testset = run(openai_server, samples=2, prices=Prices(input_per_million=1.0, output_per_million=4.0))
    s = testset.summary
    assert s["cost"] == pytest.approx((s["input_tokens"] * 1.0 + s["output_tokens"] * 4.0) / 1e6)
    assert s["cost"] > 0


def test_overlapping_chunks_are_all_relevant_and_spans_map_to_the_document(openai_server):
    text = DOCS["volcano"]
    second = text.index("Basalt")
    end_second = text.index("Eruptions")
    chunks = [  # the Basalt sentence is in both chunks
        {"chunk_id": "v-a", "text": text[:end_second], "doc_id": "volcano", "start": 0},
        {"chunk_id": "v-b", "text": text[second:], "doc_id": "volcano", "start": second},
    ]
    quote = text[second:end_second].strip()
    openai_server.handler = lambda body: json.dumps(
        {"questions": [{"question": "What kind of rock forms from fast cooling lava?", "answer": "Basalt",
                        "evidence": quote.replace(" ", "  \n ")}]})  # white space differs from the chunk
    testset = run(openai_server, chunks, samples=1, seed=3)
    (case,) = testset.cases
    assert sorted(case.relevant_chunk_ids) == ["v-a", "v-b"] and case.relevant_chunk_ids[0] == case.source_chunk_id
    assert case.evidence == quote
    assert [(s.doc_id, s.start, s.end) for s in case.evidence_spans] == [("volcano", second, second + len(quote))]
    assert testset.to_qrels() == {case.query_id: {"v-a": 1, "v-b": 1}}


def test_fuzzy_evidence_is_kept_verbatim_from_the_chunk_and_flagged(openai_server):
    chunk = chunk_with("Louvre")
    openai_server.handler = lambda body: json.dumps({"questions": [{
        "question": "Which museum draws the most visitors?", "answer": "The Louvre",
        "evidence": "The Louvre is the most visted museum in the world"}]})  # a typo, no full stop
    (case,) = run(openai_server, [chunk], samples=1).cases
    assert case.evidence == "The Louvre is the most visited museum in the world." or case.evidence in chunk["text"]
    assert case.evidence in chunk["text"] and "fuzzy_evidence" in case.flags


# ----------------------------------------------------------------------------------------- drop reasons
def test_every_drop_reason_is_counted(openai_server):
    chunks = sentence_chunks()
    script = {
        "Seine": [malformed(), malformed()],  # still not JSON after the repair request
        "Louvre": [refusal()],
        "Москва является": [preamble()],
        "Третьяковская": [bad_quote()],
        "故宫": [empty_answer()],
        "北京是中华": [reply(json.dumps({"questions": [{"question": "Where is the capital of China?",
                                                      "answer": "北京", "evidence": "北京是中华人民共和国的首都"}]}))],
        "Volcanoes form": [fail(400)],
        "Basalt": [reply(json.dumps({"questions": [{"question": "", "answer": "x", "evidence": "Basalt"}]}))],
    }
    for part, actions in script.items():
        openai_server.on_prompt(part, *actions)
    testset = generate_testset(chunks, llm(openai_server), samples=40, types=["literal", "paraphrase", "scenario"],
                               min_chunk_chars=10, max_concurrency=1, retry_base_delay=0.0)
    dropped = testset.summary["dropped"]
    assert dropped["unparseable"] == 1 and dropped["refusal"] == 1 and dropped["preamble"] == 1
    assert dropped["evidence_not_found"] == 1 and dropped["empty_answer"] == 1
    assert dropped["wrong_language"] == 1 and dropped["call_failed"] == 1 and dropped["empty_question"] == 1
    assert len(chunks) == 12 and dropped["not_enough_chunks"] == 40 - 12 * 3
    assert set(dropped) <= set(DROP_REASONS)
    assert_accounted(testset)
    prompts = [r.prompt for r in openai_server.chat_requests]
    assert sum("Seine" in p for p in prompts) >= 2  # one repair request was sent
    assert all("Here is a question" not in c.query for c in testset)


def test_a_malformed_reply_is_repaired_once(openai_server):
    openai_server.on_prompt("Seine", malformed())
    testset = run(openai_server, [chunk_with("Seine")], samples=1)
    assert len(testset) == 1 and testset.summary["dropped"] == {}
    assert len(openai_server.chat_requests) == 2
    assert "could not be read as JSON" in openai_server.chat_requests[1].prompt


def test_a_numeric_answer_is_kept_as_text(openai_server):
    openai_server.handler = lambda body: json.dumps({"questions": [
        {"question": "How long is the Seine in this text?", "answer": 777, "evidence": "It is 777 km long."}]})
    chunk = {"chunk_id": "s", "text": "The Seine flows through Paris. It is 777 km long.", "doc_id": "s", "start": 0}
    (case,) = run(openai_server, [chunk], samples=1).cases
    assert case.answer == "777"


def test_a_chatty_line_before_the_json_needs_no_repair(openai_server):
    openai_server.on_prompt("Seine", preamble_line())
    testset = run(openai_server, [chunk_with("Seine")], samples=1)
    assert len(testset) == 1 and len(openai_server.chat_requests) == 1
    assert not testset[0].query.lower().startswith("sure")


def test_missing_questions_and_short_chunks(openai_server):
    chunks = [chunk_with("Seine"), chunk_with("Louvre"), {"chunk_id": "tiny", "text": "Too short.", "doc_id": "t"}]
    openai_server.handler = lambda body: json.dumps({"questions": [
        {"question": "Which river flows through Paris?", "answer": "The Seine", "evidence": "The Seine river"}]})
    testset = generate_testset(chunks, llm(openai_server), samples=4, per_chunk=2, types=["literal"],
                               min_chunk_chars=30, max_concurrency=1)
    s = testset.summary
    assert s["skipped_short_chunks"] == 1
    assert s["dropped"] == {"missing": 2, "evidence_not_found": 1}  # two asked per chunk, one given each
    assert len(testset) == 1
    assert_accounted(testset)


def test_duplicate_question_from_the_server_is_removed(openai_server):
    chunks = [chunk_with("Seine"), chunk_with("Louvre")]
    openai_server.on_prompt("Louvre", duplicate())
    testset = generate_testset(chunks, llm(openai_server), samples=2, types=["literal"], min_chunk_chars=10,
                               max_concurrency=1, seed=0)
    assert testset.summary["dropped"] == {"near_duplicate": 1} and len(testset) == 1


def test_questions_in_the_chunks_language_russian_and_chinese(openai_server):
    ru, zh = chunk_with("Москва является"), chunk_with("北京是中华")
    openai_server.on_prompt("Москва является", reply(json.dumps({"questions": [
        {"question": "Какой город является столицей России?", "answer": "Москва",
         "evidence": "Москва является столицей России"}]})))
    openai_server.on_prompt("北京是中华", reply(json.dumps({"questions": [
        {"question": "中国的首都是哪个城市？", "answer": "北京", "evidence": "北京是中华人民共和国的首都"}]}, ensure_ascii=False)))
    testset = run(openai_server, [ru, zh], samples=2, types=["paraphrase"])
    assert sorted(c.language for c in testset) == ["ru", "zh"] and testset.summary["dropped"] == {}
    openai_server.on_prompt("Москва является", reply(json.dumps({"questions": [
        {"question": "Which city is the capital of Russia?", "answer": "Moscow", "evidence": "Москва является столицей России"}]})))
    openai_server.on_prompt("北京是中华", reply(json.dumps({"questions": [
        {"question": "Какая столица Китая?", "answer": "北京", "evidence": "北京是中华人民共和国的首都"}]}, ensure_ascii=False)))
    assert run(openai_server, [ru, zh], samples=2, types=["literal"]).summary["dropped"] == {"wrong_language": 2}


def test_high_lexical_overlap_paraphrase_is_flagged_not_dropped(openai_server):
    chunk = chunk_with("capital of France")
    openai_server.handler = lambda body: json.dumps({"questions": [
        {"question": "Is Paris the capital of France and its largest city?", "answer": "Yes",
         "evidence": "Paris is the capital of France"}]})
    (case,) = run(openai_server, [chunk], samples=1, types=["paraphrase"]).cases
    assert case.flags == ["high_overlap"] and case.lexical_overlap >= 0.8


# ----------------------------------------------------------------------------------------- model calls
def test_429_with_retry_after_and_500_are_retried(openai_server):
    openai_server.queue(fail(429, retry_after="0"), fail(500, retry_after_ms=1))
    testset = run(openai_server, [chunk_with("Seine")], samples=1, max_concurrency=1)
    assert len(testset) == 1 and testset.summary["retries"] == 2 and testset.summary["calls"] == 1
    assert [r.status for r in openai_server.chat_requests] == [429, 500, 200]


def test_a_slow_answer_times_out_and_is_retried(openai_server):
    openai_server.queue(slow(2.0))
    testset = run(openai_server, [chunk_with("Seine")], samples=1, timeout=0.3)
    assert len(testset) == 1 and testset.summary["retries"] == 1
    assert len(openai_server.chat_requests) == 2


def test_the_cache_makes_a_rerun_free(openai_server, tmp_path):
    cache = tmp_path / "gen.sqlite"
    first = run(openai_server, cache=cache)
    sent = len(openai_server.chat_requests)
    again = run(openai_server, cache=cache)
    assert len(openai_server.chat_requests) == sent
    assert again.summary["calls"] == 0 and again.summary["cache_hits"] == 8 and again.summary["input_tokens"] == 0
    assert [c.to_dict() for c in again] == [c.to_dict() for c in first]


def test_query_ids_are_deterministic_and_depend_on_settings(openai_server):
    one, two = run(openai_server), run(openai_server)
    assert [c.query_id for c in one] == [c.query_id for c in two]
    warmer = generate_testset(sentence_chunks(), llm(openai_server, temperature=0.7), samples=8, min_chunk_chars=10)
    assert not {c.query_id for c in one} & {c.query_id for c in warmer}


def test_sampling_spans_documents_and_follows_the_seed(openai_server):
    doc_of = {c["chunk_id"]: c["doc_id"] for c in sentence_chunks()}
    samples = {seed: [c.source_chunk_id for c in run(openai_server, samples=4, seed=seed)] for seed in range(4)}
    for picked in samples.values():
        assert len({doc_of[chunk_id] for chunk_id in picked}) == 4  # one chunk from each document first
    assert [c.source_chunk_id for c in run(openai_server, samples=4, seed=2)] == samples[2]
    assert len({tuple(p) for p in samples.values()}) > 1


def test_dry_run_estimates_without_calling(openai_server, tmp_path):
    estimate = run(openai_server, dry_run=True, prices=Prices(2.0, 8.0), output=tmp_path / "t.jsonl")
    s = estimate.summary
    assert openai_server.requests == [] and not (tmp_path / "t.jsonl").exists()
    assert s["dry_run"] is True and s["calls"] == 8 and s["estimated_input_tokens"] > 0
    assert s["estimated_cost"] == pytest.approx((s["estimated_input_tokens"] * 2 + s["estimated_output_tokens"] * 8) / 1e6)


# ----------------------------------------------------------------------------------------- resume
class Interrupting:
    """An LLM that is interrupted (Ctrl-C) on its ``stop_at``-th request."""

    def __init__(self, inner, stop_at):
        self.inner, self.stop_at, self.count = inner, stop_at, 0
        self.name, self.temperature = inner.name, inner.temperature

    def chat(self, messages) -> Completion:
        self.count += 1
        if self.count == self.stop_at:
            raise KeyboardInterrupt
        return self.inner.chat(messages)


def test_an_interrupted_run_resumes_without_asking_again(openai_server, tmp_path):
    out = tmp_path / "testset.jsonl"
    options = {"samples": 8, "min_chunk_chars": 10, "max_concurrency": 1, "output": out}
    with pytest.raises(KeyboardInterrupt):
        generate_testset(sentence_chunks(), Interrupting(llm(openai_server), stop_at=4), **options)
    before = len(openai_server.chat_requests)
    written = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert 3 <= before <= 4 and len(written) == 3
    resumed = generate_testset(sentence_chunks(), llm(openai_server), **options)
    asked = [chunk_id for r in openai_server.chat_requests for chunk_id, text in _texts() if text in r.prompt]
    assert len(asked) == 8 and len(set(asked)) == 8  # every sampled chunk asked exactly once over both runs
    assert not {w["source_chunk_id"] for w in written} & set(asked[before:])
    assert resumed.summary["resumed_cases"] == 3 and len(resumed) == 8
    with FakeOpenAIServer() as other:
        fresh = run(other, max_concurrency=1)
    assert [c.query_id for c in resumed] == [c.query_id for c in fresh]
    assert TestSet.from_jsonl(out).queries() == resumed.queries()
    generate_testset(sentence_chunks(), llm(openai_server), **options)  # all finished: nothing sent
    assert len(openai_server.chat_requests) == before + 8 - len(set(asked[:before]))
    smaller = generate_testset(sentence_chunks(), llm(openai_server), **{**options, "samples": 5})
    assert [c.query_id for c in smaller] == [c.query_id for c in resumed][:5] and smaller.summary["generated"] == 5
    larger = generate_testset(sentence_chunks(), llm(openai_server), **{**options, "samples": 10})
    assert len(larger) == 10 and larger.summary["calls"] == 2 and larger.summary["resumed_cases"] == 8


def _texts():
    return [(c["chunk_id"], f"<chunk>\n{c['text']}\n</chunk>") for c in sentence_chunks()]


def test_output_files_are_never_overwritten_or_mixed(openai_server, tmp_path):
    foreign = tmp_path / "mine.jsonl"
    foreign.write_text('{"query_id": "q1"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match="never overwritten"):
        run(openai_server, output=foreign)
    assert foreign.read_text(encoding="utf-8") == '{"query_id": "q1"}\n'
    out = tmp_path / "t.jsonl"
    run(openai_server, samples=2, output=out)
    with pytest.raises(ValueError, match="other settings.*seed"):
        run(openai_server, samples=2, output=out, seed=5)
    with pytest.raises(ValueError, match="does not exist"):
        run(openai_server, output=tmp_path / "missing" / "t.jsonl")


# ----------------------------------------------------------------------------------------- uses of a test set
def test_testset_round_trips_and_feeds_the_evaluators(openai_server, tmp_path):
    ranks = {}

    def retriever(query):
        ranks[query] = True
        return ["paris-1", "paris-0", "moscow-0"]

    testset = run(openai_server, retriever=retriever)
    assert {c.retriever_rank for c in testset if c.source_chunk_id == "paris-0"} <= {2}
    assert all(c.retriever_rank is None for c in testset if c.source_chunk_id not in ("paris-0", "paris-1", "moscow-0"))
    path = testset.to_jsonl(tmp_path / "t.jsonl")
    with pytest.raises(FileExistsError):
        testset.to_jsonl(path)
    back = TestSet.from_jsonl(path)
    assert [c.to_dict() for c in back] == [c.to_dict() for c in testset]
    qrels = back.to_qrels()
    run_ids = {c.query_id: [c.source_chunk_id] for c in back}
    assert evaluate(qrels, run_ids, ["recall@1"]).mean["recall@1"] == 1.0
    rows = back.to_rows()
    assert rows[0] == {"query_id": back[0].query_id, "query": back[0].query, "expected_ids": back[0].relevant_chunk_ids}
    example = back.to_langsmith_examples()[0]
    assert example["inputs"] == {"question": back[0].query}
    assert example["outputs"]["expected_ids"] == back[0].relevant_chunk_ids
    bad = tmp_path / "bad.jsonl"
    bad.write_text(path.read_text(encoding="utf-8") + '{"query_id": "x"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad.jsonl:9: field 'query' must be a non-empty string"):
        TestSet.from_jsonl(bad)


def test_a_wrong_key_stops_the_run_with_a_named_error(openai_server):
    from rag_eval_adapters.modelcalls import ModelCallError

    wrong = OpenAICompatibleLLM("gpt-4o-mini", base_url=openai_server.base_url, api_key="wrong-key")
    with pytest.raises(ModelCallError, match="HTTP 401") as info:
        generate_testset(sentence_chunks(), wrong, samples=8, min_chunk_chars=10, max_concurrency=1)
    assert info.value.status_code == 401 and len(openai_server.chat_requests) <= 2


def test_concurrency_is_bounded(openai_server):
    openai_server.latency = 0.05
    testset = run(openai_server, samples=8, max_concurrency=2)
    assert len(testset) == 8 and 1 <= openai_server.max_in_flight <= 2


def test_several_questions_per_chunk_get_distinct_ids(openai_server):
    chunk = chunk_with("capital of France")
    openai_server.handler = lambda body: json.dumps({"questions": [
        {"question": "Which city is the capital of France?", "answer": "Paris", "evidence": "Paris is the capital of France"},
        {"question": "What is the largest French city?", "answer": "Paris", "evidence": "its largest city"},
        {"question": "A third question nobody asked for?", "answer": "x", "evidence": "Paris"}]})
    testset = run(openai_server, [chunk], samples=2, per_chunk=2, types=["literal"])
    assert len(testset) == 2 and len({c.query_id for c in testset}) == 2 and testset.summary["dropped"] == {}
    assert [c.evidence for c in testset] == ["Paris is the capital of France", "its largest city"]
    assert len(openai_server.chat_requests) == 1 and "Write 2 question(s)" in openai_server.chat_requests[0].prompt


def test_langsmith_examples_match_the_sdk_schema(openai_server):
    schemas = pytest.importorskip("langsmith.schemas")
    for example in run(openai_server, samples=2).to_langsmith_examples():
        with warnings.catch_warnings():  # newer langsmith versions call `outputs` `reference_outputs` too
            warnings.simplefilter("ignore", DeprecationWarning)
            created = schemas.ExampleCreate(**example)
        assert created.inputs == example["inputs"] and created.outputs["expected_ids"]


def test_bad_arguments_are_refused(openai_server):
    with pytest.raises(ValueError, match="types must be"):
        run(openai_server, types=["trivia"])
    with pytest.raises(ValueError, match="samples"):
        run(openai_server, samples=0)
    with pytest.raises(TypeError, match="llm must be"):
        generate_testset(sentence_chunks(), object())
    with pytest.raises(ValueError, match="duplicate chunk id"):
        generate_testset([{"chunk_id": "a", "text": "x"}, {"chunk_id": "a", "text": "y"}], llm(openai_server))
    with pytest.raises(ValueError, match="question type"):
        build_messages("text", "trivia", 1)
