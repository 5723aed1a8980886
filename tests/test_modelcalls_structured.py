"""The shared model-call helpers through the public API: the scripted fake chat model, one structured JSON call
with one bounded repair (judges and generator alike), context managers, and a grade of the wrong type."""

from __future__ import annotations

import json

import pytest

from rag_eval_adapters.judges import LLMJudge
from rag_eval_adapters.modelcalls import (
    REPAIR_EXCERPT_CHARS,
    Completion,
    InMemoryCache,
    ScriptedChatLLM,
    ScriptedHTTPError,
    SqliteCache,
    ask_json,
    estimate_tokens,
)
from rag_eval_adapters.testsets import generate_testset

GRADE = '{"reasoning": "on topic", "grade": 3}'
ITEM = {"query": "How deep is Lake Baikal?", "passage": "Lake Baikal is more than 1,600 metres deep."}
CHUNK = {"chunk_id": "c1", "doc_id": "lakes.txt", "start": 0,
         "text": "Lake Baikal in Siberia is the deepest lake in the world, at more than 1,600 metres."}
CASE = json.dumps({"questions": [{"question": "Which lake is the deepest in the world?", "answer": "Lake Baikal",
                                  "evidence": "Lake Baikal in Siberia is the deepest lake in the world"}]})


def judge(llm: ScriptedChatLLM) -> LLMJudge:
    return LLMJudge(llm, max_concurrency=1, retry_base_delay=0.0, progress=False)


def test_scripted_llm_replies_in_order_records_calls_and_counts_tokens():
    llm = ScriptedChatLLM(["first", Completion("second", input_tokens=7, output_tokens=2)], name="fake")
    one = llm.chat([{"role": "user", "content": "12345678"}], seed=3)
    two = llm.chat([{"role": "user", "content": "again"}])
    assert (one.text, one.input_tokens, one.output_tokens) == ("first", 2, estimate_tokens("first"))
    assert two == Completion("second", input_tokens=7, output_tokens=2)
    assert [m[0]["content"] for m in llm.calls] == ["12345678", "again"]
    assert llm.call_kwargs == [{"seed": 3}, {}]
    with pytest.raises(RuntimeError, match="the script has 2 replies and call 3"):
        llm.chat([{"role": "user", "content": "more"}])


def test_scripted_llm_from_a_function_and_with_injected_errors():
    echo = ScriptedChatLLM(lambda messages: messages[-1]["content"].upper())
    assert echo.chat([{"role": "user", "content": "abc"}]).text == "ABC"
    failing = ScriptedChatLLM([429, ValueError("boom"), "ok"])
    with pytest.raises(ScriptedHTTPError) as caught:
        failing.chat([])
    assert caught.value.status_code == 429
    with pytest.raises(ValueError, match="boom"):
        failing.chat([])
    assert failing.chat([]).text == "ok"


def test_a_scripted_429_is_retried_by_the_judge_and_a_401_stops_it():
    llm = ScriptedChatLLM([429, GRADE])
    result = judge(llm).judge_many("relevance", [ITEM])[0]
    assert (result.grade, len(llm.calls)) == (3, 2)
    from rag_eval_adapters.modelcalls import ModelCallError

    with pytest.raises(ModelCallError) as caught:
        judge(ScriptedChatLLM([401])).judge_many("relevance", [ITEM, dict(ITEM, query="Where is Baikal?")])
    assert caught.value.status_code == 401


def test_models_and_caches_are_context_managers(tmp_path):
    with ScriptedChatLLM(["x"]) as llm:
        assert not llm.closed
    assert llm.closed
    with pytest.raises(RuntimeError, match="closed"):
        llm.chat([])
    with SqliteCache(tmp_path / "c.sqlite") as cache:
        cache.set_many({"k": 1})
    with pytest.raises(Exception, match="closed"):
        cache.get_many(["k"])
    with SqliteCache(tmp_path / "c.sqlite") as again, InMemoryCache() as memory:
        assert again.get_many(["k"]) == {"k": 1} and len(memory) == 0


def test_openai_models_close_their_connections():
    pytest.importorskip("openai")
    from rag_eval_adapters.modelcalls import OpenAICompatibleLLM, OpenAIEmbedder

    with OpenAICompatibleLLM("m", base_url="http://127.0.0.1:9/v1") as llm:
        client = llm._client
    assert client.is_closed()
    with OpenAIEmbedder("e", base_url="http://127.0.0.1:9/v1", api_key="k") as embedder:
        own = embedder.client
    assert own.is_closed()
    import openai

    given = openai.OpenAI(base_url="http://127.0.0.1:9/v1", api_key="k")
    with OpenAIEmbedder("e", client=given):
        pass
    assert not given.is_closed()  # a client given to the embedder is its owner's to close
    given.close()


def test_the_judges_repair_request_sends_back_a_bounded_excerpt_of_a_huge_bad_reply():
    garbage = "x" * 6_000_000
    llm = ScriptedChatLLM([garbage, GRADE])
    result = judge(llm).judge_many("relevance", [ITEM])[0]
    assert result.grade == 3
    repair = llm.calls[1]
    sent = sum(len(m["content"]) for m in repair)
    assert sent < sum(len(m["content"]) for m in llm.calls[0]) + REPAIR_EXCERPT_CHARS + 1000
    assert "characters left out" in repair[-2]["content"]


def test_the_generators_repair_request_sends_back_a_bounded_excerpt_too():
    llm = ScriptedChatLLM(["y" * 3_000_000, CASE])
    testset = generate_testset([CHUNK], llm, samples=1, min_chunk_chars=10, max_concurrency=1)
    assert testset.summary["generated"] == 1
    assert len(llm.calls[1][-2]["content"]) <= REPAIR_EXCERPT_CHARS + 100


@pytest.mark.parametrize("bad", ["true", "false", "7", "\"high\""])
def test_a_grade_outside_its_type_or_scale_gets_the_repair_call(bad):
    llm = ScriptedChatLLM([f'{{"reasoning": "r", "grade": {bad}}}', GRADE])
    result = judge(llm).judge_many("relevance", [ITEM])[0]
    assert (result.grade, len(llm.calls)) == (3, 2)
    assert "grade" in llm.calls[1][-1]["content"]


def test_a_grade_of_true_twice_is_unmeasured_with_the_reason():
    llm = ScriptedChatLLM(['{"grade": true}', '{"grade": true}'])
    result = judge(llm).judge_many("relevance", [ITEM])[0]
    assert result.score is None and result.unmeasured == "invalid_output"
    assert "a number is expected, not true" in result.detail


def test_ask_json_refusal_gets_no_repair_and_a_bad_repair_is_invalid_output():
    def read(text: str) -> dict:
        value = json.loads(text) if text.startswith("{") else None
        if not isinstance(value, dict):
            raise ValueError("no JSON object")
        return value

    def chat_of(llm):
        return lambda messages, what: llm.chat(messages)

    repair = lambda messages, excerpt, problem: [*messages, {"role": "user", "content": problem}]  # noqa: E731
    refusing = ScriptedChatLLM(["I'm sorry, I cannot help with that."])
    got = ask_json(chat_of(refusing), [{"role": "user", "content": "q"}], read, repair, "test")
    assert (got.reason, len(refusing.calls)) == ("refusal", 1)
    twice = ScriptedChatLLM(["nope", "still nope"])
    got = ask_json(chat_of(twice), [{"role": "user", "content": "q"}], read, repair, "test")
    assert got.reason == "invalid_output" and got.texts == ("nope", "still nope")
    assert twice.calls[1][-1]["content"] == "no JSON object"
