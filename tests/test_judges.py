"""The LLM judges through the real openai SDK against the local server playing a judge."""

from __future__ import annotations

import json
import math
import warnings

import pytest

pytest.importorskip("openai")

from openai_server import FakeOpenAIServer, fail, refusal, reply, slow

from rag_eval_adapters.judges import (
    CLAIMS_PROMPT,
    PROMPT_VERSION,
    RELEVANCE_PROMPT,
    UNMEASURED_REASONS,
    VERIFY_PROMPT,
    JudgeResult,
    LLMJudge,
    cohen_kappa,
    self_preference_warning,
)
from rag_eval_adapters.modelcalls import InMemoryCache, ModelCallError, Prices
from rag_eval_adapters.testsets import Completion, OpenAICompatibleLLM

CONTEXT = {
    "fr-1": "Paris is the capital of France and its largest city.   The Seine flows through the centre of Paris.",
    "fr-2": "The Louvre is the most visited museum in the world.",
}
ANSWER = "Paris is the capital of France. The Louvre is the most visited museum in the world. Paris has ten million trees."


def llm(server, model="judge-model", **kwargs):
    return OpenAICompatibleLLM(model, base_url=server.base_url, api_key=server.api_key, **kwargs)


def make(server, **kwargs):
    options = {"retry_base_delay": 0.0, "max_concurrency": 4, **kwargs}
    return LLMJudge(llm(server), **options)


def prompts_of(server, system):
    return [r for r in server.chat_requests if r.body["messages"][0]["content"] == system]


# ----------------------------------------------------------------------------------------- the three judges
def test_relevance_grades_on_the_0_to_3_scale(judge_server):
    judge = make(judge_server)
    cases = [("capital of France", "Paris is the capital of France.", 3),
             ("capital of Germany", "Paris is the capital of France.", 2),
             ("capital of Spain Madrid Iberia", "Paris is the capital of France.", 1),
             ("bananas", "Paris is the capital of France.", 0)]
    for query, passage, grade in cases:
        result = judge.relevance(query, passage)
        assert (result.grade, result.score, result.measured) == (grade, grade / 3, True)
    assert all(r.body["messages"][0]["content"] == RELEVANCE_PROMPT for r in judge_server.chat_requests)


def test_faithfulness_keeps_claims_verdicts_and_located_quotes(judge_server):
    result = make(judge_server).faithfulness(ANSWER, CONTEXT, question="Tell me about Paris")
    assert result.score == pytest.approx(2 / 3)
    first, second, third = result.claims
    assert (first.verdict, first.chunk_id, second.verdict, second.chunk_id, third.verdict) == (
        "supported", "fr-1", "supported", "fr-2", "not_found")
    for claim in (first, second):  # the quote is the chunk's own text at the recorded offsets
        assert CONTEXT[claim.chunk_id][claim.start:claim.end] == claim.quote
    assert first.quote == "Paris is the capital of France" and second.start == 0
    assert json.loads(json.dumps(result.to_dict()))["claims"][2]["verdict"] == "not_found"


def test_a_contradicted_claim_counts_against_the_answer(judge_server):
    result = make(judge_server).faithfulness("The Louvre is not the most visited museum in the world.", CONTEXT)
    assert result.score == 0.0 and result.claims[0].verdict == "contradicted" and result.claims[0].chunk_id == "fr-2"


def test_a_supported_verdict_without_its_quote_in_the_context_is_not_found(judge_server):
    judge_server.on_prompt(VERIFY_PROMPT, reply(json.dumps({"verdicts": [
        {"claim": 1, "verdict": "supported", "chunk_id": "fr-1", "quote": "Paris was founded by the Romans"}]})))
    result = make(judge_server).faithfulness("Paris is the capital of France.", CONTEXT)
    assert result.score == 0.0 and result.claims[0].verdict == "not_found" and "quote" in result.claims[0].note


def test_a_quote_found_in_another_chunk_than_the_one_named_is_kept_there(judge_server):
    judge_server.on_prompt(VERIFY_PROMPT, reply(json.dumps({"verdicts": [
        {"claim": 1, "verdict": "supported", "chunk_id": "fr-1", "quote": "the most  visited museum"}]})))
    claim = make(judge_server).faithfulness("The Louvre is the most visited museum.", CONTEXT).claims[0]
    assert (claim.verdict, claim.chunk_id, claim.quote) == ("supported", "fr-2", "the most visited museum")
    assert CONTEXT["fr-2"][claim.start:claim.end] == claim.quote


