"""Claims: split a text into claims (by the model) and check them against chunks, locating each quote.

A claim the model calls ``supported`` keeps that verdict only when its quote is found in a chunk the way
test-set evidence is found (:func:`~rag_eval_adapters.testsets.find_evidence`: exact after white-space
normalisation, else a close fuzzy match), in the chunk it names or else in any chunk; the quote kept is the
chunk's own text there, with its offsets. Otherwise the claim is ``not_found`` with a note: support needs
evidence.

Evidence must carry content (:func:`quote_problem`): a quote of ``e``, ``.``, ``the`` or ``1`` supports
nothing. A quote needs at least two content tokens (tokens that are not stop words of English, Russian or
Chinese: :data:`rag_eval_adapters.answers.abstention.STOP_WORDS`, after the ``ROUGE`` normalisation) or four CJK
characters, and must share one of them with its claim. A fuzzy match must keep every digit sequence of the quote
(numbers, dates, amounts, versions): "1998" never matches "1889", nor "300" "330".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

from ..answers.abstention import content_tokens
from ..answers.normalize import CJK_RANGES
from ..testsets import find_evidence
from .calls import Outcome, StructuredCaller
from .prompts import claims_messages, verify_messages
from .results import ClaimVerdict
from .schemas import ClaimsReply, Verdict, VerdictsReply

__all__ = ["Checked", "extract_claims", "check_claims", "locate_verdict", "quote_problem"]

_DIGITS = re.compile(r"\d+")
_MIN_CONTENT, _MIN_CJK = 2, 4


def _cjk(token: str) -> bool:
    return len(token) == 1 and any(lo <= ord(token) <= hi for lo, hi in CJK_RANGES)


def quote_problem(quote: str, claim: str) -> str | None:
    """Why ``quote`` cannot be evidence for ``claim`` (too little content, or none shared with the claim), or
    None when it can (see the module docstring)."""
    tokens = content_tokens(quote)
    cjk = [t for t in tokens if _cjk(t)]
    if len(tokens) - len(cjk) < _MIN_CONTENT and len(cjk) < _MIN_CJK:
        return "its quote carries no content (fewer than two content words or four CJK characters)"
    if not set(tokens) & set(content_tokens(claim)):
        return "its quote shares no content word with the claim"
    return None


def _same_numbers(quote: str, found: str) -> bool:
    """Whether the located text keeps every digit sequence of the quote, in order."""
    return _DIGITS.findall(quote) == _DIGITS.findall(found)


@dataclass(frozen=True)
class Checked:
    """Claims checked against chunks, or the reason they could not be (``reason``, ``detail``)."""

    verdicts: tuple[ClaimVerdict, ...] = ()
    reason: str | None = None
    detail: str = ""

    @property
    def supported_share(self) -> float:
        """Supported claims / claims (call only when there are claims)."""
        return sum(v.verdict == "supported" for v in self.verdicts) / len(self.verdicts)


def extract_claims(caller: StructuredCaller, text: str, question: str | None, what: str) -> Outcome:
    """The claims of ``text`` (``Outcome.reply`` a :class:`ClaimsReply`), or why there are none."""
    outcome = caller.ask(claims_messages(text, question), ClaimsReply, f"claims of {what}")
    if isinstance(outcome.reply, ClaimsReply) and not outcome.reply.claims:
        return Outcome(reason="no_claims", detail=f"the model found no factual claim in {what}")
    return outcome


def locate_verdict(claim: str, verdict: Verdict, chunks: Sequence[tuple[str, str]]) -> ClaimVerdict:
    """``verdict`` of ``claim`` with its quote located in ``chunks`` (see the module docstring)."""
    if verdict.verdict == "not_found":
        return ClaimVerdict(claim, "not_found")
    quote = (verdict.quote or "").strip()
    named = [c for c in chunks if c[0] == verdict.chunk_id]
    problem = quote_problem(quote, claim) if quote and verdict.verdict == "supported" else None
    if problem is not None:
        return ClaimVerdict(claim, "not_found", note=f"called supported, but {problem}")
    match, where = None, None
    if quote:
        for cid, text in named + [c for c in chunks if c[0] != verdict.chunk_id]:
            match = find_evidence(quote, text)
            if match is not None and _same_numbers(quote, match.text):
                where = cid
                break
            match = None
    if match is None:
        if verdict.verdict == "contradicted":
            return ClaimVerdict(claim, "contradicted", verdict.chunk_id if named else None,
                                note="quote not found in the context" if quote else "")
        return ClaimVerdict(claim, "not_found", note="called supported, but its quote is not in the context"
                            if quote else "called supported without a quote")
    return ClaimVerdict(claim, verdict.verdict, where, match.text, match.start, match.end,
                        "" if where == verdict.chunk_id else f"quote found in chunk {where!r}, not the one named")


def check_claims(caller: StructuredCaller, claims: Sequence[str], chunks: Sequence[tuple[str, str]],
                 what: str) -> Checked:
    """Each claim's verdict against ``chunks`` (``(chunk_id, text)`` pairs), quotes located."""
    n = len(claims)
    outcome = caller.ask(verify_messages(claims, chunks), VerdictsReply, f"verdicts for {what}",
                         check=lambda reply: cast(VerdictsReply, reply).for_claims(n))
    if not isinstance(outcome.reply, VerdictsReply):
        return Checked(reason=outcome.reason or "invalid_output", detail=outcome.detail)
    verdicts = outcome.reply.for_claims(n)
    return Checked(tuple(locate_verdict(c, v, chunks) for c, v in zip(claims, verdicts, strict=True)))
