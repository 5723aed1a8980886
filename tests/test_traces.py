"""rag_eval_adapters.traces and ``rag-eval traces``: traces read from OpenInference spans (a real LlamaIndex chat
engine instrumented by the real OpenInference package; OTLP JSON), LangSmith run trees (the real SDK, nothing
sent) and plain records, scored per step and per turn; the numbers equal those of the same data given by hand."""

from __future__ import annotations

import io
import json

import pytest

from rag_eval_adapters import evaluate
from rag_eval_adapters.cli import main
from rag_eval_adapters.traces import (
    answer_records,
    evaluate_traces,
    read_trace_qrels,
    read_traces,
    trace_from_record,
    trace_record,
    traces_from_runs,
    traces_from_spans,
    turns,
)

DOCS = {"d1": "Paris is the capital of France.", "d2": "Berlin is the capital of Germany.",
        "d3": "The Eiffel Tower is in Paris.", "d4": "France uses the euro."}
QRELS = {"chat-1:1": {"d1": 1}, "chat-1:2": {"d3": 2, "d1": 1}}


def _records():
    return [
        {"trace_id": "t1", "thread_id": "chat:7", "question": "Q", "answer": "A",
         "steps": [{"type": "retrieval", "query": "Q", "ids": ["a", "b"]},
                   {"type": "llm", "model": "m", "messages": [["user", "Q2?"]], "output": "Q2"},
                   {"type": "retrieval", "query": "Q2", "ids": ["b", "a"]}]},
        {"trace_id": "t2", "thread_id": "chat:7", "question": "Q3", "answer": "A3",
         "steps": [{"type": "retrieval", "query": "Q3", "ids": ["x", "z"], "scores": [2.0, 1.0]},
                   {"type": "tool", "name": "search", "arguments": "{}", "output": "x"}]},
    ]


def test_steps_score_as_evaluate_by_hand_and_turns_split_at_last_colon():
    traces = [trace_from_record(r, f"line {i}") for i, r in enumerate(_records(), 1)]
    result = evaluate_traces(traces, {"chat:7:1": {"b": 1}, "chat:7:2": {"z": 1}}, ["mrr", "ndcg@10"])
    by_hand = evaluate({"1": {"b": 1}, "2": {"b": 1}, "3": {"z": 1}}, {"1": ["a", "b"], "2": ["b", "a"],
                                                                      "3": ["x", "z"]}, ["mrr", "ndcg@10"])
    assert result.steps.query_ids == ["chat:7:1#1", "chat:7:1#2", "chat:7:2#1"]
    assert result.steps.values.tolist() == by_hand.values.tolist()
    assert result.turns.per_query["chat:7:1"] == {
        "retrieval_steps": 2.0, "evidence_retrieved_anywhere": 1.0,
        "rewrite_effect:mrr": 1.0 - 0.5, "rewrite_effect:ndcg@10": by_hand.values[1, 1] - by_hand.values[0, 1]}
    assert result.turns.unmeasured["rewrite_effect:mrr"] == {"chat:7:2": "no retrieval of a rewritten query"}
    assert result.counts["llm_steps"] == 1 and result.counts["tool_calls"] == 1
    assert result.counts["turn_index_from_input_order"] == 2 and result.missing["turn"] == 2
    grouped = result.steps.by("turn")
    assert grouped[1].mean["mrr"] == 0.75 and grouped[2].mean["mrr"] == 0.5


def test_rewrite_effect_from_a_given_retriever_and_query_text_qrels():
    trace = trace_from_record({"trace_id": "t", "question": "raw q", "answer": "a",
                               "steps": [{"type": "retrieval", "query": "better q", "ids": ["d1", "d2"]}]}, "x")
    result = evaluate_traces([trace], {"better q": {"d1": 1}}, ["mrr"], retriever=lambda q: ["d2", "d1"])
    assert result.turns.per_query["t:1"]["rewrite_effect:mrr"] == 1.0 - 0.5
    assert result.missing["thread_id"] == 1  # no thread recorded: the trace is its own conversation
    without = evaluate_traces([trace], {"better q": {"d1": 1}}, ["mrr"])
    assert "give a retriever" in without.turns.unmeasured["rewrite_effect:mrr"]["t:1"]