def test_correctness_is_the_f1_of_claim_precision_and_recall(judge_server):
    reference = "Paris is the capital of France. The Seine flows through Paris."
    result = make(judge_server).correctness("Paris is the capital of France. Paris has a zoo.", reference)
    assert result.parts == {"precision": 0.5, "recall": 0.5, "f1": 0.5} and result.score == 0.5
    assert [c.verdict for c in result.claims] == ["supported", "not_found"]
    assert [c.verdict for c in result.reference_claims] == ["supported", "not_found"]
    assert result.claims[0].chunk_id == "reference" and result.reference_claims[0].chunk_id == "answer"
    none_right = make(judge_server).correctness("Bananas are yellow.", reference)
    assert none_right.score == 0.0 and none_right.parts["f1"] == 0.0


def test_russian_and_chinese_claims_quotes_and_verdicts(judge_server):
    judge = make(judge_server)
    ru = judge.faithfulness("Москва является столицей России. Москва не является столицей России! Луна из сыра.",
                            ["Москва является столицей России и крупнейшим городом страны."],
                            question="Что такое Москва?")
    assert [c.verdict for c in ru.claims] == ["supported", "contradicted", "not_found"]
    assert ru.claims[0].quote == "Москва является столицей России" and ru.score == pytest.approx(1 / 3)
    context = "北京是中华人民共和国的首都，也是全国的政治中心。故宫位于北京市中心。"
    zh = judge.faithfulness("北京是中华人民共和国的首都。故宫不位于北京市中心。长城在上海。", {"zh": context})
    assert [c.verdict for c in zh.claims] == ["supported", "contradicted", "not_found"]
    first = zh.claims[0]
    assert context[first.start:first.end] == first.quote == "北京是中华人民共和国的首都"
    assert judge.relevance("故宫位于北京", context).grade == 3
    claims_request = prompts_of(judge_server, CLAIMS_PROMPT)[0]
    assert "Москва является столицей России. Москва не" in claims_request.prompt  # sent whole, never split by us


# ----------------------------------------------------------------------------------------- a result for every item
def test_every_unmeasured_reason_and_never_nan(judge_server):
    judge = make(judge_server, max_retries=1)
    judge_server.on_prompt("<text>\nRefuse", refusal())
    judge_server.on_prompt("<text>\nGarbled", reply("I think this text has some claims."), reply("still prose"))
    judge_server.on_prompt("<text>\nBroken", fail(500), fail(500))
    items = [
        {"answer": "", "contexts": ["Paris is in France."]},
        {"answer": "Paris is in France.", "contexts": []},
        {"answer": "I don't know.", "contexts": ["Paris is in France."]},
        {"answer": "Refuse this.", "contexts": ["Paris is in France."]},
        {"answer": "Garbled text.", "contexts": ["Paris is in France."]},
        {"answer": "Broken text.", "contexts": ["Paris is in France."]},
        {"answer": "Paris is in France.", "contexts": ["Paris is in France."]},
    ]
    results = judge.judge_many("faithfulness", items)
    assert [r.unmeasured for r in results] == ["empty_answer", "empty_input", "no_claims", "refusal",
                                               "invalid_output", "call_failed", None]
    assert set(UNMEASURED_REASONS) == {r.unmeasured for r in results[:-1]}
    assert results[-1].score == 1.0
    assert all(r.score is None or math.isfinite(r.score) for r in results)
    assert "500" in results[5].detail and "repair" in results[4].detail
    with pytest.raises(ValueError, match="finite"):
        JudgeResult("faithfulness", math.nan)


def test_the_api_refusal_field_is_a_refusal_without_a_repair(judge_server):
    judge_server.queue(refusal())
    result = make(judge_server).relevance("capital of France", "Paris is the capital.")
    assert result.unmeasured == "refusal" and "sorry" in result.detail and len(judge_server.chat_requests) == 1


# ----------------------------------------------------------------------------------------- structured output
GOOD = {"reasoning": "it answers", "grade": 3}


