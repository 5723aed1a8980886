"""rag_eval_adapters.distributed: sharded scoring on a real local Ray, equal to evaluate_columns."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
ray = pytest.importorskip("ray")
pytest.importorskip("ray.data")

from distributed_support import METRICS, random_tables  # noqa: E402

from rag_eval_adapters import evaluate_columns  # noqa: E402
from rag_eval_adapters.distributed import evaluate_ray  # noqa: E402

TESTS = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def local_ray():
    """One local Ray for the module: 2 CPUs, loopback only, no dashboard, no usage statistics."""
    saved = {k: os.environ.get(k) for k in ("RAY_USAGE_STATS_ENABLED", "PYTHONPATH")}
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"  # never phone home
    # workers import this folder's helpers (and this checkout of the package)
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(TESTS), str(TESTS.parent), saved["PYTHONPATH"]) if p)
    # Workers are started on demand, kept when idle (the default kills an idle worker after 1 s and starts a new
    # one, importing Ray again, for the next task) and report no metrics: a quarter less CPU in Ray's processes.
    ray.init(num_cpus=2, include_dashboard=False, _node_ip_address="127.0.0.1", log_to_driver=False,
             configure_logging=False,
             _system_config={"enable_worker_prestart": False, "prestart_worker_first_driver": False,
                             "idle_worker_killing_time_threshold_ms": 60_000, "enable_metrics_collection": False})
    ray.data.DataContext.get_current().enable_progress_bars = False
    yield ray
    ray.shutdown()
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


def chunks(frame, n):
    bounds = np.linspace(0, len(frame), n + 1).astype(int)
    return [frame.iloc[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=False)]


def per_query_of(result):
    frame = result.per_query.to_pandas()
    return {row.pop("query_id"): row for row in frame.to_dict("records")}


def assert_same(result, report):
    assert per_query_of(result) == report.per_query  # every value exactly
    assert result.errors == report.errors
    assert result.counts == report.counts
    assert result.mean.keys() == report.mean.keys()
    for key, value in report.mean.items():
        assert result.mean[key] == pytest.approx(value, rel=1e-12, abs=1e-15)


# --------------------------------------------------------------------------- on Ray
@pytest.mark.parametrize(
    "by, str_docs, int_queries, missing",
    [("score", True, False, "zero"), ("score", False, True, "skip"), ("rank", True, False, "zero"),
     ("rank", False, False, "skip")],
)
def test_every_value_equals_evaluate_columns(local_ray, by, str_docs, int_queries, missing):
    qrels, run = random_tables(3, by, str_docs, int_queries)
    report = evaluate_columns(qrels, run, METRICS, missing=missing)
    assert report.errors and report.counts["missing_from_run"] and report.counts["not_in_qrels"]
    result = evaluate_ray(qrels, run, METRICS, missing=missing, shards=5, block_rows=300)
    assert_same(result, report)


def test_relevance_level_and_arrow_tables(local_ray):
    qrels, run = random_tables(4)
    report = evaluate_columns(qrels, run, METRICS, relevance_level=2)
    result = evaluate_ray(pa.Table.from_pandas(qrels), pa.Table.from_pandas(run), METRICS, relevance_level=2, shards=3)
    assert_same(result, report)
    assert "RayResult(queries=" in repr(result)


def test_ray_datasets_in(local_ray):
    qrels, run = random_tables(5)
    result = evaluate_ray(ray.data.from_pandas(qrels), ray.data.from_pandas(chunks(run, 4)), METRICS)
    assert_same(result, evaluate_columns(qrels, run, METRICS))


def test_parquet_in_and_out(local_ray, tmp_path):
    qrels, run = random_tables(6)
    (tmp_path / "qrels").mkdir()
    (tmp_path / "runs").mkdir()
    pq.write_table(pa.Table.from_pandas(qrels, preserve_index=False), tmp_path / "qrels" / "all.parquet")
    for i, part in enumerate(chunks(run, 3)):  # several files, several row groups each
        pq.write_table(pa.Table.from_pandas(part, preserve_index=False), tmp_path / "runs" / f"run-{i}.parquet",
                       row_group_size=100)
    before = {p: p.read_bytes() for p in tmp_path.rglob("*.parquet")}
    out = tmp_path / "per_query.parquet"
    result = evaluate_ray(tmp_path / "qrels", str(tmp_path / "runs" / "run-*.parquet"), METRICS, output=out,
                          block_rows=150, shards=4)
    report = evaluate_columns(qrels, run, METRICS)
    assert_same(result, report)
    written = pq.read_table(out).to_pandas()
    assert sorted(p.name for p in out.iterdir()) == [f"part-{i:05d}.parquet" for i in range(4)]
    assert {row.pop("query_id"): row for row in written.to_dict("records")} == report.per_query
    assert result.output == str(out)
    assert all(p.read_bytes() == b for p, b in before.items())  # inputs untouched
    with pytest.raises(FileExistsError, match="already exists"):
        evaluate_ray(tmp_path / "qrels", tmp_path / "runs", METRICS, output=out)


def test_missing_error_names_the_queries(local_ray):
    qrels, run = random_tables(7)
    with pytest.raises(ValueError, match=r"^6 queries of qrels are missing from the run"):
        evaluate_columns(qrels, run, METRICS, missing="error")
    with pytest.raises(ValueError, match=r"^6 queries of qrels are missing from the run \((.*) \.\.\.\); pass") as got:
        evaluate_ray(qrels, run, METRICS, missing="error", shards=3)
    shown = str(got.value).split("(")[1].split(" ...")[0].split(", ")
    assert len(shown) == 5 and set(shown) <= {f"'q{i}'" for i in range(6)}


def test_bad_input_is_a_clear_error(local_ray, tmp_path):
    qrels, run = random_tables(8)
    with pytest.raises(ValueError, match=r"run needs the columns \['query_id', 'doc_id', 'score'\]; missing"):
        evaluate_ray(qrels, run.drop(columns="doc_id"), METRICS)
    bad = run.astype({"query_id": object})
    bad.loc[5, "query_id"] = None
    path = tmp_path / "bad.parquet"
    pq.write_table(pa.Table.from_pandas(bad, preserve_index=False), path)
    with pytest.raises(ValueError, match=r"run: .*bad\.parquet row 5: the query_id column is empty \(None/NaN\)"):
        evaluate_ray(qrels, path, METRICS)
    with pytest.raises(FileNotFoundError, match="no Parquet file matches"):
        evaluate_ray(qrels, str(tmp_path / "nothing-*.parquet"), METRICS)
    with pytest.raises(ValueError, match="no query could be scored"):
        evaluate_ray(qrels.assign(grade=np.inf), run, METRICS)


@pytest.mark.parametrize("how", ["oserror", "crash"])
def test_a_shard_that_fails_once_is_retried(local_ray, tmp_path, how):
    from distributed_support import flaky_filesystem

    qrels, run = random_tables(9)
    marker = tmp_path / "failed-once"
    fs = flaky_filesystem("_tmp-00001-", str(marker), how)  # shard 1's output file fails the first time
    out = tmp_path / "out"
    result = evaluate_ray(qrels, run, METRICS, shards=3, output=str(out), filesystem=fs)
    assert marker.exists()  # it did fail once
    report = evaluate_columns(qrels, run, METRICS)
    assert_same(result, report)
    written = pq.read_table(out).to_pandas()
    assert len(written) == len(report.query_ids)  # every row once, none twice
    assert {row.pop("query_id"): row for row in written.to_dict("records")} == report.per_query


def test_a_failure_is_not_retried_forever(local_ray, tmp_path):
    from distributed_support import flaky_filesystem

    qrels, run = random_tables(9)
    marker = tmp_path / "marker"
    fs = flaky_filesystem("_tmp-00001-", str(marker), "oserror")
    # the worker's OSError reaches the caller (Ray's task error is an instance of its cause's class)
    with pytest.raises(OSError, match="injected failure"):
        evaluate_ray(qrels, run, METRICS, shards=3, output=str(tmp_path / "out"), filesystem=fs, max_retries=0)
    assert marker.exists()  # it failed once, and once was enough to fail the run: no retry
    assert not list((tmp_path / "out").glob("part-00001*"))  # the failed shard left no output


# --------------------------------------------------------------------------- answers
def answer_records(n: int = 300):
    rng = np.random.default_rng(1)
    words = ["paris", "is", "the", "capital", "of", "france", "berlin", "germany", "a", "city"]
    records = []
    for i in range(n):
        prediction = " ".join(rng.choice(words, size=int(rng.integers(1, 6))))
        if i % 3:
            records.append({"query_id": f"a{i}", "prediction": prediction, "reference": "Paris is the capital",
                            "kind": "single"})
        else:
            records.append({"query_id": f"a{i}", "prediction": prediction,
                            "references": ["the capital of France", "Paris"], "kind": "multi"})
    records[5] = {"query_id": "a5", "prediction": 42, "reference": "Paris"}  # not a string
    records[7] = {"query_id": "a7", "prediction": "💥 boom", "reference": "Paris"}  # the embedder fails on it
    return records


def test_answers_on_an_actor_pool_equal_evaluate_answers(local_ray, tmp_path):
    from distributed_support import CountingFactory, LetterEmbedder

    from rag_eval_adapters.answers import evaluate_answers
    from rag_eval_adapters.distributed import evaluate_answers_ray

    records = answer_records()
    metrics = ["em", "token_f1", "rouge_l", "semantic_similarity"]
    report = evaluate_answers(records, metrics, LetterEmbedder())
    assert set(report.errors) == {"a5", "a7"}
    built = tmp_path / "built"
    built.mkdir()
    result = evaluate_answers_ray(ray.data.from_items(records), metrics, CountingFactory(str(built)),
                                  concurrency=2, batch_size=40)
    assert per_query_of(result) == report.per_query
    assert result.errors == report.errors
    assert result.counts == report.counts
    for key, value in report.mean.items():
        assert result.mean[key] == pytest.approx(value, rel=1e-12)
    assert 1 <= len(list(built.iterdir())) <= 2  # 8 batches, the embedder built once per actor


def test_answers_need_an_embedder_factory_for_semantic_similarity(local_ray):
    from rag_eval_adapters.answers import evaluate_answers
    from rag_eval_adapters.distributed import evaluate_answers_ray

    with pytest.raises(ValueError, match="needs an embedder"):
        evaluate_answers_ray(answer_records(30), ["semantic_similarity"])
    records = answer_records(30)
    result = evaluate_answers_ray(records, ["em", "token_f1"], concurrency=1, batch_size=10)  # a list of mappings
    report = evaluate_answers(records, ["em", "token_f1"])
    assert per_query_of(result) == report.per_query
    assert result.errors == report.errors == {"a5": report.errors["a5"]}


def test_many_small_files_and_many_shards(local_ray, tmp_path):
    qrels, run = random_tables(13)
    for name, frame in (("qrels", qrels), ("run", run)):
        (tmp_path / name).mkdir()
        for i, part in enumerate(chunks(frame, 6)):  # small files: grouped into blocks, pieces stay whole
            pq.write_table(pa.Table.from_pandas(part, preserve_index=False), tmp_path / name / f"{i}.parquet")
    result = evaluate_ray(tmp_path / "qrels", tmp_path / "run", METRICS, shards=40)
    assert_same(result, evaluate_columns(qrels, run, METRICS))
    assert result.stats["shards"] == 40 and result.stats["rows"] == {"qrels": len(qrels), "run": len(run)}
    assert 0 < result.stats["worker_peak_private"] <= result.stats["worker_peak_rss"]


def test_the_rate_gate_spaces_the_starts_it_hands_out_by_its_interval(monkeypatch):
    from rag_eval_adapters.distributed import rate
    from rag_eval_adapters.distributed.judges import RateGate

    clock = [1000.0]
    monkeypatch.setattr(rate.time, "time", lambda: clock[0])
    gate = RateGate(20.0)
    waits = [gate.reserve() for _ in range(22)]  # 22 callers at one instant: one start every 1/20 s
    assert waits == pytest.approx([i / 20 for i in range(22)])
    clock[0] += 5.0  # a caller after a quiet spell starts at once, and the next one an interval later
    assert gate.reserve() == 0.0 and gate.reserve() == pytest.approx(1 / 20)


def test_judges_on_an_actor_pool_under_one_rate_limit_equal_judge_answers(local_ray, tmp_path):
    import functools
    import time

    from distributed_support import make_judge
    from judge_server import judge_content
    from openai_server import FakeOpenAIServer

    from rag_eval_adapters.distributed import judge_answers_ray
    from rag_eval_adapters.judges import judge_answers

    records = [{"query_id": f"j{i}", "question": f"Fact {i}?", "answer": f"Fact {i} is true. Moon {i} is cheese.",
                "contexts": [f"Fact {i} is true and known."], "query_type": "odd" if i % 2 else "even"}
               for i in range(12)]
    records[5]["answer"] = ""
    arrivals = []

    def timed(body):
        arrivals.append(time.monotonic())
        return judge_content(body)

    with FakeOpenAIServer(handler=timed) as server:
        local = judge_answers(records, ["faithfulness"], make_judge(server.base_url, server.api_key))
        sent = len(server.chat_requests)
        arrivals.clear()
        factory = functools.partial(make_judge, server.base_url, server.api_key, str(tmp_path / "judge.sqlite"))
        result = judge_answers_ray(records, "faithfulness", factory, concurrency=2, batch_size=3, max_per_second=20)
        calls = len(server.chat_requests) - sent
        again = judge_answers_ray(records, "faithfulness", factory, concurrency=1, batch_size=3)  # a new actor
        assert len(server.chat_requests) - sent == calls  # the shared cache: the re-run pays nothing
    assert calls == 22 and result.info["usage"]["calls"] == 22 and again.info["usage"]["cache_hits"] == 22
    assert len(arrivals) == 22  # every start went through the actors' one gate (its pacing: the test below)
    assert result.per_query == local.per_query and result.unmeasured == {"faithfulness": {"j5": "empty_answer"}}
    assert result.mean["faithfulness"] == pytest.approx(0.5) and result.info["judge"]["judge_model"] == "judge-model"


def test_one_ray_path_scores_lexical_and_judged_metrics_and_refuses_colliding_ids_before_any_call(local_ray):
    import functools

    from distributed_support import make_judge
    from judge_server import judge_content
    from openai_server import FakeOpenAIServer

    from rag_eval_adapters.answers import evaluate_answers
    from rag_eval_adapters.distributed import evaluate_answers_ray, judge_answers_ray

    records = [{"query_id": f"a{i}", "question": f"Fact {i}?", "prediction": f"Fact {i} is true.",
                "reference": f"Fact {i} is true.", "contexts": [f"Fact {i} is true and known."]} for i in range(6)]
    records[2]["prediction"] = "I don't know."
    with FakeOpenAIServer(handler=judge_content) as server:
        factory = functools.partial(make_judge, server.base_url, server.api_key)
        colliding = [{**records[0], "query_id": 1}] + [{**r, "query_id": "1" if i == 0 else r["query_id"]}
                                                       for i, r in enumerate(records)]
        with pytest.raises(ValueError, match="record 1: query_id '1' and record 0's query_id 1 are the same id"):
            judge_answers_ray(colliding, "faithfulness", factory, concurrency=1, batch_size=3)
        with pytest.raises(ValueError, match="'a1' appears twice"):
            judge_answers_ray(records + [records[1]], "faithfulness", factory, concurrency=1, batch_size=3)
        assert server.chat_requests == []  # refused before the first paid call
        metrics = ["token_f1", "faithfulness", "answer_correctness"]
        local = evaluate_answers(records, metrics, judge=make_judge(server.base_url, server.api_key))
        result = evaluate_answers_ray(records, metrics, judge_factory=factory, concurrency=2, batch_size=2)
    assert result.mean == pytest.approx(local.mean) and result.counts == local.counts
    assert result.stats["unmeasured"] == local.unmeasured == {"faithfulness": {"a2": "no_claims"}}
    assert result.stats["abstained"] == ["a2"] and result.mean["answer_correctness"] == pytest.approx(5 / 6)
