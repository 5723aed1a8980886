"""Spending limits said and kept: ``Budget`` before each paid call (cached replies free), through the judges, the
generator and the CLI's ``--max-calls`` / ``--max-cost``; the cost stated before sending; the generator's
shortfall said; a JSON-array test set named as such."""

from __future__ import annotations

import io
import json

import pytest

from rag_eval_adapters.judges import LLMJudge
from rag_eval_adapters.modelcalls import (
    Budget,
    BudgetedChatLLM,
    BudgetExceeded,
    InMemoryCache,
    Prices,
    ScriptedChatLLM,
    resolve_llm,
    spending_limit,
)
from rag_eval_adapters.testsets import describe_shortfall, generate_testset, read_testset

GRADE = '{"reasoning": "r", "grade": 2}'
ITEMS = [{"query": f"question {i}?", "passage": f"passage number {i} about rivers"} for i in range(3)]
TEXTS = ["The Nile flows north through eleven countries to the Mediterranean sea.",
         "The Amazon carries more water than any other river on the planet.",
         "Lake Baikal in Siberia holds a fifth of the fresh surface water.",
         "An oxbow lake forms when a meander is cut off from its river."]
CHUNKS = [{"chunk_id": f"c{i}", "doc_id": f"d{i}.txt", "start": 0, "text": text} for i, text in enumerate(TEXTS)]


def case_reply(messages):
    chunk = messages[-1]["content"].split("<chunk>\n", 1)[1].rsplit("\n</chunk>", 1)[0]
    return json.dumps({"questions": [{"question": f"Is it true that {chunk.rstrip('.')}?", "answer": "yes",
                                      "evidence": chunk}]})


def judge(llm, cache=None):
    return LLMJudge(llm, cache=cache, max_concurrency=1, retry_base_delay=0.0, progress=False)


def test_max_calls_stops_the_judge_before_the_call_over_it_and_cached_replies_are_free():
    cache = InMemoryCache()
    llm = ScriptedChatLLM([GRADE], repeat_last=True)
    with pytest.raises(BudgetExceeded, match="max_calls is 2 .2 call.s. sent") as caught:
        judge(BudgetedChatLLM(llm, Budget(max_calls=2)), cache).judge_many("relevance", ITEMS)
    assert len(llm.calls) == 2 and caught.value.calls == 2  # the batch stopped: no item was failed and went on
    again = Budget(max_calls=1)
    results = judge(BudgetedChatLLM(llm, again), cache).judge_many("relevance", ITEMS)
    assert [r.grade for r in results] == [2, 2, 2]
    assert len(llm.calls) == 3 and again.calls == 1  # the two cached replies did not count


def test_max_cost_is_checked_before_the_call_with_its_output_bounded():
    llm = ScriptedChatLLM([GRADE], repeat_last=True)
    prices = Prices(1_000_000.0, 1_000_000.0)  # a token costs 1
    budget = Budget(max_cost=300, prices=prices)
    llm.max_tokens = 100  # the output bound of one call
    with pytest.raises(BudgetExceeded) as caught:
        judge(BudgetedChatLLM(llm, budget)).judge_many("relevance", ITEMS)
    assert caught.value.limit == "max_cost" and budget.cost is not None and budget.cost <= 300
    per_call = budget.cost / len(llm.calls)
    assert budget.cost + per_call + 100 > 300  # one more (bounded) call could have passed the limit


def test_a_cost_limit_without_prices_and_bad_limits_are_refused():
    with pytest.raises(ValueError, match="needs the prices"):
        Budget(max_cost=1.0)
    with pytest.raises(ValueError, match="max_calls must be a finite number >= 0"):
        Budget(max_calls=-1)


def test_the_budgeted_model_keeps_the_models_name_and_keywords():
    from rag_eval_adapters.modelcalls import OpenAICompatibleLLM

    pytest.importorskip("openai")
    with OpenAICompatibleLLM("m", base_url="http://127.0.0.1:9/v1") as inner, spending_limit(Budget(max_calls=1)):
        wrapped = resolve_llm(inner)
        assert isinstance(wrapped, BudgetedChatLLM) and wrapped.name == "m" and wrapped.timeout == inner.timeout
        import inspect

        assert "response_format" in inspect.signature(wrapped.chat).parameters
    assert not isinstance(resolve_llm(ScriptedChatLLM()), BudgetedChatLLM)  # outside the block: no limit


