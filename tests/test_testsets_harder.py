"""Multi-hop and unanswerable test cases: the case model, and their generation verified against the local
OpenAI-compatible server (good, malformed and adversarial replies) in English, Russian and Chinese."""

from __future__ import annotations

import json
import re

import pytest

pytest.importorskip("openai")

from rag_eval_adapters.modelcalls import ScriptedChatLLM
from rag_eval_adapters.testsets import (
    QUESTION_TYPES,
    SINGLE_CHUNK_TYPES,
    OpenAICompatibleLLM,
    TestCase,
    describe_shortfall,
    generate_testset,
    read_testset,
)

FILM = {
    "film": "The film Northern Lights was directed by Anna Berg. It premiered at the Venice festival in 2004.",
    "berg": "Anna Berg was born in Uppsala in 1961. She studied painting in Stockholm before turning to cinema.",
    "rock": "Basalt is a dark volcanic rock. It forms when lava cools quickly at the surface of the earth.",
}
RU = {
    "film": "Фильм «Северное сияние» снял режиссёр Анна Берг. Премьера прошла на фестивале в Венеции в 2004 году.",
    "berg": "Анна Берг родилась в Уппсале в 1961 году. Она изучала живопись в Стокгольме, а потом пришла в кино.",
}
ZH = {
    "film": "电影《北极光》由导演安娜执导。这部电影于二零零四年在威尼斯电影节首映。",
    "berg": "安娜出生于乌普萨拉，她年轻时学习绘画。后来她转向电影创作并获得多个奖项。",
}


def chunks_of(docs):
    return [{"chunk_id": doc_id, "text": text, "doc_id": doc_id, "start": 0} for doc_id, text in docs.items()]


def prompt_parts(body):
    text = "\n".join(m["content"] for m in body["messages"] if isinstance(m.get("content"), str))
    kind = re.search(r"Question type: (\w+)", text)
    first = re.search(r"<chunk>\n(.*?)\n</chunk>", text, re.S)
    second = re.search(r"<chunk2>\n(.*?)\n</chunk2>", text, re.S)
    return (kind.group(1) if kind else ""), (first.group(1) if first else ""), (second.group(1) if second else "")


def first_sentence(text):
    return re.split(r"(?<=[.。])\s*", text)[0]


def words(text, n):
    if re.search(r"[\u4e00-\u9fff]", text):
        return re.sub(r"[^\u4e00-\u9fff]", "", text)[:n]
    return " ".join(re.findall(r"\w+", text)[:n])


def good_multi_hop(first, second, **change):
    item = {"question": f"{words(first, 5)} {words(second, 5)}?", "answer": words(second, 6), "hop_type": "bridge",
            "evidence": [first_sentence(first), first_sentence(second)]}
    return json.dumps({"questions": [item | change]}, ensure_ascii=False)


def handler_for(multi_hop=good_multi_hop, unanswerable=None):
    def handle(body):
        kind, first, second = prompt_parts(body)
        if kind == "multi_hop":
            return multi_hop(first, second)
        if kind == "unanswerable" and unanswerable is not None:
            return unanswerable(first)
        return json.dumps({"questions": []})
    return handle


def run(server, docs=FILM, types=("multi_hop",), samples=1, **kwargs):
    llm = OpenAICompatibleLLM("gpt-4o-mini", base_url=server.base_url, api_key=server.api_key)
    return generate_testset(chunks_of(docs), llm, samples=samples, types=types, min_chunk_chars=10,
                            max_concurrency=1, retry_base_delay=0.0, **kwargs)


def only_drop(testset, reason):
    assert len(testset) == 0 and testset.summary["dropped"] == {reason: 1}, testset.summary["dropped"]
    assert reason in describe_shortfall(testset.summary)


# --------------------------------------------------------------------------------------- the case model
def test_old_lines_read_as_before_and_write_no_new_field():
    old = {"query_id": "q1", "query": "what buried Pompeii?", "answer": "Vesuvius", "query_type": "literal",
           "evidence": "The eruption of Vesuvius buried Pompeii"}
    (case,) = read_testset([old])
    assert (case.answerable, case.hop_type, case.confirmed_by, case.source_chunk_ids) == (True, None, [], [])
    written = case.to_dict()
    assert not {"answerable", "hop_type", "confirmed_by", "source_chunk_ids"} & set(written)
    assert SINGLE_CHUNK_TYPES + ("multi_hop", "unanswerable") == QUESTION_TYPES