@pytest.mark.parametrize(("first", "repairs", "grade"), [
    ("```json\n" + json.dumps(GOOD) + "\n```", 0, 3),                       # JSON in a code fence
    ("Sure! Here is my grade:\n" + json.dumps(GOOD) + "\nHope it helps.", 0, 3),  # prose around JSON
    ('{"grade": "2", "reasoning": null, "confidence": 0.9}', 0, 2),         # string number, null, extra key
    ('{"score": 1}', 0, 1),                                                  # the usual other name
    ("The passage is highly relevant, I would give it a three.", 1, 3),     # prose only
    ('{"reasoning": "it answers", "grade": 3', 1, 3),                        # truncated JSON
    ('{"reasoning": "it answers", "grade": "high"}', 1, 3),                  # wrong type
    ('{"reasoning": "it answers"}', 1, 3),                                   # missing key
    ('{"grade": 7}', 1, 3),                                                  # out of the scale
    ('{"answer": "yes", "relevant": true}', 1, 3),                           # the schema ignored
])
def test_malformed_replies_are_read_or_repaired_once(judge_server, first, repairs, grade):
    judge_server.queue(reply(first), reply(json.dumps(GOOD)))
    result = make(judge_server).relevance("capital of France", "Paris is the capital of France.")
    assert result.grade == grade
    requests = judge_server.chat_requests
    assert len(requests) == 1 + repairs
    if repairs:
        assert requests[1].body["messages"][-2] == {"role": "assistant", "content": first}
        assert "could not be used" in requests[1].body["messages"][-1]["content"]


def test_a_model_that_keeps_ignoring_the_schema_is_unmeasured_after_one_repair(judge_server):
    judge_server.queue(reply('{"answer": "yes"}'), reply('{"answer": "still yes"}'), reply(json.dumps(GOOD)))
    result = make(judge_server).relevance("capital of France", "Paris is the capital of France.")
    assert result.unmeasured == "invalid_output" and "grade" in result.detail
    assert len(judge_server.chat_requests) == 2


def test_verdicts_missing_for_some_claims_get_the_one_repair(judge_server):
    partial = json.dumps({"verdicts": [{"claim": 1, "verdict": "not_found"}]})
    judge_server.on_prompt(VERIFY_PROMPT, reply(partial))
    result = make(judge_server).faithfulness("Paris is the capital of France. The Louvre is a museum.", CONTEXT)
    verify = prompts_of(judge_server, VERIFY_PROMPT)
    assert len(verify) == 2 and "claims without one: [2]" in verify[1].body["messages"][-1]["content"]
    assert result.claims[0].verdict == "supported"


def test_json_schema_response_format_seed_and_temperature_are_sent(judge_server):
    make(judge_server, seed=7).relevance("capital of France", "Paris is the capital of France.")
    body = judge_server.chat_requests[0].body
    assert body["temperature"] == 0.0 and body["seed"] == 7
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"]["properties"]["grade"]["maximum"] == 3


def test_a_server_without_structured_output_falls_back_to_the_prompt(judge_server):
    judge_server.reject_response_format = True
    judge = make(judge_server)
    with pytest.warns(RuntimeWarning, match="refused response_format \\(HTTP 400\\)"):
        first = judge.relevance("capital of France", "Paris is the capital of France.")
    second = judge.faithfulness("Paris is the capital of France.", CONTEXT)
    assert first.grade == 3 and second.score == 1.0 and judge.describe()["structured_output"] == "prompt"
    statuses = [(r.status, "response_format" in r.body) for r in judge_server.chat_requests]
    assert statuses == [(400, True), (200, False), (200, False), (200, False)]
    assert judge.usage.failures == 0


def test_prompt_mode_sends_no_response_format(judge_server):
    make(judge_server, structured="prompt").relevance("capital of France", "Paris is the capital of France.")
    assert "response_format" not in judge_server.chat_requests[0].body


class PlainLLM:
    """A ChatLLM whose chat takes messages only (a custom or local model wrapper)."""

    def __init__(self, inner):
        self.inner, self.name, self.temperature = inner, inner.name, 0.0

    def chat(self, messages) -> Completion:
        return self.inner.chat(messages)


