"""The judges' reply forms as pydantic models, and reading a model's reply into one.

The models are lenient where real models differ harmlessly (extra keys are ignored, ``"2"`` is read as 2,
``score`` is accepted for ``grade``, ``"Not found"`` for ``not_found``, a bare list for ``{"claims": [...]}``)
and strict where it matters (a grade outside 0-3 or of another type, such as ``true``, which pydantic alone
would read as 1; a verdict that is none of the three; a missing field).
:func:`read_reply` finds the JSON in a reply (in a code fence, or with prose around it) and validates it.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from ..modelcalls.replies import json_candidates

__all__ = ["RelevanceReply", "ClaimsReply", "Verdict", "VerdictsReply", "ReplyInvalid", "read_reply",
           "response_format"]


class ReplyInvalid(ValueError):
    """A reply that holds no JSON of the expected form (the message says what was wrong)."""


def _no_bool(value: Any) -> Any:
    """Refuse a JSON ``true``/``false`` where a number is expected (pydantic would read it as 1 or 0)."""
    if isinstance(value, bool):
        raise ValueError(f"a number is expected, not {str(value).lower()}")
    return value


class RelevanceReply(BaseModel):
    """``{"reasoning": str, "grade": 0-3}``."""

    model_config = ConfigDict(extra="ignore")
    reasoning: str = ""
    grade: int = Field(ge=0, le=3, validation_alias=AliasChoices("grade", "score", "relevance"))

    @field_validator("reasoning", mode="before")
    @classmethod
    def _text(cls, value: Any) -> Any:
        return "" if value is None else value

    @field_validator("grade", mode="before")
    @classmethod
    def _number(cls, value: Any) -> Any:
        return _no_bool(value)


class _ListReply(BaseModel):
    """A reply holding one list under ``_list_field``; a bare JSON list is read as that list."""

    model_config = ConfigDict(extra="ignore")
    _list_field: ClassVar[str]

    @model_validator(mode="before")
    @classmethod
    def _bare_list(cls, value: Any) -> Any:
        return {cls._list_field: value} if isinstance(value, list) else value


class ClaimsReply(_ListReply):
    """``{"claims": [str, ...]}`` (claims given as ``{"claim": ...}`` objects are accepted too)."""

    _list_field: ClassVar[str] = "claims"
    claims: list[str]

    @field_validator("claims", mode="before")
    @classmethod
    def _claim_objects(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [next((v[k] for k in ("claim", "text", "statement") if k in v), v) if isinstance(v, dict) else v
                    for v in value]
        return value

    @field_validator("claims")
    @classmethod
    def _non_blank(cls, value: list[str]) -> list[str]:
        return [c.strip() for c in value if c.strip()]


_VERDICT_WORDS = {"supported": "supported", "support": "supported", "yes": "supported", "entailed": "supported",
                  "contradicted": "contradicted", "contradiction": "contradicted", "refuted": "contradicted",
                  "not_found": "not_found", "not found": "not_found", "notfound": "not_found",
                  "not_supported": "not_found", "unsupported": "not_found", "not supported": "not_found",
                  "no": "not_found", "not_mentioned": "not_found", "unknown": "not_found"}


class Verdict(BaseModel):
    """One claim's verdict: ``{"claim": n, "verdict": ..., "chunk_id": ..., "quote": ...}``."""

    model_config = ConfigDict(extra="ignore")
    claim: int | None = Field(default=None, ge=1, validation_alias=AliasChoices("claim", "index", "id", "number"))
    verdict: Literal["supported", "contradicted", "not_found"]
    chunk_id: str | None = None
    quote: str | None = None

    @field_validator("verdict", mode="before")
    @classmethod
    def _words(cls, value: Any) -> Any:
        return _VERDICT_WORDS.get(value.strip().lower(), value) if isinstance(value, str) else value

    @field_validator("claim", mode="before")
    @classmethod
    def _claim_number(cls, value: Any) -> Any:
        return _no_bool(value)

    @field_validator("chunk_id", mode="before")
    @classmethod
    def _id_text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else value


class VerdictsReply(_ListReply):
    """``{"verdicts": [Verdict, ...]}``: one per claim (numbered, or in order)."""

    _list_field: ClassVar[str] = "verdicts"
    verdicts: list[Verdict]

    def for_claims(self, n: int) -> list[Verdict]:
        """The verdict of each of ``n`` claims, in claim order. Raises :class:`ReplyInvalid` unless every claim
        has exactly one."""
        numbered = [v for v in self.verdicts if v.claim is not None]
        if not numbered and len(self.verdicts) == n:
            return list(self.verdicts)
        by_claim = {v.claim: v for v in numbered}
        missing = [i for i in range(1, n + 1) if i not in by_claim]
        if missing or len(by_claim) != len(self.verdicts) or len(by_claim) != n:
            raise ReplyInvalid(f"give exactly one verdict for each claim 1 to {n}; claims without one: {missing}")
        return [by_claim[i] for i in range(1, n + 1)]


def _short_errors(exc: ValidationError) -> str:
    parts = [f"{'.'.join(str(p) for p in e['loc']) or 'reply'}: {e['msg']}" for e in exc.errors()[:3]]
    return "; ".join(parts)


def read_reply(text: str, form: type[BaseModel]) -> BaseModel:
    """The reply ``text`` read into ``form``: the first JSON value found (code fences first) that validates.

    Raises
    ------
    ReplyInvalid
        No JSON in the text, or none of the right form (the message names the first problem).
    """
    candidates = json_candidates(text)
    if not candidates:
        raise ReplyInvalid("the reply holds no complete JSON object")
    problem = ""
    for data in candidates:
        try:
            return form.model_validate(data)
        except ValidationError as exc:
            problem = problem or _short_errors(exc)
    raise ReplyInvalid(f"the JSON is not of the expected form ({problem})")


def response_format(form: type[BaseModel]) -> dict[str, Any]:
    """The ``response_format`` asking an OpenAI-compatible server for JSON of ``form`` (a JSON schema)."""
    schema = form.model_json_schema(mode="serialization")
    return {"type": "json_schema", "json_schema": {"name": form.__name__, "schema": schema, "strict": False}}
