r"""Judged answer metrics: registry metrics of the ``"answer"`` family scored by an LLM judge.

Each is declared once, as a class (like every answer metric): its ``name``, ``variants``, the record fields it
``reads``, the judgment it needs (``judgment``: one call of
:meth:`rag_eval_adapters.judges.LLMJudge.judge_many` for a batch) and the part of the judge's result it
reports. Metrics of one judgment share it (``answer_correctness`` and its ``_precision``/``_recall`` cost one
judging). Every value is in [0, 1] (``bounded``), so every interval of a judged mean stays in [0, 1].

A new judged metric of an existing judgment is one class here (and ``python tools/gen_metric_docs.py``).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any, ClassVar

from .embedders import Embedder
from .metrics import AnswerMetric, Part
from .record import AnswerRecord

__all__ = ["JudgedMetric", "Faithfulness", "AnswerCorrectness", "ContextRelevance", "judge_records"]


class JudgedMetric(AnswerMetric):
    """An answer metric an LLM judge scores, a batch at a time (:func:`judge_records`)."""

    needs_judge: ClassVar[bool] = True
    judgment: ClassVar[str] = ""
    """The judge's metric (:data:`rag_eval_adapters.judges.JUDGE_METRICS`) whose result this metric reads."""

    def value(self, result: Any) -> float:
        """This metric's value of a measured :class:`~rag_eval_adapters.judges.JudgeResult`."""
        return float(result.score)

    def score(self, prediction: str, references: Any, embedder: Embedder | None = None) -> float:
        raise ValueError(f"{self.key} needs a judge: score it with evaluate_answers(records, [{self.key!r}], "
                         "judge=LLMJudge(...))")


class Faithfulness(JudgedMetric):
    r"""Faithfulness: the share of the answer's claims supported by a quote of its contexts.

    .. math:: \mathrm{faithfulness} = \frac{|\{c \in \mathrm{claims}(a) : c \text{ supported}\}|}{|\mathrm{claims}(a)|}

    The judge splits the answer into claims and checks each against the record's ``contexts``; a claim counts
    as supported only with a located quote carrying content (see ``docs/judges.md``). An answer without claims
    (an abstention: "I don't know") is unmeasured, counted in ``report.info["abstained"]``.

    References
    ----------
    S. Es et al., "RAGAS: Automated Evaluation of Retrieval Augmented Generation", EACL 2024 (demo),
    arXiv:2309.15217.
    """

    name: ClassVar[str] = "faithfulness"
    judgment: ClassVar[str] = "faithfulness"
    reads: ClassVar[tuple[str, ...]] = ("prediction", "contexts", "question")


class AnswerCorrectness(JudgedMetric):
    r"""Answer correctness: the F1 of claim precision and claim recall against the reference (or one of them).

    .. math:: \mathrm{correctness} = \frac{2PR}{P + R}, \quad P = \frac{|\mathrm{claims}(a) \text{ supported by } r|}{|\mathrm{claims}(a)|}, \quad R = \frac{|\mathrm{claims}(r) \text{ supported by } a|}{|\mathrm{claims}(r)|}

    An abstention scores 0 against a reference answer; on a record with ``answerable: false`` an abstention
    scores 1 and any other answer 0. Keys ``answer_correctness``, ``answer_correctness_precision``,
    ``answer_correctness_recall`` (one judging for all three).

    References
    ----------
    S. Es et al., "RAGAS: Automated Evaluation of Retrieval Augmented Generation", EACL 2024 (demo),
    arXiv:2309.15217.
    """

    name: ClassVar[str] = "answer_correctness"
    variants: ClassVar[dict[str, dict[str, Any]]] = {
        "answer_correctness_precision": {"part": "precision"}, "answer_correctness_recall": {"part": "recall"},
    }
    judgment: ClassVar[str] = "answer_correctness"
    reads: ClassVar[tuple[str, ...]] = ("prediction", "references", "question", "answerable")
    part: Part = "f1"

    @property
    def key(self) -> str:
        return self.name + ("" if self.part == "f1" else f"_{self.part}")

    def value(self, result: Any) -> float:
        return float(result.score if self.part == "f1" else result.parts[self.part])


class ContextRelevance(JudgedMetric):
    r"""Context relevance: the mean relevance grade / 3 of the record's contexts for its question.

    .. math:: \mathrm{context\ relevance} = \frac{1}{|C|} \sum_{c \in C} \frac{\mathrm{grade}(q, c)}{3}

    Grades 0 (unrelated) to 3 (answers the question); contexts the judge could not grade are left out, and a
    record none of whose contexts could be graded is unmeasured.

    References
    ----------
    P. Thomas et al., "Large language models can accurately predict searcher preferences", SIGIR 2024,
    arXiv:2309.10621.
    """

    name: ClassVar[str] = "context_relevance"
    judgment: ClassVar[str] = "relevance"
    reads: ClassVar[tuple[str, ...]] = ("question", "contexts")


def _item(record: AnswerRecord) -> dict[str, Any]:
    """What the judge reads of a record (a missing text is an empty one: unmeasured, not an error)."""
    return {"query_id": record.query_id, "question": record.question, "answer": record.prediction or "",
            "contexts": dict(record.contexts), "reference": record.references[0] if record.references else "",
            "answerable": record.answerable}


def _context_relevance(judge: Any, records: Sequence[AnswerRecord]) -> list[Any]:
    """The mean grade / 3 of each record's contexts (unmeasured when none could be graded)."""
    return judge.context_relevance([(r.question or "", [text for _, text in r.contexts]) for r in records])


def judge_records(judge: Any, judgment: str, records: Sequence[AnswerRecord]) -> dict[Hashable, Any]:
    """``{query_id: JudgeResult}`` of ``judgment`` (``faithfulness``, ``answer_correctness``, ``relevance``) for
    every record, judged concurrently by ``judge`` (an :class:`~rag_eval_adapters.judges.LLMJudge`)."""
    if judgment == "relevance":
        results = _context_relevance(judge, records)
    else:
        results = judge.judge_many(judgment, [_item(r) for r in records])
    return {r.query_id: result for r, result in zip(records, results, strict=True)}