def test_a_chat_llm_without_keywords_gets_the_schema_in_the_prompt(judge_server):
    judge = LLMJudge(PlainLLM(llm(judge_server)))
    assert judge.relevance("capital of France", "Paris is the capital of France.").grade == 3
    info = judge.describe()
    assert (info["structured_output"], info["temperature"], info["seed"]) == ("prompt", 0.0, None)
    assert "response_format" not in judge_server.chat_requests[0].body
    assert '"grade"' in judge_server.chat_requests[0].body["messages"][0]["content"]
    with pytest.raises(ValueError, match="json_schema"):
        LLMJudge(PlainLLM(llm(judge_server)), structured="json_schema")


# ----------------------------------------------------------------------------------------- paid once, reproducible
ITEMS = [{"question": "What is Paris?", "answer": ANSWER, "contexts": CONTEXT, "reference": "Paris is the capital of France."},
         {"question": "Что такое Москва?", "answer": "Москва является столицей России.",
          "contexts": ["Москва является столицей России."],
          "reference": "Москва является столицей России. Москва стоит на реке Москве."}]


def test_a_rerun_with_the_cache_sends_nothing_and_gives_identical_results(judge_server, tmp_path):
    cache = tmp_path / "judge.sqlite"
    first = make(judge_server, cache=cache).judge_many("answer_correctness", ITEMS)
    sent = len(judge_server.chat_requests)
    assert sent == 8  # four calls an item: two claim lists, two checks
    again = make(judge_server, cache=cache)
    second = again.judge_many("answer_correctness", ITEMS)
    assert len(judge_server.chat_requests) == sent and second == first
    assert again.usage.calls == 0 and again.usage.cache_hits == 8
    faith = make(judge_server, cache=cache).judge_many("faithfulness", ITEMS)
    assert len(judge_server.chat_requests) == sent + 2  # the answers' claims come from the cache
    assert [r.score for r in faith] == [pytest.approx(2 / 3), 1.0]


def test_usage_and_cost_are_summed_from_what_the_server_reported(judge_server):
    judge = make(judge_server, prices=Prices(2.0, 8.0))
    judge.judge_many("faithfulness", ITEMS)
    sent = judge_server.usage_sent
    usage = judge.usage
    assert (usage.calls, usage.input_tokens, usage.output_tokens) == (4, sent["prompt_tokens"], sent["completion_tokens"])
    assert usage.cost == pytest.approx((2.0 * sent["prompt_tokens"] + 8.0 * sent["completion_tokens"]) / 1e6)


def test_dry_run_estimates_calls_and_tokens_without_a_request(judge_server, tmp_path):
    cache = tmp_path / "judge.sqlite"
    judge = make(judge_server, cache=cache, prices=Prices(1.0, 1.0))
    estimate = judge.dry_run("answer_correctness", ITEMS)
    assert judge_server.chat_requests == []
    assert estimate["calls"] == 8 and estimate["cached_calls"] == 0
    assert estimate["estimated_input_tokens"] > 4 * 100 and estimate["estimated_output_tokens"] > 0
    assert estimate["estimated_cost"] == pytest.approx(
        (estimate["estimated_input_tokens"] + estimate["estimated_output_tokens"]) / 1e6)
    judge.judge_many("faithfulness", ITEMS[:1])
    after = judge.dry_run("answer_correctness", ITEMS)
    assert after["cached_calls"] == 1 and after["calls"] == 7  # the first item's answer claims are paid for
    assert judge.dry_run("relevance", [{"query": "q", "passage": "p"}])["calls"] == 1
    assert judge.dry_run("faithfulness", [{"answer": "", "contexts": ["x"]}])["calls"] == 0


class Interrupting:
    """Wraps a ChatLLM; the ``stop_at``-th call raises KeyboardInterrupt (Ctrl-C)."""

    def __init__(self, inner, stop_at):
        self.inner, self.stop_at, self.count = inner, stop_at, 0
        self.name, self.temperature = inner.name, 0.0

    def chat(self, messages, **kwargs) -> Completion:
        self.count += 1
        if self.count == self.stop_at:
            raise KeyboardInterrupt
        return self.inner.chat(messages, **kwargs)