def test_unanswerable_and_multi_hop_lines_round_trip():
    records = [
        {"query_id": "u1", "query": "When was the Louvre founded?", "query_type": "unanswerable",
         "answerable": False, "confirmed_by": ["lexical", "judge"], "evidence": "", "relevant_chunk_ids": []},
        {"query_id": "u2", "query": "How tall is the Louvre?", "query_type": "unanswerable"},  # answerable implied
        {"query_id": "m1", "query": "Where was the director of Northern Lights born?", "query_type": "multi_hop",
         "hop_type": "bridge", "evidence": ["directed by Anna Berg", "Anna Berg was born in Uppsala"],
         "relevant_chunk_ids": ["film", "berg"], "source_chunk_ids": ["film", "berg"]},
    ]
    cases = read_testset(records).cases
    assert [c.answerable for c in cases] == [False, False, True]
    assert cases[0].confirmed_by == ["lexical", "judge"] and cases[2].hop_type == "bridge"
    assert cases[2].texts == ["directed by Anna Berg", "Anna Berg was born in Uppsala"]
    assert read_testset([c.to_dict() for c in cases]).cases == cases
    assert cases[0].to_dict()["answerable"] is False


@pytest.mark.parametrize(("record", "message"), [
    ({"query_type": "unanswerable", "answerable": True}, "'answerable' must be false for query_type 'unanswerable'"),
    ({"query_type": "literal", "answerable": False, "evidence": "x y z"}, "'answerable' must be true for query_type"),
    ({"query_type": "unanswerable", "evidence": "the Seine flows"}, "an 'unanswerable' question has no evidence"),
    ({"query_type": "multi_hop", "evidence": ["a b c", "d e f"]}, "'hop_type' must be one of bridge, comparison"),
    ({"query_type": "literal", "hop_type": "bridge", "evidence": "a b c"}, "'hop_type' is for multi_hop"),
    ({"query_type": "unanswerable", "answerable": "no"}, "'answerable' must be true or false"),
    ({"query_type": "unanswerable", "confirmed_by": ["oracle"]}, "'confirmed_by' holds 'oracle'"),
])
def test_a_bad_harder_line_is_named(record, message):
    with pytest.raises(ValueError, match=re.escape(message)) as raised:
        read_testset([{"query_id": "q", "query": "why?"} | record])
    assert str(raised.value).startswith("testset[0]")


# --------------------------------------------------------------------------------------- multi-hop
def test_multi_hop_case_has_one_quote_per_chunk_located_in_the_documents(openai_server):
    openai_server.handler = handler_for()
    testset = run(openai_server)
    (case,) = testset.cases
    assert case.query_type == "multi_hop" and case.hop_type == "bridge" and case.answerable
    assert set(case.source_chunk_ids) == {"film", "berg"} and set(case.relevant_chunk_ids) == {"film", "berg"}
    assert case.texts == [first_sentence(FILM[c]) for c in case.source_chunk_ids]
    assert sorted(FILM[s.doc_id][s.start:s.end] for s in case.evidence_spans) == sorted(case.texts)
    assert case.query_id.startswith("mul-")
    prompt = openai_server.chat_requests[0].prompt
    assert "<chunk2>" in prompt and FILM["film"] in prompt and FILM["berg"] in prompt  # paired by "Anna Berg"
    assert read_testset([case.to_dict()]).cases == [case]


def test_one_chunks_quote_given_twice_is_dropped(openai_server):
    openai_server.handler = handler_for(lambda a, b: good_multi_hop(a, b, evidence=[first_sentence(a)] * 2))
    only_drop(run(openai_server), "single_chunk_evidence")


def test_both_quotes_from_one_chunk_are_dropped(openai_server):
    two = re.split(r"(?<=\.)\s+", FILM["film"])
    openai_server.handler = handler_for(lambda a, b: good_multi_hop(a, b, evidence=two if "Northern" in a else
                                                                    re.split(r"(?<=\.)\s+", FILM["berg"])))
    only_drop(run(openai_server), "single_chunk_evidence")