def test_a_step_without_ids_is_an_error_not_a_score():
    trace = trace_from_record({"trace_id": "t", "thread_id": "c", "turn": 1, "question": "q",
                               "steps": [{"type": "retrieval", "query": "q", "texts": ["some text"]}]}, "x")
    result = evaluate_traces([trace], {"c:1": {"d1": 1}}, ["mrr"])
    assert result.steps.query_ids == [] and "without an id" in result.steps.errors["c:1#1"]
    assert result.missing["retrieval:ids"] == 1 and result.missing["answer"] == 1


def test_plain_records_round_trip_and_interleaved_input_is_refused(tmp_path):
    traces = [trace_from_record(r, "x") for r in _records()]
    again = [trace_from_record(trace_record(t), "y") for t in traces]
    assert [t.steps for t in again] == [t.steps for t in traces]
    export = {"resourceSpans": [{"scopeSpans": [{"spans": [
        _otlp("aa", "01", None, "chat", {"openinference.span.kind": "CHAIN", "input.value": "q1"}),
        _otlp("bb", "02", None, "chat", {"openinference.span.kind": "CHAIN", "input.value": "q2"})]}]}]}
    late = {"resourceSpans": [{"scopeSpans": [{"spans": [_otlp("aa", "03", "01", "r", {})]}]}]}
    path = tmp_path / "spans.jsonl"
    path.write_text(json.dumps(export) + "\n" + json.dumps(late) + "\n")
    with pytest.raises(ValueError, match=r"spans.jsonl:2: trace 'aa' appears again"):
        list(read_traces(path))


def _otlp(trace_id, span_id, parent, name, attributes, start=0):
    values = [{"key": k, "value": {"intValue": str(v)} if isinstance(v, int) else {"stringValue": str(v)}}
              for k, v in attributes.items()]
    return {"traceId": trace_id, "spanId": span_id, "parentSpanId": parent or "", "name": name,
            "startTimeUnixNano": str(start), "attributes": values}


def _retriever_attributes(query, ids):
    out = {"openinference.span.kind": "RETRIEVER", "input.value": query}
    for i, doc in enumerate(ids):
        out[f"retrieval.documents.{i}.document.id"] = doc
        out[f"retrieval.documents.{i}.document.content"] = DOCS[doc]
        out[f"retrieval.documents.{i}.document.score"] = str(2.0 - i)
    return out


def test_otlp_json_spans_and_trec_qrels_through_the_cli(tmp_path):
    spans = [_otlp("aa", "01", None, "chat", {"openinference.span.kind": "CHAIN", "session.id": "s:1",
                                               "input.value": json.dumps({"message": "capital?"}),
                                               "output.value": "Paris", "metadata": json.dumps({"turn": 1})}),
             _otlp("aa", "02", "01", "retrieve", _retriever_attributes("capital?", ["d2", "d1"]), start=5),
             _otlp("aa", "03", "02", "_retrieve", _retriever_attributes("capital?", ["d2"]), start=6)]
    path = tmp_path / "traces.jsonl"
    path.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}) + "\n")
    (tmp_path / "qrels.txt").write_text("s:1:1 0 d1 1\n")
    [trace] = read_traces(path)
    assert (trace.thread_id, trace.turn, trace.question, trace.answer) == ("s:1", 1, "capital?", "Paris")
    assert [s.ids for s in trace.retrievals] == [["d2", "d1"]]  # the nested retriever span is the outer's
    assert trace.retrievals[0].scores == [2.0, 1.0] and trace.retrievals[0].missing == ()
    out, err = io.StringIO(), io.StringIO()
    status = main(["traces", "--input", str(path), "--qrels", str(tmp_path / "qrels.txt"), "-m", "mrr",
                   "--format", "json"], stdout=out, stderr=err)
    assert status == 0, err.getvalue()
    data = json.loads(out.getvalue())
    assert data["steps"]["per_query"] == {"s:1:1#1": {"mrr": 0.5}}
    assert data["groups"]["field"] == "turn" and data["turns"]["mean"]["evidence_retrieved_anywhere"] == 1.0


