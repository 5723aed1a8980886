"""evaluate_dataset: whole data sets through a LlamaIndex RetrieverEvaluator, concurrently, with failures and Ctrl-C."""

from __future__ import annotations

import asyncio
import json
import math
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import pytest
from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.evaluation import RetrieverEvaluator
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from rag_eval_adapters.llamaindex import (
    MRR,
    DatasetEvaluation,
    HitRate,
    Recall,
    aevaluate_dataset,
    evaluate_dataset,
)

CORPUS = {
    "paris": "Paris is the capital of France",
    "berlin": "Berlin is the capital of Germany",
    "rome": "Rome is the capital of Italy",
    "seine": "The Seine flows through Paris",
    "rhine": "The Rhine flows through Germany",
}


class KeywordRetriever(BaseRetriever):
    """A real LlamaIndex retriever: ranks nodes by words shared with the query (ties by id).

    ``delay(query)`` seconds are awaited per query (a stand-in for a network call); a query containing "boom"
    raises; ``hook(query)`` runs before each retrieval.
    """

    def __init__(self, delay: Callable[[str], float] = lambda q: 0.0, top_k: int = 2,
                 hook: Callable[[str], None] | None = None) -> None:
        super().__init__()
        self.nodes = [TextNode(id_=node_id, text=text) for node_id, text in CORPUS.items()]
        self.delay, self.top_k, self.hook = delay, top_k, hook
        self.calls = 0

    def _rank(self, query: str) -> list[NodeWithScore]:
        self.calls += 1
        if "boom" in query:
            raise RuntimeError("vector store unavailable")
        words = set(query.lower().split())
        scored = [(len(words & set(node.text.lower().split())), node.node_id, node) for node in self.nodes]
        scored.sort(key=lambda t: (-t[0], t[1]))
        return [NodeWithScore(node=node, score=float(score)) for score, _, node in scored[: self.top_k]]

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        time.sleep(self.delay(query_bundle.query_str))
        return self._rank(query_bundle.query_str)

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        if self.hook is not None:
            self.hook(query_bundle.query_str)
        await asyncio.sleep(self.delay(query_bundle.query_str))
        return self._rank(query_bundle.query_str)


DATA = [
    {"query": "capital of germany", "expected_ids": ["berlin"]},  # berlin first -> mrr 1
    {"query": "paris france seine", "expected_ids": ["seine"]},  # paris, seine -> mrr 1/2
    {"query": "capital of italy", "expected_ids": ["rome"]},
    {"query": "boom", "expected_ids": ["rome"]},  # retrieval raises
    {"query": "rhine germany", "expected_ids": ["rhine"]},
    {"query": "tell me about spain", "expected_ids": ["madrid"]},  # not in corpus -> 0
]


def _evaluator(retriever: BaseRetriever) -> RetrieverEvaluator:
    return RetrieverEvaluator(metrics=[HitRate(), MRR(), HitRate(top_k=1)], retriever=retriever)


def test_results_in_input_order_errors_recorded_means_over_scored():
    # later queries finish first, so completion order is the reverse of input order
    delays = {row["query"]: 0.01 * (len(DATA) - i) for i, row in enumerate(DATA)}
    run = evaluate_dataset(_evaluator(KeywordRetriever(delay=delays.get)), DATA, workers=8, show_progress=False)
    assert isinstance(run, DatasetEvaluation)
    assert [r.query for r in run.results] == [row["query"] for row in DATA if row["query"] != "boom"]
    assert run.indices == [0, 1, 2, 4, 5]
    assert [(e.index, e.query) for e in run.errors] == [(3, "boom")]
    assert run.errors[0].message == "RuntimeError: vector store unavailable"
    mrr = [r.metric_vals_dict["mrr"] for r in run.results]
    assert mrr == [1.0, 0.5, 1.0, 1.0, 0.0]
    assert run.mean == {
        "hit_rate": pytest.approx(4 / 5),
        "mrr": pytest.approx(sum(mrr) / 5),
        "hit_rate@1": pytest.approx(3 / 5),
    }
    assert (run.total, run.interrupted, run.unfinished) == (6, False, 0)
    assert "scored=5, errors=1, total=6" in repr(run)


def test_to_dataframe_one_row_a_query():
    run = evaluate_dataset(_evaluator(KeywordRetriever()), DATA, show_progress=False)
    frame = run.to_dataframe()
    assert list(frame.columns) == ["index", "query", "hit_rate", "mrr", "hit_rate@1", "expected_ids", "retrieved_ids"]
    assert list(frame["index"]) == [0, 1, 2, 4, 5]
    assert frame["mrr"].mean() == pytest.approx(run.mean["mrr"])
    assert frame.loc[1, "retrieved_ids"] == ["paris", "seine"]
    everything = run.to_dataframe(include_errors=True)
    assert list(everything["index"]) == [0, 1, 2, 3, 4, 5]
    assert everything.loc[3, "error"] == "RuntimeError: vector store unavailable"
    assert everything["error"].isna().sum() == 5


