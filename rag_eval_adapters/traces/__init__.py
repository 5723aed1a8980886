"""Evaluating RAG from the traces teams already record: LangSmith run trees, OpenInference spans (OTLP JSON or
OpenTelemetry SDK spans), and plain trace records.

>>> from rag_eval_adapters.traces import trace_from_record, evaluate_traces
>>> trace = trace_from_record({"trace_id": "t1", "thread_id": "chat", "turn": 1, "question": "capital of France?",
...     "answer": "Paris", "steps": [{"type": "retrieval", "query": "capital of France?", "ids": ["d2", "d1"]}]},
...     "example")
>>> result = evaluate_traces([trace], {"chat:1": {"d1": 1}}, ["mrr"])
>>> result.steps.mean["mrr"]
0.5
"""

from __future__ import annotations

from .answering import evaluate_trace_answers, read_trace_references
from .comparing import TraceComparison, compare_traces, turn_scores
from .conversations import ConversationReport, conversation_interval
from .langsmith import read_runs, traces_from_runs
from .model import LLMStep, RetrievalStep, RetrievedChunk, Step, ToolCall, Trace, Turn
from .openinference import read_otlp_json, traces_from_spans
from .qrels import TraceQrels, judging_inputs, read_trace_qrels, trace_qrels
from .reading import read_traces, trace_format
from .records import trace_from_record, trace_record
from .scoring import TURN_FIGURES, TraceEvaluation, evaluate_traces, step_id
from .turns import answer_records, turn_contexts, turns

__all__ = [
    "Trace", "Turn", "RetrievalStep", "RetrievedChunk", "LLMStep", "ToolCall", "Step",
    "read_traces", "trace_format", "traces_from_runs", "read_runs", "traces_from_spans", "read_otlp_json",
    "trace_from_record", "trace_record", "TraceQrels", "trace_qrels", "read_trace_qrels", "judging_inputs",
    "evaluate_traces", "TraceEvaluation", "compare_traces", "TraceComparison", "turn_scores", "ConversationReport", "conversation_interval", "TURN_FIGURES", "step_id", "turns", "answer_records", "turn_contexts",
    "evaluate_trace_answers", "read_trace_references",
]