def test_cli_names_the_bad_line(tmp_path):
    path = tmp_path / "traces.jsonl"
    path.write_text(json.dumps(_records()[0]) + "\n" + json.dumps({"hello": 1}) + "\n")
    err = io.StringIO()
    assert main(["traces", "--input", str(path)], stdout=io.StringIO(), stderr=err) == 2
    assert "traces.jsonl:2" in err.getvalue()
    out = io.StringIO()
    path.write_text(json.dumps(_records()[0]) + "\n")
    assert main(["traces", "--input", str(path)], stdout=out, stderr=err) == 0
    assert "retrieval_steps 2" in out.getvalue() and "turn (1)" in out.getvalue()


def test_jsonl_qrels_by_thread_and_turn(tmp_path):
    path = tmp_path / "qrels.jsonl"
    path.write_text('{"thread_id": "chat:7", "turn": 1, "doc_id": "b", "relevance": 1}\n'
                    '{"thread_id": "chat:7", "turn": 2, "relevance": {"z": 2}}\n')
    qrels = read_trace_qrels(path)
    assert qrels.by_turn == {("chat:7", 1): {"b": 1.0}, ("chat:7", 2): {"z": 2.0}}
    path.write_text('{"thread_id": "c", "turn": "x", "doc_id": "b"}\n')
    with pytest.raises(ValueError, match=r"qrels.jsonl:1: \"turn\" must be an integer"):
        read_trace_qrels(path)


def test_langsmith_run_trees_from_the_sdk_and_their_exported_json(tmp_path):
    run_trees = pytest.importorskip("langsmith.run_trees")
    traces = []
    for turn, (question, ids) in enumerate([("capital?", ["d2", "d1"]), ("tower?", ["d3"])], 1):
        root = run_trees.RunTree(name="chat", run_type="chain", inputs={"question": question},
                                 extra={"metadata": {"thread_id": "chat-9", "turn": turn}})
        child = root.create_child(name="retriever", run_type="retriever", inputs={"query": question})
        child.end(outputs={"documents": [{"page_content": DOCS[d], "metadata": {"id": d, "score": 1.0}}
                                         for d in ids]})
        root.end(outputs={"answer": "Paris"})
        traces.append(root)
    from_objects = list(traces_from_runs(traces))
    exported = [json.loads(json.dumps(run.model_dump(), default=str))  # an export is flat: runs by trace_id
                for root in traces for run in (root, *root.child_runs)]
    from_json = list(traces_from_runs(exported))
    assert [t.retrievals[0].ids for t in from_objects] == [["d2", "d1"], ["d3"]]
    assert [(t.thread_id, t.turn) for t in from_json] == [("chat-9", 1), ("chat-9", 2)]
    qrels = {"chat-9:1": {"d1": 1}, "chat-9:2": {"d3": 1}}
    a, b = (evaluate_traces(x, qrels, ["mrr"]) for x in (from_objects, from_json))
    assert a.steps.per_query == b.steps.per_query == {"chat-9:1#1": {"mrr": 0.5}, "chat-9:2#1": {"mrr": 1.0}}
    path = tmp_path / "runs.jsonl"  # the export as a file, one run a line, read by rag-eval traces
    path.write_text("".join(json.dumps(run) + "\n" for run in exported))
    assert [trace_record(t) for t in read_traces(path)] == [trace_record(t) for t in from_json]
    out = io.StringIO()
    assert main(["traces", "-i", str(path)], stdout=out, stderr=io.StringIO()) == 0
    assert "traces 2, turns 2, retrieval_steps 2" in out.getvalue()


def test_answer_records_carry_the_turns_context_and_history():
    traces = [trace_from_record(r, "x") for r in _records()]
    records = list(answer_records(turns(traces), {"chat:7:2": "A3"}))
    assert records[1]["conversation"] == [{"speaker": "user", "text": "Q"}, {"speaker": "agent", "text": "A"}]
    assert records[1]["contexts"] == [{"chunk_id": "x", "text": ""}, {"chunk_id": "z", "text": ""}]
    assert records[1]["reference"] == "A3" and "reference" not in records[0]
    from rag_eval_adapters.answers import evaluate_answers
    report = evaluate_answers(records[1:], ["exact_match"], progress=False)
    assert report.per_query == {"chat:7:2": {"exact_match": 1.0}}