def test_metric_errors_are_recorded_and_the_rest_scored():
    rows = [{"query": "capital of germany", "expected_ids": ["berlin"]},
            {"query": "capital of italy", "expected_ids": [], "expected_texts": ["rome is the capital of italy"]},
            {"query": "capital of france", "expected_ids": [], "expected_texts": ["   "]}]  # blank text: metric raises
    evaluator = RetrieverEvaluator(metrics=[Recall()], retriever=KeywordRetriever())
    run = evaluate_dataset(evaluator, rows, show_progress=False)
    assert [r.metric_vals_dict for r in run.results] == [{"recall": 1.0}, {"recall": 1.0}]
    assert [e.index for e in run.errors] == [2]
    assert "expected_texts[0] is blank" in run.errors[0].message
    assert "capital of france" in run.errors[0].message


@dataclass
class Row:
    query: str
    expected_ids: list
    expected_texts: list | None = None


def test_dataset_forms_mappings_objects_generators_and_jsonl(tmp_path: Path):
    rows = DATA[:3]
    evaluator = _evaluator(KeywordRetriever())
    expected = [r.metric_vals_dict for r in evaluate_dataset(evaluator, rows, show_progress=False).results]
    forms = {
        "objects": [Row(r["query"], r["expected_ids"]) for r in rows],
        "namespaces": [SimpleNamespace(**r) for r in rows],
        "generator": (dict(r) for r in rows),
    }
    path = tmp_path / "qa.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n\n", encoding="utf-8")
    forms["jsonl str"] = str(path)
    forms["jsonl path"] = path
    for name, dataset in forms.items():
        run = evaluate_dataset(evaluator, dataset, show_progress=False)
        assert [r.metric_vals_dict for r in run.results] == expected, name
        assert not run.errors, name


def test_a_test_set_is_a_data_set_as_object_file_and_hand_written_lines(tmp_path: Path):
    from rag_eval_adapters.testsets import TestCase, TestSet, evaluate_dataset_rows

    rows = DATA[:3]
    evaluator = _evaluator(KeywordRetriever())
    expected = [r.metric_vals_dict for r in evaluate_dataset(evaluator, rows, show_progress=False).results]
    testset = TestSet([TestCase(f"q{i}", r["query"], relevant_chunk_ids=r["expected_ids"]) for i, r in enumerate(rows)])
    path = tmp_path / "testset.jsonl"
    testset.to_jsonl(path)
    hand = tmp_path / "hand.jsonl"  # only what a person types: the ids under the test-set name
    hand.write_text("".join(json.dumps({"query_id": c.query_id, "query": c.query,
                                        "relevant_chunk_ids": c.relevant_chunk_ids}) + "\n" for c in testset),
                    encoding="utf-8")
    for name, dataset in {"TestSet": testset, "file": path, "hand-written": hand,
                          "rows": evaluate_dataset_rows(hand)}.items():
        run = evaluate_dataset(evaluator, dataset, show_progress=False)
        assert [r.metric_vals_dict for r in run.results] == expected, name
        assert not run.errors, name


def test_malformed_rows_are_errors_and_the_rest_is_scored(tmp_path: Path):
    path = tmp_path / "qa.jsonl"
    path.write_text(
        "\n".join([
            json.dumps({"query": "capital of germany", "expected_ids": ["berlin"]}),
            "{not json",
            json.dumps(["a", "list"]),
            json.dumps({"expected_ids": ["berlin"]}),
            json.dumps({"query": "capital of italy", "expected_ids": "rome"}),
            json.dumps({"query": "capital of italy"}),
            json.dumps({"query": "capital of italy", "expected_ids": ["rome"]}),
        ]),
        encoding="utf-8",
    )
    retriever = KeywordRetriever()
    run = evaluate_dataset(_evaluator(retriever), path, show_progress=False)
    assert run.indices == [0, 6]
    assert retriever.calls == 2  # malformed rows never reach the retriever
    messages = {e.index: e.message for e in run.errors}
    assert sorted(messages) == [1, 2, 3, 4, 5]
    assert "qa.jsonl:2: not valid JSON" in messages[1]
    assert "qa.jsonl:3: expected a JSON object" in messages[2]
    assert "row has no query" in messages[3] and "qa.jsonl:4" in messages[3]
    assert "expected_ids is a single string; pass a list of texts, e.g. ['rome']" in messages[4]
    assert "no expectation" in messages[5]