def test_the_generator_stops_at_the_limit_keeps_its_output_and_resumes(tmp_path):
    out = tmp_path / "t.jsonl"
    llm = ScriptedChatLLM(case_reply)
    with pytest.raises(BudgetExceeded):
        generate_testset(CHUNKS, BudgetedChatLLM(llm, Budget(max_calls=2)), samples=4, min_chunk_chars=10,
                         max_concurrency=1, output=out)
    assert len(llm.calls) == 2 and len(out.read_text().splitlines()) == 2
    done = generate_testset(CHUNKS, llm, samples=4, min_chunk_chars=10, max_concurrency=1, output=out)
    assert done.summary["generated"] == 4 and done.summary["resumed_cases"] == 2 and len(llm.calls) == 4


def test_the_shortfall_is_said_with_its_reasons():
    llm = ScriptedChatLLM(lambda m: (case_reply(m) if "Nile" in m[-1]["content"] else
                                     '{"questions": [{"question": "Where?", "answer": "a", '
                                     '"evidence": "words that are nowhere in the passage"}]}'))
    testset = generate_testset(CHUNKS[:2], llm, samples=3, types="literal", min_chunk_chars=10, max_concurrency=1)
    assert describe_shortfall(testset.summary) == ("generated 1 of 3 requested questions; 2 dropped: "
                                                   "evidence_not_found 1, not_enough_chunks 1")
    full = generate_testset(CHUNKS[:1], ScriptedChatLLM(case_reply), samples=1, min_chunk_chars=10)
    assert describe_shortfall(full.summary) is None


def test_a_test_set_written_as_one_json_array_is_named_as_such(tmp_path):
    path = tmp_path / "testset.json"
    path.write_text(json.dumps([{"query_id": "q1", "query": "Where?", "evidence": "a b c"}], indent=1))
    with pytest.raises(ValueError, match="is one JSON array, but a test set is JSON Lines"):
        read_testset(path)


# ---------------------------------------------------------------------------------------------- the CLI