def test_a_quote_from_a_third_chunk_is_dropped(openai_server):
    openai_server.handler = handler_for(lambda a, b: good_multi_hop(
        a, b, evidence=[first_sentence(a), "Basalt is a dark volcanic rock."]))
    only_drop(run(openai_server), "evidence_outside_pair")


def test_a_quote_from_nowhere_is_not_found(openai_server):
    openai_server.handler = handler_for(lambda a, b: good_multi_hop(
        a, b, evidence=[first_sentence(a), "The moon is made of green cheese."]))
    only_drop(run(openai_server), "evidence_not_found")


def test_a_question_one_chunk_answers_is_dropped(openai_server):
    # "Who directed Northern Lights?" is answered by the film chunk alone, whatever the second quote
    openai_server.handler = handler_for(lambda a, b: good_multi_hop(
        a, b, question="Who directed the film Northern Lights?", answer="Anna Berg"))
    only_drop(run(openai_server), "single_chunk_answerable")


@pytest.mark.parametrize(("change", "reason"), [
    ({"hop_type": "sequential"}, "bad_hop_type"),
    ({"evidence": "directed by Anna Berg"}, "evidence_count"),
    ({"answer": ""}, "empty_answer"),
    ({"question": "Sure! Here is a question:"}, "preamble"),
])
def test_malformed_multi_hop_items_are_dropped_by_reason(openai_server, change, reason):
    openai_server.handler = handler_for(lambda a, b: good_multi_hop(a, b, **change))
    only_drop(run(openai_server), reason)


def test_a_reply_that_is_not_json_is_repaired_once_then_dropped(openai_server):
    openai_server.handler = handler_for(lambda a, b: "I would ask about the director.")
    only_drop(run(openai_server), "unparseable")
    assert len(openai_server.chat_requests) == 2


def test_a_chunk_sharing_no_term_is_not_paired_and_sends_nothing(openai_server):
    docs = {"a": "Basalt is a dark volcanic rock formed from lava.", "b": "Violins have four strings tuned in fifths."}
    testset = run(openai_server, docs=docs)
    only_drop(testset, "no_pair")
    assert openai_server.chat_requests == []


def test_a_judge_that_finds_one_chunk_enough_drops_the_question(openai_server):
    openai_server.handler = handler_for()
    judge = ScriptedChatLLM(lambda messages: '{"answers": true}')
    only_drop(run(openai_server, judge=judge), "single_chunk_answerable")
    assert judge.calls and "<passage>" in judge.calls[0][-1]["content"]
    judge = ScriptedChatLLM(lambda messages: '{"answers": false}')
    assert len(run(openai_server, judge=judge)) == 1 and len(judge.calls) == 2  # one verdict per chunk


# --------------------------------------------------------------------------------------- unanswerable
def ask(question, missing="the date"):
    return lambda chunk: json.dumps({"questions": [{"question": question, "missing": missing}]}, ensure_ascii=False)


def test_an_unanswerable_question_is_confirmed_and_recorded(openai_server):
    openai_server.handler = handler_for(unanswerable=ask("How long is the running time of Northern Lights?"))
    testset = run(openai_server, types=("unanswerable",))
    (case,) = testset.cases
    assert (case.query_type, case.answerable, case.evidence, case.relevant_chunk_ids) == ("unanswerable", False, "", [])
    assert case.confirmed_by == ["lexical"] and case.extra == {"missing": "the date"}
    assert case.query_id.startswith("una-") and testset.to_qrels()[case.query_id] == {}
    line = case.to_dict()
    assert line["answerable"] is False and line["confirmed_by"] == ["lexical"]
    assert read_testset([line]).cases == [case]


def test_an_unanswerable_question_answered_elsewhere_in_the_corpus_is_dropped(openai_server):
    # written about any chunk, but the berg chunk answers it: BM25 finds that chunk among the candidates
    openai_server.handler = handler_for(unanswerable=ask("Where was Anna Berg born?"))
    only_drop(run(openai_server, types=("unanswerable",)), "answer_in_corpus")