def test_bad_arguments_raise():
    evaluator = _evaluator(KeywordRetriever())
    with pytest.raises(TypeError, match="BaseRetrievalEvaluator"):
        evaluate_dataset(KeywordRetriever(), DATA)
    with pytest.raises(ValueError, match="workers must be a positive int"):
        evaluate_dataset(evaluator, DATA, workers=0)
    with pytest.raises(FileNotFoundError, match="not found"):
        evaluate_dataset(evaluator, "/no/such/qa.jsonl")
    with pytest.raises(TypeError, match="iterable of rows"):
        evaluate_dataset(evaluator, {"query": "x", "expected_ids": ["y"]})


class GatedRetriever(KeywordRetriever):
    """Holds every retrieval until ``gate_at`` are in flight together, then lets them all through.

    It counts the most retrievals ever in flight at once. If ``gate_at`` never come together (the evaluator runs
    fewer at once), the first wait gives up after a generous timeout, records it in ``never_full`` and opens
    the gate, so such a run fails the test quickly instead of hanging.
    """

    def __init__(self, gate_at: int) -> None:
        super().__init__()
        self.gate_at = gate_at
        self.in_flight = self.most_in_flight = 0
        self.never_full = False
        self.gate = asyncio.Event()

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            if self.in_flight >= self.gate_at:
                self.gate.set()
            try:
                await asyncio.wait_for(self.gate.wait(), timeout=10)
            except asyncio.TimeoutError:
                self.never_full = True
                self.gate.set()
            return self._rank(query_bundle.query_str)
        finally:
            self.in_flight -= 1


@pytest.mark.parametrize("workers, expected", [(1, 1), (4, 4), (16, 16), (64, 24)])
def test_workers_is_the_number_of_queries_in_flight(workers, expected):
    """``workers`` retrievals run together (all 24 queries when fewer), and never more."""
    rows = [{"query": f"capital of germany {i}", "expected_ids": ["berlin"]} for i in range(24)]
    retriever = GatedRetriever(gate_at=expected)
    run = evaluate_dataset(_evaluator(retriever), rows, workers=workers, show_progress=False)
    assert not retriever.never_full, f"{expected} queries were never in flight together with workers={workers}"
    assert len(run.results) == 24 and not run.errors and run.mean["hit_rate"] == 1.0
    assert retriever.most_in_flight == expected


def test_ctrl_c_keeps_the_finished_results():
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        pytest.skip("SIGINT has a custom handler in this process")

    def hook(query: str) -> None:
        if query == "q 5":
            signal.raise_signal(signal.SIGINT)  # the user presses Ctrl-C while query 5 is in flight

    rows = [{"query": f"q {i}", "expected_ids": ["berlin"]} for i in range(20)]
    retriever = KeywordRetriever(delay=lambda q: 0.01, hook=hook)
    run = evaluate_dataset(_evaluator(retriever), rows, workers=1, show_progress=False)
    assert run.interrupted
    assert run.indices == [0, 1, 2, 3, 4]
    assert run.unfinished == 15 and not run.errors
    assert set(run.mean) == {"hit_rate", "mrr", "hit_rate@1"}
    assert "interrupted=True, unfinished=15" in repr(run)


def test_keyboard_interrupt_raised_inside_a_retrieval_keeps_the_finished_results():
    def hook(query: str) -> None:
        if query == "q 3":
            raise KeyboardInterrupt  # a blocking retriever interrupted mid-call

    rows = [{"query": f"q {i}", "expected_ids": ["berlin"]} for i in range(10)]
    run = evaluate_dataset(_evaluator(KeywordRetriever(hook=hook)), rows, workers=1, show_progress=False)
    assert run.interrupted and run.indices == [0, 1, 2] and run.unfinished == 7


def test_works_inside_a_running_event_loop():
    async def notebook_cell() -> DatasetEvaluation:
        return evaluate_dataset(_evaluator(KeywordRetriever()), DATA, workers=4, show_progress=False)

    run = asyncio.run(notebook_cell())
    assert run.indices == [0, 1, 2, 4, 5] and len(run.errors) == 1


def test_ctrl_c_inside_a_running_event_loop_keeps_the_finished_results():
    # a loop run without asyncio.run's SIGINT handling, as in a notebook: Ctrl-C interrupts the waiting thread
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        pytest.skip("SIGINT has a custom handler in this process")
    import _thread

    def hook(query: str) -> None:
        if query == "q 4":
            _thread.interrupt_main()

    rows = [{"query": f"q {i}", "expected_ids": ["berlin"]} for i in range(30)]
    retriever = KeywordRetriever(delay=lambda q: 0.02, hook=hook)

    async def cell() -> DatasetEvaluation:
        return evaluate_dataset(_evaluator(retriever), rows, workers=1, show_progress=False)

    loop = asyncio.new_event_loop()
    try:
        run = loop.run_until_complete(cell())
    finally:
        loop.close()
    assert run.interrupted
    assert run.indices == list(range(len(run.indices))) and 4 <= len(run.indices) < 30