def test_real_llamaindex_chat_engine_traced_by_openinference(openai_server):
    pytest.importorskip("llama_index.llms.openai")
    instrumentation = pytest.importorskip("openinference.instrumentation")
    oi_llama = pytest.importorskip("openinference.instrumentation.llama_index")
    from llama_index.core.chat_engine import CondensePlusContextChatEngine
    from llama_index.core.retrievers import BaseRetriever
    from llama_index.core.schema import NodeWithScore, TextNode
    from llama_index.llms.openai import OpenAI
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    class Overlap(BaseRetriever):  # word overlap with the query: the same ranking computed by hand below
        def _retrieve(self, query_bundle):
            return [NodeWithScore(node=TextNode(id_=d, text=DOCS[d]), score=float(s))
                    for s, d in _overlap(query_bundle.query_str)[:2]]

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    instrumentor = oi_llama.LlamaIndexInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    condensed = "Where is the Eiffel Tower of France?"
    openai_server.handler = lambda body: condensed if "standalone" in json.dumps(body).lower() else "Paris."
    try:
        llm = OpenAI(model="gpt-4o-mini", api_base=openai_server.base_url, api_key=openai_server.api_key,
                     max_retries=0)
        engine = CondensePlusContextChatEngine.from_defaults(Overlap(), llm=llm)
        with instrumentation.using_session("chat-1"):
            engine.chat("What is the capital of France?")
            engine.chat("And its famous tower?")
    finally:
        instrumentor.uninstrument()
    traces = list(traces_from_spans(exporter.get_finished_spans()))
    assert [(t.thread_id, t.question) for t in traces] == [("chat-1", "What is the capital of France?"),
                                                           ("chat-1", "And its famous tower?")]
    queries = [[s.query for s in t.retrievals] for t in traces]
    assert queries == [["What is the capital of France?"], [condensed]]  # the rewritten question was retrieved
    assert [s.kind for s in traces[1].steps] == ["llm", "retrieval", "llm"]  # condense, retrieve, answer
    result = evaluate_traces(traces, QRELS, ["mrr", "ndcg@10", "recall@2"])
    rankings = {"1": [d for _, d in _overlap(queries[0][0])[:2]], "2": [d for _, d in _overlap(condensed)[:2]]}
    by_hand = evaluate({"1": QRELS["chat-1:1"], "2": QRELS["chat-1:2"]}, rankings, ["mrr", "ndcg@10", "recall@2"])
    assert result.steps.values.tolist() == by_hand.values.tolist()
    assert result.turns.per_query["chat-1:2"]["evidence_retrieved_anywhere"] == 1.0


def _overlap(query):
    words = set(query.lower().replace("?", "").split())
    scored = [(len(words & set(t.lower().rstrip(".").split())), d) for d, t in DOCS.items()]
    return sorted(scored, key=lambda x: (-x[0], x[1]))


def test_by_turn_intervals_resample_conversations_not_rows():
    # thread A: four turns that found the evidence, thread B: one that did not. Drawing 2 conversations gives
    # means 1 (AA), 0.8 (AB) or 0 (BB, a quarter of the draws): the 95% interval is [0, 1]. Drawing rows would
    # make 0 (five misses of five) very unlikely.
    records = [{"trace_id": f"a{i}", "thread_id": "A", "turn": i, "question": "q", "answer": "a",
                "steps": [{"type": "retrieval", "query": "q", "ids": ["d1"]}]} for i in range(1, 5)]
    records.append({"trace_id": "b1", "thread_id": "B", "turn": 1, "question": "q", "answer": "a",
                    "steps": [{"type": "retrieval", "query": "q", "ids": ["d9"]}]})
    qrels = {f"{r['thread_id']}:{r['turn']}": {"d1": 1} for r in records}
    result = evaluate_traces([trace_from_record(r, "x") for r in records], qrels, ["mrr"])
    grouped = result.turns.by(lambda key: "all turns", n_bootstrap=2000)
    row = grouped["all turns"]
    assert row.mean["evidence_retrieved_anywhere"] == 0.8
    assert (row.ci_low["evidence_retrieved_anywhere"], row.ci_high["evidence_retrieved_anywhere"]) == (0.0, 1.0)
    from rag_eval_adapters import Report
    rows = Report.by(result.turns, lambda key: "all turns", n_bootstrap=2000)["all turns"]
    assert rows.ci_low["evidence_retrieved_anywhere"] > 0.0  # the row bootstrap's narrower interval
    by_turn = result.steps.by("turn")
    assert by_turn[1].count == 2 and by_turn[1].ci_low["mrr"] == 0.0 and by_turn[2].ci_low["mrr"] == 1.0


