"""Answer metrics as LangSmith ``RunEvaluator``s: exact match, token F1, ROUGE-L and semantic similarity.

The prediction is found in the run's outputs (:func:`find_answer`): ``outputs[answer_key]`` when given, else
the first of ``answer``, ``output``, ``response``, ``result``, ``text``, ``content``, ``messages`` (its last
message), or the outputs themselves when they are a string or a message. A value may be a string, an
``AIMessage`` (its text content), or a serialized message. The reference is found in the example's outputs
(:func:`find_reference_answers`): ``outputs[reference_key]`` when given, else the first of ``reference``,
``references``, ``answer``, ``expected_answer``, ``ground_truth``, ``output``; one string or a list (the best
match counts).

>>> ExactMatchEvaluator()(outputs={"answer": "The Eiffel Tower."}, reference_outputs={"answer": "eiffel tower"})["score"]
1.0
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from langchain_core.messages import BaseMessage
from langsmith.evaluation import EvaluationResult, RunEvaluator

from ..answers import (
    FIELD_NAMES,
    AnswerMetric,
    BoundAnswerMetric,
    Embedder,
    ExactMatch,
    RougeL,
    SemanticSimilarity,
    TokenF1,
)
from ..answers.metrics import Part
from .documents import FEEDBACK_CONFIG, _query_id

__all__ = [
    "ANSWER_KEYS",
    "REFERENCE_KEYS",
    "find_answer",
    "find_reference_answers",
    "AnswerMetricEvaluator",
    "ExactMatchEvaluator",
    "TokenF1Evaluator",
    "RougeLEvaluator",
    "AnswerSimilarityEvaluator",
]

# the answer records' names of each field (rag_eval_adapters.answers.record), then LangSmith's own
ANSWER_KEYS = (*FIELD_NAMES["prediction"], "output", "result", "text", "content", "messages")
REFERENCE_KEYS = (*FIELD_NAMES["references"], "answer", "expected_answer", "output")


def _where(query_id: Any) -> str:
    return f"example {query_id}: " if query_id is not None else ""


def _text(value: Any) -> str | None:
    """The text of a string, a message, a serialized message, or a list of content blocks; None otherwise."""
    if isinstance(value, str):
        return value
    if isinstance(value, BaseMessage):
        value = value.content
        if isinstance(value, str):
            return value
    if isinstance(value, Mapping):
        if value.get("lc") == 1 and isinstance(value.get("kwargs"), Mapping):
            return _text(value["kwargs"].get("content"))
        if "content" in value and ("type" in value or "role" in value):
            return _text(value["content"])
        return None
    if isinstance(value, Sequence) and not isinstance(value, (bytes, bytearray)) and value:
        if all(isinstance(v, Mapping) and v.get("type") == "text" for v in value):  # content blocks
            return "".join(str(v.get("text", "")) for v in value)
        if all(isinstance(v, (BaseMessage, Mapping)) for v in value):  # a message list: the last one
            return _text(value[-1])
    return None


def find_answer(source: Any, answer_key: str | None = None, *, query_id: Any = None) -> str:
    """The predicted answer in a run, its outputs, a message or a string; ``ValueError`` naming what is missing."""
    outputs = getattr(source, "outputs", source) if not isinstance(source, (str, Mapping, BaseMessage)) else source
    text = _text(outputs)
    if text is not None:
        return text
    if not isinstance(outputs, Mapping):
        raise TypeError(f"{_where(query_id)}the outputs must be a mapping, a string or a message, "
                        f"got {type(outputs).__name__}")
    keys = (answer_key,) if answer_key is not None else ANSWER_KEYS
    for key in keys:
        if outputs.get(key) is not None:
            found = _text(outputs[key])
            if found is None:
                raise TypeError(f"{_where(query_id)}outputs[{key!r}] is a {type(outputs[key]).__name__}, "
                                "not a string or a message")
            return found
    raise ValueError(
        f"{_where(query_id)}no answer in the outputs (keys {sorted(map(str, outputs))}); return it under "
        f"'answer' or 'output', or pass answer_key='<your key>'"
    )


def find_reference_answers(source: Any, reference_key: str | None = None, *, query_id: Any = None) -> list[str]:
    """The reference answer(s) of an example, its outputs, a string or a list of strings."""
    if source is None:
        raise ValueError(f"{_where(query_id)}no reference: the evaluator needs the dataset example's outputs "
                         "with the reference answer (in a direct call pass reference_outputs={'answer': ...})")
    if isinstance(source, str):
        return [source]
    if isinstance(source, Sequence) and all(isinstance(s, str) for s in source):
        if not source:
            raise ValueError(f"{_where(query_id)}the reference list is empty")
        return list(source)
    outputs = source if isinstance(source, Mapping) else getattr(source, "outputs", None) or {}
    keys = (reference_key,) if reference_key is not None else REFERENCE_KEYS
    for key in keys:
        value = outputs.get(key)
        if value is None:
            continue
        text = _text(value)
        if text is not None and not isinstance(value, list):
            return [text]
        if isinstance(value, Sequence) and value and all(isinstance(v, str) for v in value):
            return list(value)
        raise TypeError(f"{_where(query_id)}reference outputs[{key!r}] must be a string or a non-empty list of "
                        f"strings, got {value!r:.80}")
    raise ValueError(
        f"{_where(query_id)}no reference answer in the example outputs (keys {sorted(map(str, outputs))}); store it "
        "under 'reference' or 'answer', or pass reference_key='<your key>'"
    )


class AnswerMetricEvaluator(RunEvaluator):
    """A LangSmith ``RunEvaluator`` scoring one answer metric (``exact_match``, ``token_f1``, ``rouge_l``, ...).

    Args:
        metric: a name (``"exact_match"``/``"em"``, ``"token_f1"``, ``"rouge_l_stem"``, ``"semantic_similarity"``;
            ``"f1"`` is retrieval F1, a ``ValueError`` here) or an
            :class:`~rag_eval_adapters.answers.AnswerMetric`.
        embedder: for ``semantic_similarity``: an :class:`~rag_eval_adapters.answers.Embedder` (its vectors are
            cached by content hash for the evaluator's lifetime).
        key: feedback key; default the metric's key.
        answer_key: the outputs key holding the prediction (default: searched, see the module doc).
        reference_key: the example outputs key holding the reference answer(s) (default: searched).
    """

    def __init__(
        self,
        metric: str | AnswerMetric,
        *,
        embedder: Embedder | None = None,
        key: str | None = None,
        answer_key: str | None = None,
        reference_key: str | None = None,
    ) -> None:
        self.bound = BoundAnswerMetric(metric, embedder, accepted="e.g. embedder=E5Embedder()")
        self.metric, self.embedder = self.bound.metric, self.bound.embedder
        for name, value in (("key", key), ("answer_key", answer_key), ("reference_key", reference_key)):
            if value is not None and (not isinstance(value, str) or not value):
                raise TypeError(f"{name} must be a non-empty string, got {value!r}")
        self.key = key or self.metric.key
        self.answer_key = answer_key
        self.reference_key = reference_key

    @property
    def feedback_keys(self) -> list[str]:
        """The feedback key this evaluator emits."""
        return [self.key]

    def _inputs(self, outputs: Any, reference: Any, query_id: Any) -> tuple[str, list[str]]:
        prediction = find_answer(outputs, self.answer_key, query_id=query_id)
        return prediction, find_reference_answers(reference, self.reference_key, query_id=query_id)

    def _result(self, score: float, references: list[str]) -> EvaluationResult:
        return EvaluationResult(key=self.key, score=score, feedback_config=dict(FEEDBACK_CONFIG),
                                comment=f"best of {len(references)} reference(s)" if len(references) > 1 else None)

    def _score(self, outputs: Any, reference: Any, query_id: Any) -> EvaluationResult:
        prediction, references = self._inputs(outputs, reference, query_id)
        return self._result(self.bound.score(prediction, references), references)

    def evaluate_run(self, run: Any, example: Any = None, evaluator_run_id: uuid.UUID | None = None,
                     **kwargs: Any) -> EvaluationResult:
        """Score the answer in ``run.outputs`` against the reference in ``example.outputs``."""
        return self._score(run, example, _query_id(run, example))

    async def aevaluate_run(self, run: Any, example: Any = None, evaluator_run_id: uuid.UUID | None = None,
                            **kwargs: Any) -> EvaluationResult:
        """As :meth:`evaluate_run`; embedding calls run in a worker thread, lexical metrics inline."""
        prediction, references = self._inputs(run, example, _query_id(run, example))
        return self._result(await self.bound.ascore(prediction, references), references)

    def __call__(self, *, inputs: Any = None, outputs: Any, reference_outputs: Any = None,
                 **kwargs: Any) -> dict[str, Any]:
        """openevals-style call: ``{"key", "score", "comment"}``; ``inputs`` and extra keywords are ignored."""
        result = self._score(outputs, reference_outputs, None)
        return {"key": result.key, "score": result.score, "comment": result.comment}

    def __repr__(self) -> str:
        extra = "".join(f", {n}={getattr(self, n)!r}" for n in ("answer_key", "reference_key") if getattr(self, n))
        return f"{type(self).__name__}({self.metric!r}, key={self.key!r}{extra})"


class ExactMatchEvaluator(AnswerMetricEvaluator):
    """Exact match after SQuAD-style Unicode normalisation (key ``exact_match``)."""

    def __init__(self, **options: Any) -> None:
        super().__init__(ExactMatch(), **options)


class TokenF1Evaluator(AnswerMetricEvaluator):
    """Token F1 (or ``part="precision"``/``"recall"``) against the best reference (key ``token_f1``, or
    ``token_precision``/``token_recall``)."""

    def __init__(self, *, part: Part = "f1", **options: Any) -> None:
        super().__init__(TokenF1(part=part), **options)


class RougeLEvaluator(AnswerMetricEvaluator):
    """ROUGE-L F (or precision/recall), optionally Porter-stemmed (key ``rouge_l``)."""

    def __init__(self, *, stem: bool = False, part: Part = "f1", **options: Any) -> None:
        super().__init__(RougeL(stem=stem, part=part), **options)


class AnswerSimilarityEvaluator(AnswerMetricEvaluator):
    """Cosine similarity of the answer's and the reference's embeddings (key ``semantic_similarity``)."""

    def __init__(self, embedder: Embedder, *, side: Literal["query", "passage"] = "query", **options: Any) -> None:
        super().__init__(SemanticSimilarity(side=side), embedder=embedder, **options)