def test_aevaluate_dataset():
    run = asyncio.run(aevaluate_dataset(_evaluator(KeywordRetriever()), DATA, workers=2, show_progress=False))
    assert run.indices == [0, 1, 2, 4, 5]
    assert math.isclose(run.mean["hit_rate"], 4 / 5)


def test_progress_bar_is_silent_off_a_terminal_and_optional(monkeypatch, capsys):
    monkeypatch.delenv("TQDM_DISABLE", raising=False)
    evaluator = _evaluator(KeywordRetriever())
    run = evaluate_dataset(evaluator, DATA, show_progress=True)
    assert len(run.results) == 5
    assert capsys.readouterr().err == ""  # stderr is not a TTY under pytest: tqdm turns itself off
    monkeypatch.setitem(sys.modules, "tqdm", None)  # tqdm not installed: no bar, no error
    assert len(evaluate_dataset(evaluator, DATA, show_progress=True).results) == 5


def test_ctrl_c_under_asyncio_run_stops_the_run_and_keeps_the_finished_results():
    # asyncio.run's own SIGINT handler only cancels its main task, which is blocked in evaluate_dataset
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        pytest.skip("SIGINT has a custom handler in this process")

    def hook(query: str) -> None:
        if query == "q 4":
            signal.raise_signal(signal.SIGINT)

    rows = [{"query": f"q {i}", "expected_ids": ["berlin"]} for i in range(200)]
    retriever = KeywordRetriever(delay=lambda q: 0.01, hook=hook)

    async def main() -> DatasetEvaluation:
        run = evaluate_dataset(_evaluator(retriever), rows, workers=1, show_progress=False)
        await asyncio.sleep(0)  # the caller's coroutine carries on
        return run

    run = asyncio.run(main())
    assert run.interrupted
    assert run.indices == list(range(len(run.indices))) and 4 <= len(run.indices) < 200
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # the handler is put back


class HangingRetriever(KeywordRetriever):
    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        if "hang" in query_bundle.query_str:
            await asyncio.sleep(60)  # a network call that never answers
        return self._rank(query_bundle.query_str)


@pytest.mark.parametrize("inside_a_loop", [False, True])
def test_timeout_makes_a_hanging_query_its_own_error(inside_a_loop):
    rows = [{"query": "capital of germany", "expected_ids": ["berlin"]},
            {"query": "hang forever", "expected_ids": ["rome"]},
            {"query": "capital of italy", "expected_ids": ["rome"]}]

    def evaluate():
        return evaluate_dataset(_evaluator(HangingRetriever()), rows, workers=2, show_progress=False, timeout=0.2)

    async def cell():
        return evaluate()

    run = asyncio.run(cell()) if inside_a_loop else evaluate()
    assert run.indices == [0, 2] and not run.interrupted
    assert [(e.index, e.query) for e in run.errors] == [(1, "hang forever")]
    assert run.errors[0].message == "TimeoutError: no result within timeout=0.2 s; the query was cancelled"


@pytest.mark.parametrize("bad, error", [(0, ValueError), (-1, ValueError), (float("nan"), ValueError),
                                        (float("inf"), ValueError), (True, TypeError), ("5", TypeError)])
def test_bad_timeout_is_refused(bad, error):
    with pytest.raises(error, match=r"^timeout must be a positive finite number of seconds per query, got "):
        evaluate_dataset(_evaluator(KeywordRetriever()), DATA, timeout=bad)


def test_a_bad_byte_is_that_lines_error_and_the_rest_is_scored(tmp_path: Path):
    lines = [json.dumps({"query": "capital of germany", "expected_ids": ["berlin"]}).encode(),
             b'{"query": "capital of \xff\xfe italy", "expected_ids": ["rome"]}',
             json.dumps({"query": "capital of italy", "expected_ids": ["rome"]}).encode(),
             b"[" * 100_000,  # nested too deeply for the JSON parser
             json.dumps({"query": "rhine germany", "expected_ids": ["rhine"]}).encode()]
    path = tmp_path / "qa.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + b"\r\n".join(lines) + b"\r\n")  # a BOM and Windows line ends
    run = evaluate_dataset(_evaluator(KeywordRetriever()), path, show_progress=False)
    assert run.indices == [0, 2, 4]
    messages = {e.index: e.message for e in run.errors}
    assert sorted(messages) == [1, 3]
    assert messages[1].startswith(f"ValueError: {path}:2: not valid UTF-8 (byte 0xff")
    assert messages[3].startswith(f"ValueError: {path}:4: the JSON is nested too deeply")
