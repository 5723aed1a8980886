"""The shared model-call layer: cache keys, validated reads, SQLite sharing, retries, limits and usage."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
import threading
import warnings

import openai
import pytest
from openai_server import fail, fake_embedding

from rag_eval_adapters.modelcalls import (
    CacheError,
    CacheWriteWarning,
    CallLimiter,
    ChatCaller,
    InMemoryCache,
    ModelCallError,
    OpenAICompatibleLLM,
    Prices,
    RetryPolicy,
    SqliteCache,
    UsageMeter,
    cache_key,
    call_with_retry,
    finite_score,
    finite_vector,
    lookup_quietly,
    store_quietly,
)


def test_keys_separate_every_part_and_cannot_collide_through_separators():
    assert cache_key("m", ["paris\0france", "paris"]) != cache_key("m", ["paris", "france\0paris"])
    assert cache_key("m", "a", {"temperature": 0}) != cache_key("m", "a", {"temperature": 0.5})
    assert cache_key("m1", "a") != cache_key("m2", "a")
    assert cache_key("m", {"b": 1, "a": 2}) == cache_key("m", {"a": 2, "b": 1})  # canonical: key order ignored
    with pytest.raises(TypeError, match="namespace"):
        cache_key(3, "a")  # type: ignore[arg-type]


@pytest.mark.parametrize("make", [InMemoryCache, lambda: SqliteCache(":memory:")])
def test_values_of_any_json_kind_round_trip(make):
    cache = make()
    vector = fake_embedding("hello", 8)
    cache.set_many({"s": 0.25, "t": "text", "v": vector, "r": {"question": "q?", "n": [1, 2]}})
    got = cache.get_many(["s", "t", "v", "r", "missing"])
    assert got == {"s": 0.25, "t": "text", "v": vector, "r": {"question": "q?", "n": [1, 2]}}
    assert lookup_quietly(cache, ["v"], finite_vector(8)) == {"v": vector}
    assert lookup_quietly(cache, ["v"], finite_vector(4)) == {}  # wrong size: recomputed, not returned


def test_a_value_edited_in_the_file_is_ignored(tmp_path):
    path = tmp_path / "c.sqlite"
    cache = SqliteCache(path)
    cache.set_many({"k": 0.5})
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE calls SET value = '7.5' WHERE key = 'k'")
    assert SqliteCache(path).get_many(["k"]) == {}


def test_invalid_values_fail_validation_on_read():
    cache = InMemoryCache()
    cache.set_many({"a": 7.5, "b": 0.5, "c": "x"})
    assert lookup_quietly(cache, ["a", "b", "c"], finite_score(True)) == {"b": 0.5}
    assert lookup_quietly(cache, ["a", "b"], finite_score(False)) == {"a": 7.5, "b": 0.5}


def test_corrupt_or_unopenable_file_names_the_path(tmp_path):
    bad = tmp_path / "corrupt.sqlite"
    bad.write_bytes(b"this is not a database" * 100)
    with pytest.raises(CacheError, match="corrupt.sqlite"):
        SqliteCache(bad)
    folder = tmp_path / "a-folder"
    folder.mkdir()
    with pytest.raises(CacheError, match="a-folder"):
        SqliteCache(folder)


def test_a_failing_write_keeps_the_result_and_warns(tmp_path):
    cache = SqliteCache(tmp_path / "c.sqlite")
    cache.close()  # every write now fails
    with pytest.warns(CacheWriteWarning, match="could not be written"):
        assert store_quietly(cache, {"k": 1.0}) is False
    with pytest.warns(CacheWriteWarning, match="could not be read"):
        assert lookup_quietly(cache, ["k"]) == {}


def test_two_processes_write_one_file_without_locking_errors(tmp_path):
    path = tmp_path / "shared.sqlite"
    SqliteCache(path)
    code = textwrap.dedent(f"""
        import sys
        from rag_eval_adapters.modelcalls import SqliteCache
        cache = SqliteCache({str(path)!r})
        for i in range(150):
            cache.set_many({{f"{{sys.argv[1]}}-{{i}}": [float(i)] * 32}})
            cache.get_many([f"{{sys.argv[1]}}-{{i}}"])
    """)
    procs = [subprocess.Popen([sys.executable, "-c", code, name], stderr=subprocess.PIPE, text=True) for name in "ab"]
    errors = [p.communicate()[1] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], errors
    assert len(SqliteCache(path)) == 300


def _open_when(path: str, start: float) -> str:
    import time

    time.sleep(max(0.0, start - time.time()))  # every process opens the new file at the same moment
    try:
        SqliteCache(path, busy_timeout=5)
    except Exception as exc:  # noqa: BLE001 - the message is the result
        return str(exc)
    return ""


def test_processes_opening_a_new_cache_file_at_once_all_open_it(tmp_path):
    # SQLite can answer "database is locked" at once, without the busy timeout, to processes switching a new
    # file to WAL together; before the open retried, about one open in ten failed this way
    import multiprocessing
    import time

    context = multiprocessing.get_context("fork")  # the workers inherit the imported package: no start-up cost
    with context.Pool(3) as pool:
        errors = []
        for trial in range(40):
            path, start = str(tmp_path / f"c{trial}.sqlite"), time.time() + 0.02
            errors += [e for e in pool.starmap(_open_when, [(path, start)] * 3) if e]
    assert errors == []


def test_retry_honours_retry_after_and_gives_up_with_a_named_error(openai_server):
    client = openai.OpenAI(base_url=openai_server.base_url, api_key=openai_server.api_key, max_retries=0)
    openai_server.queue(fail(429, retry_after="7"), fail(500, retry_after_ms=250))
    waits: list[float] = []

    def call():
        return client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])

    response, attempts = call_with_retry(call, RetryPolicy(max_retries=3), sleep=waits.append)
    assert attempts == 3 and waits == [7.0, 0.25] and response.choices[0].message.content == "OK"
    openai_server.queue(*[fail(503)] * 3)
    with pytest.raises(ModelCallError, match="generation for chunk c1 failed after 3 attempt") as info:
        call_with_retry(call, RetryPolicy(max_retries=2, base_delay=0), what="generation for chunk c1",
                        sleep=lambda s: None)
    assert info.value.status_code == 503
    openai_server.queue(fail(400))
    with pytest.raises(ModelCallError, match="HTTP 400") as info:  # not retryable: one attempt
        call_with_retry(call, RetryPolicy(max_retries=5), sleep=lambda s: None)
    assert info.value.attempts == 1


def test_chat_caller_retries_meters_caches_and_counts_a_failure_once(openai_server):
    llm = OpenAICompatibleLLM("m", base_url=openai_server.base_url, api_key=openai_server.api_key)
    meter, cache = UsageMeter(), InMemoryCache()
    caller = ChatCaller(llm, cache, RetryPolicy(max_retries=2, base_delay=0), CallLimiter(1), meter, 30.0,
                        {"prompt_version": "v1"})
    hello = [{"role": "user", "content": "hello"}]
    openai_server.queue(fail(503))
    first = caller.chat(hello, "greeting")
    assert len(openai_server.requests) == 2 and first.text
    assert caller.chat(hello, "greeting") == first and len(openai_server.requests) == 2  # from the cache
    assert caller.cached(hello) == first and caller.key(hello) != cache_key("m", hello, {"prompt_version": "v2"})
    openai_server.queue(*[fail(503)] * 3)
    with pytest.raises(ModelCallError, match="farewell failed after 3 attempt"):
        caller.chat([{"role": "user", "content": "bye"}], "farewell")
    usage = meter.usage
    assert (usage.calls, usage.cache_hits, usage.retries, usage.failures) == (1, 1, 3, 1)
    assert usage.input_tokens > 0 and usage.output_tokens > 0


def test_per_call_timeout_is_a_retryable_failure():
    calls = []

    def hang():
        calls.append(1)
        if len(calls) == 1:
            threading.Event().wait(5)
        return "done"

    assert call_with_retry(hang, RetryPolicy(max_retries=1, base_delay=0), timeout=0.2, sleep=lambda s: None) == ("done", 2)


def test_limiter_lets_exactly_max_concurrency_calls_run_together():
    """Two calls meet inside a limit of 2 (a limiter that serialises never lets them), and a third waits."""
    limiter = CallLimiter(max_concurrency=2)
    together = threading.Event()
    both_inside = threading.Barrier(2, action=together.set, timeout=10)  # passes only with two calls inside
    release = threading.Event()
    third_inside = threading.Event()
    lock, inside, most_inside, errors = threading.Lock(), [0], [0], []

    def call(on_entry) -> None:
        try:
            with limiter:
                with lock:
                    inside[0] += 1
                    most_inside[0] = max(most_inside[0], inside[0])
                on_entry()
                with lock:
                    inside[0] -= 1
        except Exception as exc:  # an exception in a thread fails nothing: the main thread reports it
            errors.append(exc)

    def hold() -> None:
        both_inside.wait()
        release.wait(timeout=10)

    holders = [threading.Thread(target=call, args=(hold,)) for _ in range(2)]
    third = threading.Thread(target=call, args=(third_inside.set,))
    for t in holders:
        t.start()
    got_in_early = None
    try:
        if together.wait(timeout=15):
            # both slots are held until released: a third call must wait. A limiter that lets it in shows it
            # within the wait; a slow machine can only make this check pass, never fail.
            third.start()
            got_in_early = third_inside.wait(timeout=0.3)
    finally:
        release.set()
        for t in holders:
            t.join(timeout=30)
        if third.ident is not None:
            third.join(timeout=30)
    assert together.is_set(), f"two calls never ran together under max_concurrency=2: {errors}"
    assert not got_in_early, "a third call started while two were in flight under max_concurrency=2"
    assert not errors, errors
    assert third_inside.is_set() and most_inside[0] == 2
    assert limiter.max_in_flight == 2


def test_limiter_options_are_checked():
    with pytest.raises(ValueError, match="max_concurrency"):
        CallLimiter(0)
    for bad, error in ((0, ValueError), (-1.0, ValueError), (float("inf"), ValueError), (True, TypeError)):
        with pytest.raises(error, match="max_per_second must be a positive finite number of calls a second"):
            CallLimiter(2, max_per_second=bad)


def test_usage_meter_sums_tokens_and_prices_them():
    meter = UsageMeter(Prices(input_per_million=2.0, output_per_million=8.0))
    meter.add(calls=1, input_tokens=1000, output_tokens=500)
    meter.add(calls=1, cache_hits=2, input_tokens=500)
    usage = meter.usage
    assert (usage.calls, usage.cache_hits, usage.input_tokens, usage.output_tokens) == (2, 2, 1500, 500)
    assert usage.cost == pytest.approx((1500 * 2.0 + 500 * 8.0) / 1e6)
    assert UsageMeter().usage.cost is None
    with pytest.raises(TypeError, match="unknown usage counter"):
        meter.add(tokens=3)
    with pytest.raises(ValueError, match="input_per_million"):
        Prices(-1.0)


def test_server_embeddings_are_deterministic_and_report_usage(openai_server):
    client = openai.OpenAI(base_url=openai_server.base_url, api_key=openai_server.api_key, max_retries=0)
    out = client.embeddings.create(model="text-embedding-3-small", input=["a b c", "d"])
    assert [d.embedding for d in out.data] == [fake_embedding("a b c"), fake_embedding("d")]
    assert out.usage.prompt_tokens == 4 and len(openai_server.embedding_requests) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cache = InMemoryCache()
        cache.set_many({cache_key("text-embedding-3-small", "d"): out.data[1].embedding})
        assert lookup_quietly(cache, [cache_key("text-embedding-3-small", "d")], finite_vector(16))


def test_cached_map_embeds_only_missing_texts_once(openai_server, tmp_path):
    from rag_eval_adapters.modelcalls import cached_map

    client = openai.OpenAI(base_url=openai_server.base_url, api_key=openai_server.api_key, max_retries=0)
    sent: list[list[str]] = []

    def embed(texts):
        sent.append(texts)
        return [d.embedding for d in client.embeddings.create(model="e", input=texts).data]

    cache = SqliteCache(tmp_path / "emb.sqlite")
    vectors, hits = cached_map("e", ["a", "b", "a"], embed, cache, validate=finite_vector(16))
    assert vectors == [fake_embedding("a"), fake_embedding("b"), fake_embedding("a")] and hits == 0
    assert sent == [["a", "b"]]
    vectors, hits = cached_map("e", ["b", "c"], embed, SqliteCache(tmp_path / "emb.sqlite"), validate=finite_vector(16))
    assert vectors == [fake_embedding("b"), fake_embedding("c")] and hits == 1 and sent[-1] == ["c"]
    assert len(openai_server.embedding_requests) == 2
    with pytest.raises(ValueError, match="1 results for 2 inputs"):
        cached_map("e", ["x", "y"], lambda texts: [[1.0]], None)