def cli(*args):
    from rag_eval_adapters.cli import main

    out, err = io.StringIO(), io.StringIO()
    code = main([str(a) for a in args], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def answers(tmp_path):
    long = "The Louvre is the most visited museum in the world, in Paris. " * 20
    path = tmp_path / "answers.jsonl"
    lines = [{"question": f"Where is the Louvre {i}?", "answer": "In Paris.", "contexts": {f"lv{i}": long}}
             for i in range(3)]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def judge_args(server, path, *extra):
    return ("judge", "--input", path, "--judge-model", "judge-model", "--judge-base-url", server.base_url,
            "-m", "context_relevance", "--format", "json", *extra)


def test_judge_states_its_cost_first_and_counts_contexts_given_by_id(judge_server, answers, monkeypatch):
    pytest.importorskip("openai")
    monkeypatch.setenv("OPENAI_API_KEY", judge_server.api_key)
    code, out, _ = cli(*judge_args(judge_server, answers, "--dry-run", "--no-cache"))
    assert code == 0
    tokens = json.loads(out)["total"]["estimated_input_tokens"]
    assert tokens > 3 * len("The Louvre is the most visited museum in the world, in Paris. " * 20) / 4  # the texts
    code, _, err = cli(*judge_args(judge_server, answers, "--no-cache", "--price-input", "1"))
    assert code == 0, err
    first = err.splitlines()[0]
    assert first.startswith("rag-eval: judge judge-model expects 3 model call(s)") and f"about {tokens} input" in first


def test_judge_max_calls_stops_and_a_rerun_pays_only_for_the_rest(judge_server, answers, tmp_path, monkeypatch):
    pytest.importorskip("openai")
    monkeypatch.setenv("OPENAI_API_KEY", judge_server.api_key)
    cache = tmp_path / "judge.sqlite"
    code, _, err = cli(*judge_args(judge_server, answers, "--cache", cache, "--max-calls", "2",
                                   "--max-concurrency", "1"))
    assert code == 2 and err.splitlines()[-1].startswith("rag-eval: error: --max-calls: stopped before a call to")
    assert "max_calls is 2 (2 call(s) sent)" in err and len(judge_server.chat_requests) == 2
    code, out, err = cli(*judge_args(judge_server, answers, "--cache", cache, "--max-calls", "1"))
    assert code == 0, err
    assert len(judge_server.chat_requests) == 3 and "context_relevance" in json.loads(out)["mean"]
    assert "unmeasured" not in out
    assert "rag-eval: model requests sent: 1 (within --max-calls 1)" in err


def test_max_cost_without_prices_is_refused_before_anything_is_sent(judge_server, answers, monkeypatch):
    pytest.importorskip("openai")
    monkeypatch.setenv("OPENAI_API_KEY", judge_server.api_key)
    code, _, err = cli(*judge_args(judge_server, answers, "--max-cost", "0.5"))
    assert code == 2 and "--max-cost needs the prices" in err and judge_server.chat_requests == []


def test_generate_checks_the_key_before_reading_the_corpus_and_takes_max_calls(openai_server, tmp_path,
                                                                             monkeypatch):
    pytest.importorskip("openai")
    pytest.importorskip("llama_index.core")
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("{not json\n", encoding="utf-8")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    code, _, err = cli("generate", "--documents", corpus, "--llm-model", "gpt-4o-mini", "--output", tmp_path / "o.jsonl")
    assert code == 2 and "no API key" in err and "not valid JSON" not in err
    corpus.write_text("".join(json.dumps(c) + "\n" for c in CHUNKS), encoding="utf-8")
    monkeypatch.setenv("OPENAI_API_KEY", openai_server.api_key)
    code, _, err = cli("generate", "--documents", corpus, "--llm-model", "gpt-4o-mini", "--llm-base-url",
                       openai_server.base_url, "--output", tmp_path / "o.jsonl", "--samples", "4",
                       "--min-chunk-chars", "10", "--max-concurrency", "1", "--max-calls", "1")
    assert code == 2 and "--max-calls: stopped" in err and len(openai_server.chat_requests) == 1
    assert err.splitlines()[0].startswith("rag-eval: generate (gpt-4o-mini) expects 4 model call(s)")


def test_bench_generate_says_its_cost_first_and_its_shortfall(bench_inputs, tmp_path, openai_server, monkeypatch):
    pytest.importorskip("openai")
    pytest.importorskip("bm25s")
    pytest.importorskip("llama_index.core")
    docs, _ = bench_inputs
    monkeypatch.setenv("OPENAI_API_KEY", openai_server.api_key)
    code, _, err = cli("bench", "--documents", docs, "--generate", "--samples", "200", "--chunking", "256:0",
                       "--retriever", "bm25", "--skip-e2e", "--llm-model", "test-model", "--llm-base-url",
                       openai_server.base_url, "--output", tmp_path / "r")
    assert code == 0, err
    lines = err.splitlines()
    expects = next(i for i, line in enumerate(lines) if line.startswith("rag-eval: bench --generate (test-model) expects"))
    generated = next(i for i, line in enumerate(lines) if line.startswith("rag-eval: generated ") and "requested" in line)
    assert expects < generated and "of 200 requested questions" in lines[generated]
    assert "not_enough_chunks" in lines[generated]


def test_meta_eval_judge_stops_at_max_calls(tmp_path, judge_server, monkeypatch):
    pytest.importorskip("openai")
    monkeypatch.setenv("OPENAI_API_KEY", judge_server.api_key)
    rows = [{"instance_id": i, "dataset": "d", "query": f"question {i}?", "gt_answer": "Paris is in France.",
             "model1": {"model_name": "a", "response": "Paris is in France."},
             "model2": {"model_name": "b", "response": "Paris is big."}, "correctness_label": label,
             "completeness_label": label, "overall_label": label} for i in range(3) for label in (1, -1)]
    data = tmp_path / "pairs.json"
    data.write_text(json.dumps(rows))
    code, _, err = cli("meta-eval", "--data", data, "--judge", "answer_correctness", "--judge-model", "judge-model",
                       "--judge-base-url", judge_server.base_url, "--cache", tmp_path / "j.sqlite", "--label", "overall",
                       "--bootstrap", "20", "--no-baselines", "--max-calls", "3")
    assert code == 2 and "rag-eval: error: --max-calls: stopped before a call to judge-model" in err
    assert len(judge_server.chat_requests) == 3
    said = [line for line in err.splitlines() if line.startswith("rag-eval: judge judge-model (answer_correctness")]
    assert said and " expects " in said[0]  # the batch's cost, said before it was sent


def test_bench_judge_stops_at_max_calls(bench_inputs, tmp_path, judge_server, monkeypatch):
    pytest.importorskip("openai")
    pytest.importorskip("bm25s")
    pytest.importorskip("llama_index.core")
    docs, testset = bench_inputs
    monkeypatch.setenv("OPENAI_API_KEY", judge_server.api_key)
    code, _, err = cli("bench", "--documents", docs, "--testset", testset, "--chunking", "32:8", "--retriever", "bm25",
                       "--e2e-limit", "2", "--judge", "--judge-model", "judge-model", "--judge-base-url",
                       judge_server.base_url, "--permutations", "20", "--output", tmp_path / "r", "--max-calls", "2")
    assert code == 2 and "rag-eval: error: --max-calls: stopped before a call to judge-model" in err
    assert len(judge_server.chat_requests) == 2
    said = [line for line in err.splitlines() if line.startswith("rag-eval: judge judge-model (")]
    assert said and " expects " in said[0] and err.index(said[0]) < err.index("rag-eval: error")
