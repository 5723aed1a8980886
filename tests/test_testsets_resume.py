"""Nothing lost: a test-set run that failed, was interrupted or left a damaged output resumes from its journal
without paying twice, and a failing retriever costs one case's rank, not the run (issue 21, items 1, 2, 10)."""

from __future__ import annotations

import json
import threading

import pytest

pytest.importorskip("openai")

from openai_server import FakeOpenAIServer, fail

from rag_eval_adapters.modelcalls import ModelCallError
from rag_eval_adapters.testsets import OpenAICompatibleLLM, TestSet, generate_testset

TEXTS = [
    "Paris is the capital of France and its largest city.",
    "The Seine river flows through the centre of the city of Paris.",
    "The Louvre is the most visited museum in the whole world.",
    "Volcanoes form where magma rises through the crust of the earth.",
    "Basalt is a dark rock that forms from lava cooling quickly at the surface.",
    "Eruptions can change the local climate for several years afterwards.",
]
CHUNKS = [{"chunk_id": f"c{i}", "text": text, "doc_id": f"d{i // 3}"} for i, text in enumerate(TEXTS)]
OPTIONS = {"samples": 4, "min_chunk_chars": 10, "max_concurrency": 1, "retry_base_delay": 0.0}


def llm(server, key=None):
    return OpenAICompatibleLLM("gpt-4o-mini", base_url=server.base_url, api_key=key or server.api_key)


def generate(server, out=None, **kwargs):
    return generate_testset(CHUNKS, llm(server), **{**OPTIONS, "output": out, **kwargs})


def lines(path):
    return path.read_text(encoding="utf-8").splitlines()


def journal(out):
    return out.with_name(out.name + ".progress")


def fresh_ids():
    with FakeOpenAIServer() as other:
        return [c.query_id for c in generate(other)]


def wait_for_workers():
    for thread in threading.enumerate():
        if thread.name.startswith("testset"):
            thread.join()


# ------------------------------------------------------------------------------------------ item 1
def test_a_run_whose_every_call_failed_resumes_from_its_journal(openai_server, tmp_path):
    out = tmp_path / "t.jsonl"
    with pytest.raises(ModelCallError, match="HTTP 401"):
        generate_testset(CHUNKS, llm(openai_server, key="wrong-key"), **{**OPTIONS, "output": out})
    assert journal(out).exists() and not out.exists()
    testset = generate(openai_server, out)  # was: "journal exists but the output does not; delete the journal"
    assert [c.query_id for c in testset] == fresh_ids() and len(lines(out)) == 4

    down = tmp_path / "down.jsonl"
    openai_server.queue(*[fail(500, retry_after="0")] * 4)
    failed = generate(openai_server, down, max_retries=0)
    assert len(failed) == 0 and failed.summary["dropped"] == {"call_failed": 4} and failed.summary["failed_calls"] == 4
    assert journal(down).exists() and not down.exists()
    assert [c.query_id for c in generate(openai_server, down)] == fresh_ids()


def test_replies_paid_before_a_ctrl_c_are_reused_when_the_output_was_never_written(openai_server, tmp_path):
    out = tmp_path / "t.jsonl"

    def interrupt(query):  # Ctrl-C while the first case is built, before anything is written
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        generate(openai_server, out, retriever=interrupt, max_concurrency=2)
    wait_for_workers()  # the calls in flight finish and are journaled
    paid = [json.loads(line) for line in lines(journal(out))]
    paid = {r["task"] for r in paid if r["kind"] == "reply"}
    assert not out.exists() and len(paid) >= 1
    sent = len(openai_server.chat_requests)
    testset = generate(openai_server, out)
    assert len(openai_server.chat_requests) - sent == 4 - len(paid)  # only the unpaid tasks are asked
    assert [c.query_id for c in testset] == fresh_ids()