def test_genai_spans_give_llm_steps_and_tool_calls_and_say_they_lack_retrieval(tmp_path):
    spans = [_otlp("cc", "01", None, "invoke_agent", {"gen_ai.operation.name": "invoke_agent",
                                                       "gen_ai.conversation.id": "conv-1"}),
             _otlp("cc", "02", "01", "chat gpt-4o", {"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o",
                                                     "gen_ai.conversation.id": "conv-1"}, start=1),
             _otlp("cc", "03", "01", "execute_tool search", {"gen_ai.operation.name": "execute_tool",
                                                             "gen_ai.tool.name": "search",
                                                             "gen_ai.tool.call.arguments": '{"q": "x"}'}, start=2)]
    path = tmp_path / "genai.jsonl"
    path.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}) + "\n")
    [trace] = read_traces(path)
    assert trace.source == "genai" and trace.thread_id == "conv-1"
    assert [s.kind for s in trace.steps] == ["llm", "tool"] and trace.llm_steps[0].model == "gpt-4o"
    assert trace.tool_calls[0].name == "search" and trace.tool_calls[0].arguments == '{"q": "x"}'
    assert "retrieval" in trace.missing and "question" in trace.missing


def test_two_systems_compared_turn_by_turn_unpaired_turns_counted():
    from rag_eval_adapters.compare import compare_reports
    from rag_eval_adapters.traces import compare_traces, turn_scores

    def system(order, turns_):
        return [trace_from_record({"trace_id": f"{order}{t}", "thread_id": f"c{t % 3}", "turn": t, "question": "q",
                                   "steps": [{"type": "retrieval", "query": "q", "ids": ["x", "d1"]},
                                             {"type": "retrieval", "query": "r", "ids": order}]}, "x")
                for t in turns_]
    qrels = {f"c{t % 3}:{t}": {"d1": 1} for t in range(1, 9)}
    a = evaluate_traces(system(["d9", "d1"], range(1, 9)), qrels, ["mrr", "ndcg@10"])
    b = evaluate_traces(system(["d1", "d9"], range(1, 7)), qrels, ["mrr", "ndcg@10"])
    result = compare_traces({"a": a, "b": b}, n_permutations=2000)
    assert (result.paired, result.unpaired) == (6, {"a": 2, "b": 0})
    test = result.comparison.tests[0]
    assert test.difference == pytest.approx(0.5)  # the last step: mrr 1/2 -> 1 on every paired turn
    by_hand = compare_reports({"a": turn_scores(a), "b": turn_scores(b)}, n_permutations=2000)
    assert [t.p_value for t in result.comparison.tests] == [t.p_value for t in by_hand.tests]
    assert turn_scores(a, "first").per_query["c1:1"] == {"mrr": 0.5, "ndcg@10": pytest.approx(0.6309297535714575)}


