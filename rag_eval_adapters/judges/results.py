"""What a judge returns for one item: a score, or an explicit *unmeasured* result with its reason; never NaN."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

__all__ = ["UNMEASURED_REASONS", "VERDICTS", "ClaimVerdict", "JudgeResult"]

#: why an item has no score: each judge returns one of these instead of a number it cannot stand behind
UNMEASURED_REASONS = (
    "empty_answer",    # the answer (or, for correctness, the reference) is empty
    "empty_input",     # nothing to judge against: no context, an empty passage or query
    "no_claims",       # the model found no claim in the text to check
    "refusal",         # the model refused
    "invalid_output",  # no valid reply after one repair call
    "call_failed",     # the call failed after its retries (HTTP error, timeout)
)

#: a claim's verdict against a context
VERDICTS = ("supported", "contradicted", "not_found")


@dataclass(frozen=True)
class ClaimVerdict:
    """One claim and its verdict against the context (or the reference).

    Attributes
    ----------
    claim : str
        The claim, as the model stated it (in the answer's language).
    verdict : str
        ``supported``, ``contradicted`` or ``not_found``. A claim the model called supported whose quote could
        not be found in the context is ``not_found`` (``note`` says so): support needs a verbatim quote.
    chunk_id : str or None
        The context chunk holding the quote (for ``supported`` and, when given, ``contradicted``).
    quote : str or None
        The chunk's own text at the located quote (verbatim, even when the model's quote differed slightly).
    start, end : int or None
        Offsets of ``quote`` in the chunk text (end exclusive).
    note : str
        Why a verdict was changed, or empty.
    """

    claim: str
    verdict: str
    chunk_id: str | None = None
    quote: str | None = None
    start: int | None = None
    end: int | None = None
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The fields as a plain dict (for JSON)."""
        return {"claim": self.claim, "verdict": self.verdict, "chunk_id": self.chunk_id, "quote": self.quote,
                "start": self.start, "end": self.end, "note": self.note}


@dataclass(frozen=True)
class JudgeResult:
    """One judged item: a ``score`` in [0, 1] (relevance: the grade 0-3 as ``grade``, score = grade / 3), or
    ``score=None`` with ``unmeasured`` naming the reason (one of :data:`UNMEASURED_REASONS`) and ``detail``.

    Attributes
    ----------
    metric : str
        ``relevance``, ``faithfulness`` or ``answer_correctness``.
    score : float or None
        The score, finite, in [0, 1]; None when unmeasured.
    unmeasured : str or None
        The reason there is no score.
    detail : str
        A human-readable explanation (the error message of a failed call, the refusal text...).
    grade : int or None
        The relevance grade 0-3 (relevance only).
    claims : tuple of ClaimVerdict
        Faithfulness: the answer's claims against the context. Correctness: the answer's claims against the
        reference (precision).
    reference_claims : tuple of ClaimVerdict
        Correctness: the reference's claims against the answer (recall).
    parts : dict
        Named sub-scores (correctness: ``precision``, ``recall``, ``f1``).
    reasoning : str
        The model's short justification, when it gave one.
    abstained : bool
        The answer abstains ("I don't know": :func:`~rag_eval_adapters.answers.is_abstention`, or no claim
        found in it): faithfulness is then unmeasured (``no_claims``), correctness 0 against a reference.
    """

    metric: str
    score: float | None = None
    unmeasured: str | None = None
    detail: str = ""
    grade: int | None = None
    claims: tuple[ClaimVerdict, ...] = ()
    reference_claims: tuple[ClaimVerdict, ...] = ()
    parts: dict[str, float] = field(default_factory=dict)
    reasoning: str = ""
    abstained: bool = False

    def __post_init__(self) -> None:
        if (self.score is None) == (self.unmeasured is None):
            raise ValueError("a JudgeResult has either a score or an unmeasured reason, exactly one")
        if self.score is not None and not (math.isfinite(self.score) and 0.0 <= self.score <= 1.0):
            raise ValueError(f"a judge score must be a finite number in [0, 1], got {self.score!r}")
        if self.unmeasured is not None and self.unmeasured not in UNMEASURED_REASONS:
            raise ValueError(f"unknown unmeasured reason {self.unmeasured!r}; one of {UNMEASURED_REASONS}")

    @property
    def measured(self) -> bool:
        """True when the item has a score."""
        return self.score is not None

    @classmethod
    def failed(cls, metric: str, reason: str, detail: str = "", *, abstained: bool = False) -> JudgeResult:
        """An unmeasured result."""
        return cls(metric, None, reason, detail, abstained=abstained)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (claims as dicts; empty fields left out)."""
        out: dict[str, Any] = {"metric": self.metric, "score": self.score}
        if self.unmeasured is not None:
            out["unmeasured"] = self.unmeasured
            out["detail"] = self.detail
        if self.grade is not None:
            out["grade"] = self.grade
        if self.parts:
            out["parts"] = dict(self.parts)
        if self.claims:
            out["claims"] = [c.to_dict() for c in self.claims]
        if self.reference_claims:
            out["reference_claims"] = [c.to_dict() for c in self.reference_claims]
        if self.reasoning:
            out["reasoning"] = self.reasoning
        if self.abstained:
            out["abstained"] = True
        return out
