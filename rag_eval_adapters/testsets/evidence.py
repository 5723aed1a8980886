"""Finding a model's quoted evidence in its chunk: exact after white-space normalisation, else fuzzy.

The quote is first looked for verbatim after both texts have every run of white space collapsed to one
space (and ends stripped). When that fails, a fuzzy match is accepted if the best-aligned passage of the
chunk has a :class:`difflib.SequenceMatcher` ratio of at least :data:`FUZZY_THRESHOLD` (0.9) with the quote
(both case-folded). Either way the evidence kept is the chunk's own text at the matched characters, so it is
always a verbatim substring of the chunk, with offsets into the chunk.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

__all__ = ["FUZZY_THRESHOLD", "EvidenceMatch", "normalize_ws", "find_evidence", "contains_evidence"]

#: minimum SequenceMatcher ratio between the quote and the chunk passage for a fuzzy match
FUZZY_THRESHOLD = 0.9
_WS = re.compile(r"\s+")


def normalize_ws(text: str) -> tuple[str, list[int]]:
    """``text`` with white-space runs collapsed to one space and ends stripped, and for each character of
    the result the index of the character of ``text`` it came from."""
    out: list[str] = []
    index: list[int] = []
    pending_space = -1
    for i, ch in enumerate(text):
        if ch.isspace():
            if out and pending_space < 0:
                pending_space = i
            continue
        if pending_space >= 0:
            out.append(" ")
            index.append(pending_space)
            pending_space = -1
        out.append(ch)
        index.append(i)
    return "".join(out), index


def _collapse(text: str) -> str:
    return _WS.sub(" ", text).strip()


@dataclass(frozen=True)
class EvidenceMatch:
    """Where a quote was found: chunk offsets ``start``/``end`` (end exclusive), the chunk's ``text`` there,
    ``exact`` (True unless fuzzy) and the match ``ratio`` (1.0 when exact)."""

    start: int
    end: int
    text: str
    exact: bool
    ratio: float


def find_evidence(quote: str, chunk: str, threshold: float = FUZZY_THRESHOLD) -> EvidenceMatch | None:
    """The chunk passage ``quote`` stands for (see the module docstring), or None when not found."""
    wanted = _collapse(quote).strip("\"'«»“”„「」")
    wanted = _collapse(wanted)
    if not wanted:
        return None
    norm, index = normalize_ws(chunk)
    at = norm.find(wanted)
    if at >= 0:
        start, end = index[at], index[at + len(wanted) - 1] + 1
        return EvidenceMatch(start, end, chunk[start:end], True, 1.0)
    folded, wanted_folded = norm.casefold(), wanted.casefold()
    if len(folded) != len(norm):  # case folding changed lengths: offsets would drift
        folded, wanted_folded = norm.lower(), wanted.lower()
        if len(folded) != len(norm):
            return None
    matcher = difflib.SequenceMatcher(None, folded, wanted_folded, autojunk=False)
    blocks = [b for b in matcher.get_matching_blocks() if b.size >= 3]
    if not blocks:
        return None
    best = None
    for first in range(len(blocks)):  # the passage spanned by a run of blocks that best matches the quote
        a0 = max(0, blocks[first].a - blocks[first].b)
        for last in range(first, len(blocks)):
            a1 = min(len(folded), blocks[last].a + blocks[last].size + (len(wanted_folded) - blocks[last].b - blocks[last].size))
            if a1 - a0 > 2 * len(wanted_folded):
                break
            ratio = difflib.SequenceMatcher(None, folded[a0:a1], wanted_folded, autojunk=False).ratio()
            if best is None or ratio > best[0]:
                best = (ratio, a0, a1)
    if best is None or best[0] < threshold:
        return None
    ratio, a0, a1 = best
    piece = norm[a0:a1].strip()
    a0 += len(norm[a0:a1]) - len(norm[a0:a1].lstrip())
    a1 = a0 + len(piece)
    start, end = index[a0], index[a1 - 1] + 1
    return EvidenceMatch(start, end, chunk[start:end], False, ratio)


def contains_evidence(chunk: str, evidence: str, normalized: tuple[str, list[int]] | None = None) -> list[tuple[int, int]]:
    """``(start, end)`` chunk offsets of every occurrence of ``evidence`` after white-space normalisation
    (``normalized`` may pass ``normalize_ws(chunk)`` computed once)."""
    wanted = _collapse(evidence)
    if not wanted:
        return []
    norm, index = normalized if normalized is not None else normalize_ws(chunk)
    hits = []
    at = norm.find(wanted)
    while at >= 0:
        hits.append((index[at], index[at + len(wanted) - 1] + 1))
        at = norm.find(wanted, at + 1)
    return hits