def test_real_langchain_pipeline_calling_a_retrieval_tool_twice_traced_by_openinference(openai_server):
    pytest.importorskip("langchain_openai")
    instrumentation = pytest.importorskip("openinference.instrumentation")
    oi_langchain = pytest.importorskip("openinference.instrumentation.langchain")
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
    from langchain_core.runnables import RunnableLambda
    from langchain_core.tools import tool
    from langchain_openai import ChatOpenAI
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    class Overlap(BaseRetriever):
        def _get_relevant_documents(self, query, *, run_manager=None):
            return [Document(page_content=DOCS[d], id=d, metadata={"score": float(s)}) for s, d in _overlap(query)[:2]]

    retriever = Overlap()

    @tool
    def search(query: str) -> str:
        """Search the documents."""
        return "\n".join(d.page_content for d in retriever.invoke(query))

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    instrumentor = oi_langchain.LangChainInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        llm = ChatOpenAI(model="gpt-4o-mini", base_url=openai_server.base_url, api_key=openai_server.api_key,
                         max_retries=0)

        def agent(question):  # the retrieval tool called twice: the question, then a follow-up query
            found = [search.invoke({"query": q}) for q in (question, "Eiffel Tower Paris")]
            return llm.invoke("\n".join([*found, question])).content

        with instrumentation.using_session("lc-1"):
            RunnableLambda(agent).with_config(run_name="agent").invoke("What is the capital of France?")
    finally:
        instrumentor.uninstrument()
    [trace] = traces_from_spans(exporter.get_finished_spans())
    assert (trace.thread_id, trace.question, trace.answer) == ("lc-1", "What is the capital of France?", "OK")
    assert [s.kind for s in trace.steps] == ["tool", "retrieval", "tool", "retrieval", "llm"]
    assert [s.query for s in trace.retrievals] == ["What is the capital of France?", "Eiffel Tower Paris"]
    assert trace.retrievals[1].scores == [3.0, 1.0]  # recorded in each document's metadata
    result = evaluate_traces([trace], {"lc-1:1": {"d3": 1}}, ["mrr", "recall@2"])
    by_hand = evaluate({"1": {"d3": 1}, "2": {"d3": 1}},
                       {str(i): [d for _, d in _overlap(q)[:2]] for i, q in
                        enumerate(["What is the capital of France?", "Eiffel Tower Paris"], 1)}, ["mrr", "recall@2"])
    assert result.steps.values.tolist() == by_hand.values.tolist()
    assert result.turns.per_query["lc-1:1"]["evidence_retrieved_anywhere"] == 1.0
    assert result.turns.per_query["lc-1:1"]["retrieval_steps"] == 2.0
    assert result.turns.per_query["lc-1:1"]["rewrite_effect:mrr"] == 1.0  # the follow-up query found d3 first
    assert result.counts["tool_calls"] == 2 and result.counts["llm_steps"] == 1


def test_cli_scores_each_turns_answer_against_its_reference(tmp_path):
    traces = tmp_path / "traces.jsonl"
    traces.write_text("".join(json.dumps(r) + "\n" for r in _records()))
    (tmp_path / "qrels.txt").write_text("chat:7:1 0 b 1\nchat:7:2 0 z 1\n")
    (tmp_path / "refs.jsonl").write_text('{"thread_id": "chat:7", "turn": 2, "reference": "A3"}\n'
                                         '{"query_id": "chat:7:1", "references": ["B", "C"]}\n')
    out, err = io.StringIO(), io.StringIO()
    status = main(["traces", "-i", str(traces), "--qrels", str(tmp_path / "qrels.txt"), "--references",
                   str(tmp_path / "refs.jsonl"), "-a", "exact_match,token_f1", "--format", "json"],
                  stdout=out, stderr=err)
    assert status == 0, err.getvalue()
    answers = json.loads(out.getvalue())["answers"]
    assert answers["per_query"] == {"chat:7:1": {"exact_match": 0.0, "token_f1": 0.0},
                                    "chat:7:2": {"exact_match": 1.0, "token_f1": 1.0}}
    assert answers["groups"]["field"] == "turn"
    (tmp_path / "refs.jsonl").write_text('{"thread_id": "chat:7", "turn": 2}\n')
    assert main(["traces", "-i", str(traces), "--qrels", str(tmp_path / "qrels.txt"), "--references",
                 str(tmp_path / "refs.jsonl")], stdout=io.StringIO(), stderr=err) == 2
    assert "refs.jsonl:1" in err.getvalue()


def test_nested_langsmith_runs_without_trace_ids_stay_one_trace():
    run = {"id": "r1", "run_type": "chain", "inputs": {"question": "q"}, "outputs": {"output": "a"},
           "extra": {"metadata": {"session_id": "s"}},
           "child_runs": [{"id": "r2", "run_type": "retriever", "inputs": {"query": "q"},
                           "outputs": {"documents": [{"page_content": "x", "metadata": {"doc_id": "d1"}}]}},
                          {"id": "r3", "run_type": "llm", "inputs": {"messages": [[{"role": "user", "content": "q"}]]},
                           "outputs": {"generations": [[{"text": "a"}]]}, "extra": {"invocation_params":
                                                                                   {"model": "m"}}}]}
    [trace] = traces_from_runs([run])
    assert (trace.trace_id, trace.thread_id, trace.question, trace.answer) == ("r1", "s", "q", "a")
    assert [s.kind for s in trace.steps] == ["retrieval", "llm"] and trace.retrievals[0].ids == ["d1"]
    assert trace.llm_steps[0].model == "m" and trace.llm_steps[0].input_messages == (("user", "q"),)
    assert trace.retrievals[0].missing == ("scores",)


