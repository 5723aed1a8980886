"""The trace model: what one recorded run of a RAG system or agent holds, as read from any tracer.

A :class:`Trace` is one run (one trace id): the user's question, the answer, and its steps in order, each a
:class:`RetrievalStep`, an :class:`LLMStep` or a :class:`ToolCall`. Its conversation is its ``thread_id`` (a
session or thread id) and its ``turn`` (1 for the first turn of the thread). Whatever the recorded run does not
carry (no thread id, no document ids, no scores, no question) is listed in ``missing`` and left ``None``, never
made up.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["RetrievedChunk", "RetrievalStep", "LLMStep", "ToolCall", "Step", "Trace", "Turn"]


@dataclass(frozen=True)
class RetrievedChunk:
    """One retrieved chunk of a retrieval step: its id, text and score, each ``None`` when not recorded."""

    id: str | None
    text: str | None = None
    score: float | None = None


@dataclass(frozen=True)
class RetrievalStep:
    """One retrieval of a run.

    Attributes
    ----------
    query : str or None
        The query the retriever was given (a rewritten question, an agent's tool argument...).
    chunks : tuple of RetrievedChunk
        What it returned, in the order returned.
    position : int
        The step's place among all steps of its trace (0 first), by start time.
    index : int
        Its place among the retrieval steps of its trace (0 first).
    name, span_id : str or None
        The recorded name and span (run) id.
    missing : tuple of str
        What the record lacks: ``"query"``, ``"ids"`` (some chunk has no id), ``"texts"``, ``"scores"``.
    """

    query: str | None
    chunks: tuple[RetrievedChunk, ...]
    position: int = 0
    index: int = 0
    name: str | None = None
    span_id: str | None = None
    missing: tuple[str, ...] = ()

    kind = "retrieval"

    @property
    def ids(self) -> list[str | None]:
        """The retrieved ids in the order returned."""
        return [c.id for c in self.chunks]

    @property
    def texts(self) -> list[str | None]:
        """The retrieved texts in the order returned."""
        return [c.text for c in self.chunks]

    @property
    def scores(self) -> list[float | None]:
        """The retriever's scores in the order returned."""
        return [c.score for c in self.chunks]


@dataclass(frozen=True)
class LLMStep:
    """One call of a language model: its messages in and its output, with the model's name when recorded."""

    model: str | None
    input_messages: tuple[tuple[str, str], ...]
    output: str | None
    position: int = 0
    name: str | None = None
    span_id: str | None = None
    missing: tuple[str, ...] = ()

    kind = "llm"


@dataclass(frozen=True)
class ToolCall:
    """One tool call: the tool's name, its arguments (as recorded, usually JSON text) and its output."""

    name: str | None
    arguments: str | None
    output: str | None
    position: int = 0
    span_id: str | None = None
    missing: tuple[str, ...] = ()

    kind = "tool"


Step = RetrievalStep | LLMStep | ToolCall


@dataclass(frozen=True)
class Trace:
    """One recorded run: its question, answer and steps, and where it sits in a conversation.

    Attributes
    ----------
    trace_id : str
        The tracer's id of the run.
    question, answer : str or None
        The user's input and the system's output of the run's root.
    steps : tuple
        Its :class:`RetrievalStep`, :class:`LLMStep` and :class:`ToolCall` steps, by start time.
    thread_id : str or None
        The session or thread the run belongs to (``session.id``, LangSmith's ``thread_id``/``session_id``/
        ``conversation_id`` metadata); ``None`` when not recorded.
    turn : int or None
        The turn index the tracer recorded (1 first); ``None`` when not recorded (see :func:`~.turns.turns`).
    source : str
        The format it was read from (``"openinference"``, ``"langsmith"``, ``"genai"``, ``"trace"``).
    missing : tuple of str
        What the run lacks (``"thread_id"``, ``"turn"``, ``"question"``, ``"answer"``, ``"retrieval"``...).
    start_time : float or None
        Its start, seconds since the epoch, when recorded.
    """

    trace_id: str
    question: str | None
    answer: str | None
    steps: tuple[Step, ...] = ()
    thread_id: str | None = None
    turn: int | None = None
    source: str = "trace"
    missing: tuple[str, ...] = ()
    start_time: float | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def retrievals(self) -> list[RetrievalStep]:
        """The retrieval steps, in order."""
        return [s for s in self.steps if isinstance(s, RetrievalStep)]

    @property
    def llm_steps(self) -> list[LLMStep]:
        """The LLM calls, in order."""
        return [s for s in self.steps if isinstance(s, LLMStep)]

    @property
    def tool_calls(self) -> list[ToolCall]:
        """The tool calls, in order."""
        return [s for s in self.steps if isinstance(s, ToolCall)]


@dataclass(frozen=True)
class Turn:
    """A trace placed in its conversation: ``thread_id`` (the trace id when none was recorded) and ``index``
    (1 first: the recorded turn, else its order among its thread's traces in the input).

    ``history`` holds the earlier turns of the thread as ``(role, text)`` pairs, alternating ``"user"`` and
    ``"agent"``; ``index_source`` says where the index came from (``"recorded"`` or ``"input order"``).
    """

    trace: Trace
    thread_id: str
    index: int
    history: tuple[tuple[str, str], ...] = ()
    index_source: str = "recorded"

    @property
    def key(self) -> str:
        """``"<thread_id>:<turn>"``, the query id of this turn's qrels."""
        return f"{self.thread_id}:{self.index}"