def test_the_judge_and_the_embedder_confirm_or_refute(openai_server):
    openai_server.handler = handler_for(unanswerable=ask("How long is the running time of Northern Lights?"))
    yes, no = (ScriptedChatLLM(lambda m, v=v: f'{{"answers": {v}}}') for v in ("true", "false"))
    only_drop(run(openai_server, types=("unanswerable",), judge=yes), "answer_in_corpus")
    (case,) = run(openai_server, types=("unanswerable",), judge=no).cases
    assert case.confirmed_by == ["lexical", "judge"]

    class Embedder:  # every question close to the rock chunk (a unit vector), far from the others
        name = "fake"

        def embed_passages(self, texts):
            return [[1.0, 0.0] if "Basalt" in t else [0.0, 1.0] for t in texts]

        def embed_queries(self, texts):
            return [[1.0, 0.0] if "rock" in t else [0.6, 0.8] for t in texts]

    (case,) = run(openai_server, types=("unanswerable",), embedder=Embedder()).cases
    assert case.confirmed_by == ["lexical", "embedding"]
    openai_server.handler = handler_for(unanswerable=ask("How old is the rock of Northern Lights?"))
    only_drop(run(openai_server, types=("unanswerable",), embedder=Embedder()), "answer_in_corpus")


# --------------------------------------------------------------------------------------- languages and mixes
@pytest.mark.parametrize("docs", [RU, ZH], ids=["ru", "zh"])
def test_russian_and_chinese_corpora_give_located_multi_hop_and_unanswerable(openai_server, docs):
    question = "Сколько длится фильм «Северное сияние»?" if docs is RU else "这部电影的片长是多少分钟？"
    openai_server.handler = handler_for(unanswerable=ask(question))
    testset = run(openai_server, docs=docs, types=("multi_hop", "unanswerable"), samples=2)
    assert testset.summary["dropped"] == {}
    hop, none = sorted(testset.cases, key=lambda c: c.query_type)
    assert (hop.query_type, none.query_type) == ("multi_hop", "unanswerable")
    assert hop.language == none.language == ("ru" if docs is RU else "zh")
    assert sorted(docs[s.doc_id][s.start:s.end] for s in hop.evidence_spans) == sorted(hop.texts)
    assert all(text in docs[cid] for text, cid in zip(hop.texts, hop.source_chunk_ids, strict=True))
    assert none.confirmed_by == ["lexical"] and not none.answerable


def test_types_mix_with_single_chunk_ones_and_are_counted(openai_server):
    def handle(body):
        kind, first, _ = prompt_parts(body)
        if kind in SINGLE_CHUNK_TYPES:
            sentence = first_sentence(first)
            return json.dumps({"questions": [{"question": words(sentence, 6) + "?", "answer": sentence,
                                              "evidence": sentence}]})
        return handler_for(unanswerable=ask("How long is the running time of Northern Lights?"))(body)

    openai_server.handler = handle
    docs = FILM | {"lava": "Lava from the volcano Etna reached the sea at Catania in 1669, destroying the walls."}
    testset = run(openai_server, docs=docs, types="literal,multi_hop,unanswerable", samples=3)
    assert sorted(c.query_type for c in testset) == ["literal", "multi_hop", "unanswerable"], testset.summary
    assert testset.summary["generated"] + sum(testset.summary["dropped"].values()) == 3
    assert set(testset.summary["lexical_overlap_by_type"]) == {"literal", "multi_hop", "unanswerable"}


def test_default_types_stay_the_single_chunk_ones(openai_server):
    testset = generate_testset(chunks_of(FILM), OpenAICompatibleLLM(
        "gpt-4o-mini", base_url=openai_server.base_url, api_key=openai_server.api_key), samples=3, min_chunk_chars=10)
    assert {c.query_type for c in testset} == set(SINGLE_CHUNK_TYPES)
    assert all(isinstance(c, TestCase) and c.answerable for c in testset)


