"""Scoring traces: trec_eval-exact metrics for every retrieval step and agent-level figures for every turn.

:func:`evaluate_traces` reads the turns one at a time and scores their retrieval steps in batches through
:func:`~rag_eval_adapters.evaluate` (the same numbers as that function given the same rankings by hand), so
memory holds one batch and the per-step scores.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

import numpy as np

from ..evaluation import evaluate
from ..measures import MetricLike, parse_metrics
from ..validation import check_count, check_level
from .conversations import ConversationReport
from .model import RetrievalStep, Trace, Turn
from .qrels import TraceQrels, trace_qrels
from .turns import turns as as_turns

__all__ = ["TraceEvaluation", "evaluate_traces", "step_id", "TURN_FIGURES"]

TURN_FIGURES = ("retrieval_steps", "evidence_retrieved_anywhere")
"""The agent-level columns of every turn report, before the ``rewrite_effect:<metric>`` columns."""

Retriever = Callable[[str], Sequence[Hashable] | Mapping[Hashable, float]]


def step_id(turn: Turn, step: RetrievalStep) -> str:
    """The report id of a retrieval step: ``"<thread_id>:<turn>#<step>"`` (steps counted from 1)."""
    return f"{turn.key}#{step.index + 1}"


@dataclass
class TraceEvaluation:
    """The scores of a set of traces.

    Attributes
    ----------
    steps : ConversationReport
        One row a judged retrieval step (id :func:`step_id`), each metric; attributes ``thread_id``, ``turn``,
        ``step``, ``query``, ``trace_id``, ``rewritten`` (whether the query differs from the turn's question),
        so ``steps.by("turn")`` gives the means by turn position.
    turns : ConversationReport
        One row a judged turn (id ``"<thread_id>:<turn>"``): ``retrieval_steps``, ``evidence_retrieved_anywhere``
        (1 when any step retrieved a chunk graded at least the relevance level) and ``rewrite_effect:<metric>``
        (the rewritten query's score minus the raw question's; unmeasured, with the reason, where the turn has
        no such pair); attributes ``thread_id``, ``turn``, ``trace_id``.
    counts : dict
        ``traces``, ``turns``, ``retrieval_steps``, ``llm_steps``, ``tool_calls``, ``steps_without_qrels``,
        ``turns_without_qrels``, ``turn_index_from_input_order``.
    missing : dict
        What the traces lacked: ``{what: number of traces (or steps, "step:<what>") lacking it}``.
    """

    steps: ConversationReport
    turns: ConversationReport
    counts: dict[str, int] = field(default_factory=dict)
    missing: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """``{"steps", "turns", "counts", "missing"}``, ready for JSON."""
        return {"steps": self.steps.to_dict(), "turns": self.turns.to_dict(), "counts": dict(self.counts),
                "missing": dict(self.missing)}


class _Batches:
    """Retrieval steps waiting to be scored, and the scores of those already scored."""

    def __init__(self, metrics: Any, level: float, size: int) -> None:
        self.metrics, self.level, self.size = metrics, level, size
        self.qrels: dict[Hashable, Mapping[Any, float]] = {}
        self.run: dict[Hashable, Sequence[Hashable]] = {}
        self.ids: list[str] = []
        self.rows: list[list[float]] = []
        self.errors: dict[Hashable, str] = {}
        self.keys: list[str] | None = None
        self.measures: list[Any] | None = None
        self.scores: dict[str, list[float]] = {}

    def add(self, qid: str, judged: Mapping[Any, float], ranking: list[str]) -> None:
        self.qrels[qid], self.run[qid] = judged, ranking
        if len(self.qrels) >= self.size:
            self.flush()

    def flush(self) -> None:
        if not self.qrels:
            return
        report = evaluate(self.qrels, self.run, self.metrics, self.level, "error")
        self.measures, self.keys = report.metrics, report.keys
        for qid, row in zip(report.query_ids, report.values.tolist(), strict=True):
            self.scores[str(qid)] = row
        self.errors.update({str(q): e for q, e in report.errors.items()})
        self.qrels, self.run = {}, {}


def evaluate_traces(
    traces: Iterable[Trace] | Iterable[Turn],
    qrels: Mapping[Any, Mapping[Any, float]] | TraceQrels,
    metrics: MetricLike | Iterable[MetricLike],
    *,
    relevance_level: float = 1,
    retriever: Retriever | None = None,
    batch_size: int = 4096,
) -> TraceEvaluation:
    """Score every retrieval step of ``traces`` against ``qrels``, and every turn's agent-level figures.

    Parameters
    ----------
    traces : iterable of Trace or Turn
        Read traces (:func:`~.reading.read_traces`, :func:`~.openinference.traces_from_spans`,
        :func:`~.langsmith.traces_from_runs`); traces are placed in turns by :func:`~.turns.turns`.
    qrels : mapping or TraceQrels
        ``{"<thread_id>:<turn>": {doc_id: grade}}`` (the id split at its last colon), ``{(thread_id, turn): ...}``
        or ``{query text: ...}`` (see :func:`~.qrels.trace_qrels`), or :func:`~.qrels.read_trace_qrels`'s result.
    metrics : str, Metric or a list of them
        Retrieval metrics, as :func:`~rag_eval_adapters.evaluate` takes them.
    relevance_level : number
        The lowest grade that counts as relevant.
    retriever : callable, optional
        ``retriever(question) -> ranked ids`` (or ``{id: score}``): the raw question's retrieval for the
        rewrite effect of turns whose trace holds only the rewritten query's.
    batch_size : int
        Steps scored per call of :func:`~rag_eval_adapters.evaluate`.

    Returns
    -------
    TraceEvaluation
        ``steps`` and ``turns`` reports, counts and what the traces lacked.

    Each step is ranked in the order the retriever returned its chunks (the order the system used). A step
    without judgments is counted, not scored; a judged step with a chunk lacking an id is that step's error.
    """
    level = check_level(relevance_level)
    batches = _Batches(metrics, level, check_count(batch_size, "batch_size"))
    state = _TurnState(trace_qrels(qrels), level, retriever, batches)
    for turn in _turns(traces):
        state.add(turn)
    batches.flush()
    return state.finish(metrics)


def _turns(items: Iterable[Trace] | Iterable[Turn]) -> Iterator[Turn]:
    """Turns as given, or traces placed in turns by :func:`~.turns.turns` (no history: not needed here)."""
    stream = iter(items)
    first = next(stream, None)
    if first is None:
        return
    if isinstance(first, Turn):
        yield first
        for item in stream:
            if not isinstance(item, Turn):
                raise TypeError(f"give traces or turns, not both: got a {type(item).__name__} after turns")
            yield item
        return
    traces: Iterator[Any] = chain([first], stream)
    yield from as_turns(traces, history=False)


class _TurnState:
    """The turns read so far: their step rows (scored in batches) and their agent-level figures."""

    def __init__(self, qrels: TraceQrels, level: float, retriever: Retriever | None, batches: _Batches) -> None:
        self.qrels, self.level, self.retriever, self.batches = qrels, level, retriever, batches
        self.step_ids: list[str] = []
        self.step_attributes: dict[str, tuple[Any, ...]] = {}  # compact rows, made dicts once, by the Report
        self.turn_rows: list[tuple[str, dict[str, Any], float, float, tuple[str, str] | str]] = []
        self.counts = dict.fromkeys(("traces", "turns", "retrieval_steps", "llm_steps", "tool_calls",
                                     "steps_without_qrels", "turns_without_qrels", "turn_index_from_input_order"), 0)
        self.missing: dict[str, int] = {}

    def add(self, turn: Turn) -> None:
        trace = turn.trace
        self._count(turn)
        judged_turn = self.qrels.for_turn(turn)
        ids: dict[int, str] = {}
        for step in trace.retrievals:
            qid = self._step(turn, step)
            if qid is not None:
                ids[step.index] = qid
        if judged_turn is None:
            self.counts["turns_without_qrels"] += 1
            return
        relevant = {d for d, g in judged_turn.items() if g >= self.level}
        anywhere = float(any(c.id in relevant for s in trace.retrievals for c in s.chunks))
        attributes = {"thread_id": turn.thread_id, "turn": turn.index, "trace_id": trace.trace_id}
        self.turn_rows.append((turn.key, attributes, float(len(trace.retrievals)), anywhere,
                               self._rewrite_pair(turn, ids, judged_turn)))

    def _count(self, turn: Turn) -> None:
        trace = turn.trace
        self.counts["traces"] += 1
        self.counts["turns"] += 1
        self.counts["turn_index_from_input_order"] += turn.index_source != "recorded"
        for name, n in (("retrieval_steps", len(trace.retrievals)), ("llm_steps", len(trace.llm_steps)),
                        ("tool_calls", len(trace.tool_calls))):
            self.counts[name] += n
        for what in trace.missing:
            self.missing[what] = self.missing.get(what, 0) + 1
        for step in trace.steps:
            for what in step.missing:
                key = f"{step.kind}:{what}"
                self.missing[key] = self.missing.get(key, 0) + 1

    def _step(self, turn: Turn, step: RetrievalStep) -> str | None:
        judged = self.qrels.for_step(turn, step)
        if judged is None:
            self.counts["steps_without_qrels"] += 1
            return None
        qid = step_id(turn, step)
        self.step_ids.append(qid)
        self.step_attributes[qid] = (turn.thread_id, turn.index, step.index + 1, step.query, turn.trace.trace_id,
                                     _norm(step.query) != _norm(turn.trace.question))
        if "ids" in step.missing:
            self.batches.errors[qid] = (f"retrieval step {step.index + 1} of turn {turn.key} has chunks without "
                                        "an id (the trace did not record them), so it cannot be judged by id")
        else:
            self.batches.add(qid, judged, [str(i) for i in step.ids])
        return qid

    def _rewrite_pair(self, turn: Turn, ids: dict[int, str], judged: dict[str, float]) -> tuple[str, str] | str:
        """``(raw question's step id, rewritten query's step id)``, or why the turn has no such pair."""
        question = _norm(turn.trace.question)
        if question is None:
            return "the trace did not record the question"
        raw = [ids[s.index] for s in turn.trace.retrievals if s.index in ids and _norm(s.query) == question]
        rewritten = [ids[s.index] for s in turn.trace.retrievals if s.index in ids and _norm(s.query) != question]
        if not rewritten:
            return "no retrieval of a rewritten query"
        if raw:
            return raw[0], rewritten[0]
        if self.retriever is None:
            return "the trace holds no retrieval of the raw question (give a retriever)"
        found = self.retriever(turn.trace.question or "")
        ranking = [str(i) for i in found] if not isinstance(found, Mapping) else \
            [str(i) for i, _ in sorted(found.items(), key=lambda kv: (-kv[1], str(kv[0])), reverse=False)]
        qid = f"{turn.key}#raw"
        self.batches.add(qid, judged, ranking)
        return qid, rewritten[0]

    def finish(self, metrics: Any) -> TraceEvaluation:
        batches = self.batches
        measures = batches.measures if batches.measures is not None else parse_metrics(metrics)
        keys = batches.keys if batches.keys is not None else ConversationReport(measures, [], []).keys
        turns = self._turn_report(keys)
        scored = [q for q in self.step_ids if q in batches.scores]
        values = np.array([batches.scores[q] for q in scored], dtype=np.float64).reshape(len(scored), len(keys))
        batches.scores = {}  # held in ``values`` now: freed before the report's attributes are made
        errors: dict[Hashable, str] = {q: batches.errors[q] for q in self.step_ids if q in batches.errors}
        steps = ConversationReport(measures, scored, values, errors, None, self.level,
                                   _AttributeRows(self.step_attributes))
        self.step_attributes = {}
        return TraceEvaluation(steps, turns, dict(self.counts), dict(sorted(self.missing.items())))

    def _turn_report(self, keys: list[str]) -> ConversationReport:
        scores = self.batches.scores
        columns = list(TURN_FIGURES) + [f"rewrite_effect:{k}" for k in keys]
        rows, unmeasured = [], {c: {} for c in columns[2:]}  # type: ignore[var-annotated]
        for key, _, n, anywhere, pair in self.turn_rows:
            if isinstance(pair, tuple) and pair[0] in scores and pair[1] in scores:
                effect = [b - a for a, b in zip(scores[pair[0]], scores[pair[1]], strict=True)]
            else:
                reason = pair if isinstance(pair, str) else "a step of the pair could not be scored"
                effect = [float("nan")] * len(keys)
                for c in columns[2:]:
                    unmeasured[c][key] = reason
            rows.append([n, anywhere, *effect])
        values = np.array(rows, dtype=np.float64).reshape(len(rows), len(columns))
        return ConversationReport(columns, [r[0] for r in self.turn_rows], values, None, None, self.level,
                      {r[0]: r[1] for r in self.turn_rows}, {c: u for c, u in unmeasured.items() if u})


class _AttributeRows(Mapping[Hashable, Mapping[str, Any]]):
    """The steps' attributes as ``{step id: {field: value}}``, each dict made when read (the Report keeps its own
    copy), so only one set of dicts is ever held."""

    FIELDS = ("thread_id", "turn", "step", "query", "trace_id", "rewritten")

    def __init__(self, rows: dict[str, tuple[Any, ...]]) -> None:
        self.rows = rows

    def __getitem__(self, key: Hashable) -> dict[str, Any]:
        return dict(zip(self.FIELDS, self.rows[key], strict=True))  # type: ignore[index]

    def __iter__(self) -> Iterator[Hashable]:
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)


def _norm(text: str | None) -> str | None:
    return None if text is None else " ".join(text.split()).casefold()