def test_ctrl_c_keeps_what_was_paid_and_a_rerun_resumes(judge_server, tmp_path):
    cache = tmp_path / "judge.sqlite"
    items = [{"query": f"capital of France {i}", "passage": "Paris is the capital of France."} for i in range(6)]
    with pytest.raises(KeyboardInterrupt):
        LLMJudge(Interrupting(llm(judge_server), stop_at=4), cache=cache, max_concurrency=1).judge_many("relevance", items)
    paid = len(judge_server.chat_requests)
    assert 3 <= paid <= 4  # the interrupted call sent nothing; the worker may have started the next item
    resumed = make(judge_server, cache=cache)
    results = resumed.judge_many("relevance", items)
    assert len(judge_server.chat_requests) == 6 and resumed.usage.cache_hits == paid  # nothing paid twice
    assert [r.grade for r in results] == [3] * 6


# ----------------------------------------------------------------------------------------- model calls
def test_429_with_retry_after_and_500_are_retried(judge_server):
    judge_server.queue(fail(429, retry_after="0"), fail(500, retry_after_ms=1))
    judge = make(judge_server)
    assert judge.relevance("capital of France", "Paris is the capital of France.").grade == 3
    assert judge.usage.retries == 2 and [r.status for r in judge_server.chat_requests] == [429, 500, 200]


def test_a_slow_reply_times_out_and_is_retried(judge_server):
    judge_server.queue(slow(2.0))
    judge = make(judge_server, timeout=0.3)
    assert judge.relevance("capital of France", "Paris is the capital of France.").grade == 3
    assert judge.usage.retries == 1


def test_a_wrong_key_stops_the_batch_with_a_named_error(judge_server):
    judge = LLMJudge(OpenAICompatibleLLM("m", base_url=judge_server.base_url, api_key="wrong"), max_retries=0)
    with pytest.raises(ModelCallError, match="401"):
        judge.judge_many("relevance", [{"query": "a", "passage": "b"}, {"query": "c", "passage": "d"}])


def test_concurrency_is_bounded_by_one_limiter(judge_server):
    judge_server.latency = 0.05
    judge = make(judge_server, max_concurrency=3)
    judge.judge_many("relevance", [{"query": f"q {i}", "passage": "p"} for i in range(12)])
    assert judge_server.max_in_flight <= 3 and judge.limiter.max_in_flight == 3


# ----------------------------------------------------------------------------------------- any LLM
def test_llamaindex_and_langchain_models_judge_alike(judge_server):
    pytest.importorskip("llama_index.llms.openai")
    pytest.importorskip("langchain_openai")
    from langchain_openai import ChatOpenAI
    from llama_index.llms.openai import OpenAI

    models = [llm(judge_server, model="gpt-4o-mini"),
              OpenAI(model="gpt-4o-mini", api_base=judge_server.base_url, api_key=judge_server.api_key, max_retries=0),
              ChatOpenAI(model="gpt-4o-mini", base_url=judge_server.base_url, api_key=judge_server.api_key, max_retries=0)]
    results = []
    for model in models:
        judge = LLMJudge(model, retry_base_delay=0.0, seed=3)
        results.append(judge.judge_many("faithfulness", ITEMS))
        assert judge.describe()["structured_output"] == "json_schema" and judge.describe()["seed"] == 3
    assert results[0] == results[1] == results[2]
    assert [r.score for r in results[0]] == [pytest.approx(2 / 3), 1.0]
    for request in judge_server.chat_requests:  # temperature 0, the seed and the schema, whichever client sent it
        body = request.body
        assert (body["temperature"], body["seed"], body["response_format"]["type"]) == (0.0, 3, "json_schema")


class Picky:
    """A ChatLLM whose chat takes keywords in its signature but refuses them when given (TypeError)."""

    def __init__(self, inner):
        self.inner, self.name, self.temperature = inner, inner.name, 0.0

    def chat(self, messages, **request) -> Completion:
        if request:
            raise TypeError(f"chat() got unexpected keyword arguments {sorted(request)}")
        return self.inner.chat(messages)