# --------------------------------------------------------------------------------------- the command
def _generate(openai_server, tmp_path, monkeypatch, *options):
    """``rag-eval generate`` on FILM's chunks against the local server (asked unanswerable questions about the
    film's running time): exit code, stdout, stderr."""
    import io

    from rag_eval_adapters.cli import main

    corpus = tmp_path / "chunks.jsonl"
    corpus.write_text("".join(json.dumps(c) + "\n" for c in chunks_of(FILM)), encoding="utf-8")
    openai_server.handler = handler_for(unanswerable=ask("How long is the running time of Northern Lights?"))
    monkeypatch.setenv("OPENAI_API_KEY", openai_server.api_key)
    out, err = io.StringIO(), io.StringIO()
    code = main(["generate", "--documents", str(corpus), "--llm-base-url", openai_server.base_url, *map(str, options)],
                stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_rag_eval_generate_types_multi_hop_unanswerable(openai_server, tmp_path, monkeypatch):
    code, out, err = _generate(openai_server, tmp_path, monkeypatch, "--llm-model", "gpt-4o-mini",
                               "--min-chunk-chars", "10", "--samples", "3", "--types", "multi_hop,unanswerable",
                               "--check-embedder", "none", "--output", tmp_path / "t.jsonl")
    assert code == 0, err
    summary = json.loads(out)
    cases = read_testset(tmp_path / "t.jsonl").cases
    assert sorted(c.query_type for c in cases) == ["multi_hop", "unanswerable"]
    assert summary["dropped"] == {"no_pair": 1}  # film+berg is asked once; the rock chunk shares no rare term
    assert "no_pair 1" in err
    code, _, err = _generate(openai_server, tmp_path, monkeypatch, "--llm-model", "m", "--types", "multi_hop,trivia",
                             "--output", tmp_path / "u.jsonl")
    assert code == 2 and "multi_hop, unanswerable" in err


def test_rag_eval_generate_checks_unanswerable_with_the_named_embedder(openai_server, tmp_path, monkeypatch):
    code, _, err = _generate(openai_server, tmp_path, monkeypatch, "--llm-model", "gpt-4o-mini",
                             "--min-chunk-chars", "10", "--samples", "1", "--types", "unanswerable",
                             "--check-embedder", "openai:text-embedding-3-small", "--output", tmp_path / "t.jsonl")
    assert code == 0, err
    (case,) = read_testset(tmp_path / "t.jsonl").cases
    assert case.confirmed_by == ["lexical", "embedding"]
    assert openai_server.embedding_requests  # the chunks and the question were embedded


def test_the_docs_state_the_checks_thresholds():
    from pathlib import Path

    from rag_eval_adapters.testsets import ALONE_QUESTION_COVERAGE, ANSWERED_COVERAGE, CANDIDATES, DROP_REASONS

    docs = (Path(__file__).resolve().parents[1] / "docs" / "testsets.md").read_text(encoding="utf-8")
    assert f"at least {ALONE_QUESTION_COVERAGE:.0%} (`ALONE_QUESTION_COVERAGE`)" in docs
    assert f"{ANSWERED_COVERAGE:.0%} (`ANSWERED_COVERAGE`)" in docs
    assert f"top {CANDIDATES} BM25 candidates (`CANDIDATES`)" in docs
    for reason in DROP_REASONS:
        assert f"`{reason}`" in docs, reason


def test_a_failing_judge_drops_as_call_failed_and_a_wrong_key_stops(openai_server):
    from rag_eval_adapters.modelcalls import ModelCallError

    openai_server.handler = handler_for(unanswerable=ask("How long is the running time of Northern Lights?"))
    broken = ScriptedChatLLM(lambda messages: 500)
    testset = run(openai_server, types=("multi_hop", "unanswerable"), samples=2, judge=broken, max_retries=0)
    assert len(testset) == 0 and testset.summary["dropped"] == {"call_failed": 2}
    with pytest.raises(ModelCallError, match="401"):
        run(openai_server, types=("unanswerable",), judge=ScriptedChatLLM(lambda messages: 401))


def test_a_rerun_with_the_same_output_resumes_harder_types_without_calls(openai_server, tmp_path):
    openai_server.handler = handler_for(unanswerable=ask("How long is the running time of Northern Lights?"))
    output = tmp_path / "t.jsonl"
    first = run(openai_server, types=("multi_hop", "unanswerable"), samples=2, output=output)
    calls = len(openai_server.chat_requests)
    again = run(openai_server, types=("multi_hop", "unanswerable"), samples=2, output=output)
    assert len(openai_server.chat_requests) == calls and again.summary["resumed_cases"] == 2
    assert again.cases == first.cases == read_testset(output).cases


def test_the_docs_show_the_harder_prompts_verbatim():
    from pathlib import Path

    from rag_eval_adapters.testsets import MULTI_HOP_PROMPT, UNANSWERABLE_PROMPT

    docs = (Path(__file__).resolve().parents[1] / "docs" / "testsets.md").read_text(encoding="utf-8")
    assert MULTI_HOP_PROMPT in docs and UNANSWERABLE_PROMPT in docs