# ------------------------------------------------------------------------------------------ item 2
def finished_run(server, tmp_path):
    out = tmp_path / "t.jsonl"
    first = generate(server, out)
    return out, [c.query_id for c in first], len(server.chat_requests)


def test_cases_written_but_not_journaled_are_not_duplicated(openai_server, tmp_path):
    out, ids, sent = finished_run(openai_server, tmp_path)
    records = lines(journal(out))
    assert json.loads(records[-1])["kind"] == "done"
    journal(out).write_text("\n".join(records[:-1]) + "\n", encoding="utf-8")  # cut between the cases and "done"
    for _ in range(2):
        again = generate(openai_server, out)
        assert [c.query_id for c in again] == ids and len(openai_server.chat_requests) == sent
        assert sorted(json.loads(line)["query_id"] for line in lines(out)) == sorted(ids)
        assert list(TestSet.from_jsonl(out).queries()) == list(again.queries())


def test_a_cut_last_line_is_ignored_and_its_case_written_again(openai_server, tmp_path):
    out, ids, sent = finished_run(openai_server, tmp_path)
    text = out.read_text(encoding="utf-8")
    out.write_text(text[: len(text) - 40], encoding="utf-8")  # a disk that filled up mid-line
    again = generate(openai_server, out)
    assert [c.query_id for c in again] == ids and len(openai_server.chat_requests) == sent
    assert sorted(TestSet.from_jsonl(out).queries()) == sorted(ids)


def test_a_done_case_missing_from_the_output_is_written_again_without_a_call(openai_server, tmp_path):
    out, ids, sent = finished_run(openai_server, tmp_path)
    kept = lines(out)
    out.write_text("\n".join(kept[:1] + kept[2:] + [kept[0]]) + "\n", encoding="utf-8")  # one lost, one repeated
    again = generate(openai_server, out)
    assert [c.query_id for c in again] == ids and len(openai_server.chat_requests) == sent
    assert sorted(json.loads(line)["query_id"] for line in lines(out)) == sorted(ids)
    assert again.summary["resumed_cases"] == 3 and again.summary["calls"] == 0


def test_a_bad_line_before_the_last_is_still_an_error_naming_it(openai_server, tmp_path):
    out, _, _ = finished_run(openai_server, tmp_path)
    kept = lines(out)
    out.write_text("\n".join([kept[0], "{cut", *kept[1:]]) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"t.jsonl:2: not valid JSON"):
        generate(openai_server, out)


# ------------------------------------------------------------------------------------------ item 10
def test_a_failing_retriever_costs_a_rank_not_the_run(openai_server):
    calls = []

    def flaky(query):
        calls.append(query)
        if len(calls) == 1:
            raise ConnectionError("index offline")
        if len(calls) == 2:
            return None
        return ["c0", "c3"]

    with pytest.warns(UserWarning, match="retriever failed"):
        testset = generate(openai_server, retriever=flaky)
    assert len(testset) == 4 and testset.summary["retriever_failed"] == 2
    failed = [c for c in testset if "retriever_failed" in c.flags]
    assert len(failed) == 2 and all(c.retriever_rank is None for c in failed)
    assert testset.summary["flagged"]["retriever_failed"] == 2
    assert all(c.retriever_rank == (["c0", "c3"].index(c.source_chunk_id) + 1 if c.source_chunk_id in ("c0", "c3")
                                    else None) for c in testset if c not in failed)


# ------------------------------------------------------------------------------------------ item 11
def test_negative_token_usage_from_the_server_is_counted_as_zero_with_a_warning(openai_server):
    from rag_eval_adapters.modelcalls import Prices

    openai_server.usage_override = {"prompt_tokens": -500, "completion_tokens": -70}
    with pytest.warns(UserWarning, match="negative usage input_tokens=-500"):
        testset = generate(openai_server, prices=Prices(1.0, 4.0))
    s = testset.summary
    assert (s["calls"], s["input_tokens"], s["output_tokens"], s["cost"]) == (4, 0, 0, 0.0)