def test_a_chat_model_refusing_the_keywords_is_asked_again_without_them(judge_server):
    judge = LLMJudge(Picky(llm(judge_server)), retry_base_delay=0.0)
    with pytest.warns(RuntimeWarning, match="refused") as warned:
        result = judge.faithfulness("Paris is the capital of France.", CONTEXT)
    assert result.score == 1.0 and judge.usage.failures == 0 and len(warned) == 2  # schema, then seed/temperature
    info = judge.describe()
    assert (info["structured_output"], info["seed"]) == ("prompt", None)
    assert all("seed" not in r.body and "response_format" not in r.body for r in judge_server.chat_requests)


# ----------------------------------------------------------------------------------------- reports, inputs
def test_describe_names_the_model_prompt_version_and_self_preference(judge_server):
    judge = make(judge_server)
    info = judge.describe(answer_model="openai/Judge-Model-latest")
    assert info["judge_model"] == "judge-model" and info["prompt_version"] == PROMPT_VERSION
    assert "self-preference" in info["warnings"][0]
    assert judge.describe(answer_model="llama-3-8b")["warnings"] == []
    assert self_preference_warning("gpt-4o-2024-08-06", "gpt-4o") is not None
    assert self_preference_warning("gpt-4o", "gpt-4o-mini") is None


def test_bad_items_are_refused_before_any_call(judge_server):
    judge = make(judge_server)
    with pytest.raises(ValueError, match="item 1: no 'prediction' or 'answer'"):
        judge.judge_many("faithfulness", [{"answer": "a", "contexts": ["x"]}, {"contexts": ["x"]}])
    with pytest.raises(TypeError, match="item 0 \\(query 'q7'\\): the text of context 1 must be a string"):
        judge.judge_many("faithfulness", [{"query_id": "q7", "answer": "a", "contexts": [{"text": 3}]}])
    with pytest.raises(TypeError, match="'answer' must be a string"):
        judge.judge_many("answer_correctness", [{"answer": 3, "reference": "x"}])
    with pytest.raises(ValueError, match="metric must be one of"):
        judge.judge_many("helpfulness", [])
    with pytest.raises(ValueError, match="distinct"):
        judge.faithfulness("a", [{"id": "x", "text": "a"}, {"id": "x", "text": "b"}])
    assert judge_server.chat_requests == []


def test_cohen_kappa_matches_its_definition():
    # 10 items: raters agree on 7; chance agreement 0.5 * 0.6 + 0.5 * 0.4 = 0.5 -> kappa 0.4
    first = [1, 1, 1, 1, 1, 0, 0, 0, 0, 0]
    second = [1, 1, 1, 1, 0, 0, 0, 0, 1, 1]
    assert cohen_kappa(first, second) == pytest.approx((0.7 - 0.5) / 0.5)
    assert cohen_kappa([1, 0], [1, 0]) == 1.0 and cohen_kappa([1, 1], [1, 1]) is None and cohen_kappa([], []) is None


def test_an_in_memory_cache_object_and_a_fresh_server_give_the_same_numbers(judge_server):
    cache = InMemoryCache()
    first = make(judge_server, cache=cache).judge_many("faithfulness", ITEMS)
    with FakeOpenAIServer(handler=judge_server.handler) as other, warnings.catch_warnings():
        warnings.simplefilter("error")
        fresh = make(other).judge_many("faithfulness", ITEMS)
    assert first == fresh


def test_the_docs_show_every_prompt_and_the_version():
    from pathlib import Path

    from rag_eval_adapters.judges import REPAIR_PROMPT

    text = (Path(__file__).resolve().parents[1] / "docs" / "judges.md").read_text("utf-8")
    for prompt in (RELEVANCE_PROMPT, CLAIMS_PROMPT, VERIFY_PROMPT, REPAIR_PROMPT):
        assert prompt in text
    assert f"**`{PROMPT_VERSION}`**" in text


def test_the_judge_s_options_are_checked_with_the_package_vocabulary(judge_server):
    with pytest.raises(ValueError, match="seed must be None or a non-negative integer, got -1"):
        make(judge_server, seed=-1)
    with pytest.raises(TypeError, match="max_concurrency must be a positive integer, got 2.5"):
        make(judge_server, max_concurrency=2.5)
    with pytest.raises(ValueError, match="timeout must be a positive finite number of seconds"):
        make(judge_server, timeout=0)
    with pytest.raises(ValueError, match="structured must be one of"):
        make(judge_server, structured="xml")
