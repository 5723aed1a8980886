"""Finding a model's quoted evidence in its chunk: exact after white-space normalisation, else fuzzy.

The quote is first looked for verbatim after both texts have every run of white space collapsed to one
space (and ends stripped). When that fails, a fuzzy match is accepted if the best-aligned passage of the
chunk matches the quote (both case-folded) with a ratio ``2 * matched / (passage + quote characters)`` of at
least :data:`FUZZY_THRESHOLD` (0.9), the ratio :class:`difflib.SequenceMatcher` reports. Either way the
evidence kept is the chunk's own text at the matched characters, so it is always a verbatim substring of the
chunk, with offsets into the chunk.

The fuzzy search costs about linear time in the chunk whatever the quote: candidate windows of the quote's
length are scored by the quote's words they contain (one pass with running sums); only the best
:data:`FUZZY_CANDIDATES` windows are aligned, word by word (a CJK character is a word), and only the short
stretches between aligned words are compared character by character, each within a fixed budget. Quotes
longer than :data:`MAX_FUZZY_CHARS` are matched exactly only.
"""

from __future__ import annotations

import difflib
import heapq
import re
from dataclasses import dataclass

__all__ = ["FUZZY_THRESHOLD", "FUZZY_CANDIDATES", "MAX_FUZZY_CHARS", "EvidenceMatch", "normalize_ws", "find_evidence",
           "contains_evidence"]

#: minimum SequenceMatcher ratio between the quote and the chunk passage for a fuzzy match
FUZZY_THRESHOLD = 0.9
#: windows of the chunk aligned with a quote in the fuzzy search
FUZZY_CANDIDATES = 3
#: quotes longer than this (characters) are only matched exactly
MAX_FUZZY_CHARS = 20_000
_CHAR_BUDGET = 400_000  # len(passage) * len(quote) aligned character by character (else word by word)
_GAP_BUDGET = 40_000  # len(a) * len(b) of one stretch compared character by character
_MAX_ENDS = 100  # blocks tried as the first and as the last of an aligned run
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_TOKEN = re.compile(f"[{_CJK}]|[^\\s{_CJK}]+")
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
    if len(wanted_folded) > MAX_FUZZY_CHARS:
        return None
    best = _fuzzy(folded, wanted_folded)
    if best is None or best[0] < threshold:
        return None
    ratio, a0, a1 = best
    piece = norm[a0:a1].strip()
    if not piece:
        return None
    a0 += len(norm[a0:a1]) - len(norm[a0:a1].lstrip())
    a1 = a0 + len(piece)
    start, end = index[a0], index[a1 - 1] + 1
    return EvidenceMatch(start, end, chunk[start:end], False, ratio)


def _tokens(text: str, start: int = 0, end: int | None = None) -> list[tuple[str, int, int]]:
    return [(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(text, start, len(text) if end is None else end)]


def _windows(folded: str, wanted: str) -> list[int]:
    """Starts of the (at most :data:`FUZZY_CANDIDATES`) windows of the quote's length holding most of the
    quote's character trigrams, apart from each other by half a window: one pass with running sums."""
    n = min(3, len(wanted))
    grams = {wanted[i:i + n] for i in range(len(wanted) - n + 1)}
    width = min(len(wanted), len(folded))
    running = [0]
    for i in range(len(folded)):
        running.append(running[-1] + (folded[i:i + n] in grams))
    scores = [running[s + width] - running[s] for s in range(len(folded) - width + 1)]
    chosen: list[int] = []
    for s in heapq.nlargest(len(scores), range(len(scores)), key=lambda s: (scores[s], -s)):
        if scores[s] == 0 or len(chosen) == FUZZY_CANDIDATES:
            break
        if all(abs(s - c) >= max(1, width // 2) for c in chosen):
            chosen.append(s)
    return chosen


def _matched_chars(a: str, b: str) -> int:
    """Characters of ``a`` and ``b`` that match (SequenceMatcher blocks); 0 when the pair is too long to
    compare within :data:`_GAP_BUDGET` (the ratio can only come out lower)."""
    if not a or not b or len(a) * len(b) > _GAP_BUDGET:
        return 0
    return sum(block.size for block in difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks())


Block = tuple[int, int, int, int]  # matching text: folded[a_start:a_end] == wanted[b_start:b_end]


def _blocks(folded: str, lo: int, hi: int, wanted: str) -> tuple[list[Block], bool]:
    """The matching blocks of ``folded[lo:hi]`` and the quote: character by character when the pair is
    within :data:`_CHAR_BUDGET`, else word by word (then True: the stretches between them are still to
    compare)."""
    if (hi - lo) * len(wanted) <= _CHAR_BUDGET:
        matcher = difflib.SequenceMatcher(None, folded[lo:hi], wanted, autojunk=False)
        return [(lo + b.a, lo + b.a + b.size, b.b, b.b + b.size) for b in matcher.get_matching_blocks() if b.size], False
    region, quote = _tokens(folded, lo, hi), _tokens(wanted)
    matcher = difflib.SequenceMatcher(None, [t for t, _, _ in region], [t for t, _, _ in quote], autojunk=False)
    return [(region[b.a][1], region[b.a + b.size - 1][2], quote[b.b][1], quote[b.b + b.size - 1][2])
            for b in matcher.get_matching_blocks() if b.size], True


def _align(folded: str, lo: int, hi: int, wanted: str) -> tuple[float, int, int] | None:
    """``(ratio, start, end)`` of the passage of ``folded[lo:hi]`` best aligned with the quote: the run of
    matching blocks whose passage (extended by the quote's unmatched ends) has the highest ratio."""
    blocks, by_word = _blocks(folded, lo, hi, wanted)
    if not blocks:
        return None
    sizes = [0]
    for a_start, a_end, _, _ in blocks:
        sizes.append(sizes[-1] + a_end - a_start)

    def ends(i: int, j: int) -> tuple[int, int]:
        return max(0, blocks[i][0] - blocks[i][2]), min(len(folded), blocks[j][1] + len(wanted) - blocks[j][3])

    best: tuple[float, int, int] | None = None
    for i in range(min(len(blocks), _MAX_ENDS)):
        for j in range(max(i, len(blocks) - _MAX_ENDS), len(blocks)):
            a0, a1 = ends(i, j)
            ratio = 2 * (sizes[j + 1] - sizes[i]) / (a1 - a0 + len(wanted))
            if best is None or ratio > best[0]:
                best = (ratio, i, j)
    assert best is not None
    _, i, j = best
    a0, a1 = ends(i, j)
    matched = sizes[j + 1] - sizes[i]
    if by_word:  # the unmatched ends and the stretches between matched words, character by character
        matched += _matched_chars(folded[a0:blocks[i][0]], wanted[:blocks[i][2]])
        matched += _matched_chars(folded[blocks[j][1]:a1], wanted[blocks[j][3]:])
        for k in range(i, j):
            matched += _matched_chars(folded[blocks[k][1]:blocks[k + 1][0]], wanted[blocks[k][3]:blocks[k + 1][2]])
    return 2 * matched / (a1 - a0 + len(wanted)), a0, a1


def _fuzzy(folded: str, wanted: str) -> tuple[float, int, int] | None:
    """``(ratio, start, end)`` of the passage of ``folded`` best matching ``wanted``, or None."""
    width = min(len(wanted), len(folded))
    margin = width // 4 + 8
    best = None
    for s in _windows(folded, wanted):
        found = _align(folded, max(0, s - margin), min(len(folded), s + width + margin), wanted)
        if found is not None and (best is None or found[0] > best[0]):
            best = found
    return best


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