def test_judged_relevance_for_steps_through_fill_judgments(judge_server):
    pytest.importorskip("openai")
    from rag_eval_adapters.judges import LLMJudge, fill_judgments
    from rag_eval_adapters.testsets import OpenAICompatibleLLM
    from rag_eval_adapters.traces import judging_inputs

    traces = [trace_from_record({"trace_id": "t", "thread_id": "c", "turn": 1, "question": "capital of France?",
                                 "steps": [{"type": "retrieval", "query": "capital of France?", "ids": ["d1", "d2"],
                                            "texts": [DOCS["d1"], DOCS["d2"]]}]}, "x")]
    run, queries, documents = judging_inputs(traces)
    assert run == {"capital of France?": {"d1": 1.0, "d2": 0.5}} and documents["d2"] == DOCS["d2"]
    llm = OpenAICompatibleLLM(model="judge-model", base_url=judge_server.base_url, api_key=judge_server.api_key)
    filled = fill_judgments({q: {} for q in run}, run, LLMJudge(llm, retry_base_delay=0.0), depth=2,
                            queries=queries, documents=documents)
    result = evaluate_traces(traces, filled.qrels, ["mrr", "ndcg@10"], relevance_level=2)
    by_hand = evaluate(filled.qrels, {q: list(r) for q, r in run.items()}, ["mrr", "ndcg@10"], relevance_level=2)
    assert len(judge_server.chat_requests) == 2 and result.steps.values.tolist() == by_hand.values.tolist()
    assert result.steps.mean["mrr"] > 0  # the judge graded a retrieved chunk relevant


@pytest.mark.parametrize("option", [["-m", "ndcg@x"], ["--k", "0"], ["--relevance-level", "high"]])
def test_cli_metric_options_are_evaluates_with_the_same_errors(tmp_path, option):
    traces = tmp_path / "traces.jsonl"
    traces.write_text("".join(json.dumps(r) + "\n" for r in _records()))
    (tmp_path / "qrels.txt").write_text("chat:7:1 0 b 1\nchat:7:2 0 z 1\n")
    (tmp_path / "run.txt").write_text("chat:7:1 Q0 b 1 1.0 r\n")
    errors = []
    for argv in (["traces", "-i", str(traces)], ["traces", "-i", str(traces), "--qrels", str(tmp_path / "qrels.txt")],
                 ["evaluate", "--qrels", str(tmp_path / "qrels.txt"), "--run", str(tmp_path / "run.txt")]):
        err = io.StringIO()
        assert main(argv + option, stdout=io.StringIO(), stderr=err) == 2  # checked before reading, --qrels or not
        errors.append(err.getvalue())
    assert errors[0] == errors[1] == errors[2] != ""


def test_cli_metric_cutoffs_and_help_as_evaluates(tmp_path, capsys):
    traces = tmp_path / "traces.jsonl"
    traces.write_text("".join(json.dumps(r) + "\n" for r in _records()))
    (tmp_path / "qrels.txt").write_text("chat:7:1 0 b 1\nchat:7:2 0 z 1\n")
    out = io.StringIO()
    assert main(["traces", "-i", str(traces), "--qrels", str(tmp_path / "qrels.txt"), "-m", "ndcg,mrr",
                 "--k", "1,10", "--format", "json"], stdout=out, stderr=io.StringIO()) == 0
    assert list(json.loads(out.getvalue())["steps"]["mean"]) == ["ndcg@1", "ndcg@10", "mrr@1", "mrr@10"]
    helps = []
    for command in ("traces", "evaluate"):
        out = io.StringIO()
        try:
            main([command, "--help"], stdout=out, stderr=io.StringIO())
        except SystemExit:
            pass
        text = " ".join((out.getvalue() + capsys.readouterr().out).split())
        helps.append(text[text.index("-m METRIC, --metric METRIC"):text.index("nDCG uses the raw grades")])
    assert helps[0] == helps[1]
