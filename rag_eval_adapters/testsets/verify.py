"""The checks behind the harder question types: which chunk pairs a multi-hop question is asked about, whether
one chunk alone answers a question, and which chunks a question's answer could be in (BM25 candidates).

All checks are offline and lexical on the package's *content words* (:func:`~.lexical.content_words`: lower-cased
words minus stop words, CJK characters one by one), so they work for any language the generator handles:

* :func:`answers_alone` (the *single-chunk check*): a chunk answers a question by itself when it holds at least
  :data:`ALONE_QUESTION_COVERAGE` of the question's grounded content words (those found in the question's
  chunks) and at least :data:`ALONE_ANSWER_COVERAGE` of the answer's content words.
* :func:`may_answer` (the *unanswerable check*, lexical part): a chunk may answer a question when it holds at least
  :data:`ANSWERED_COVERAGE` of the question's content words.
* :class:`CandidateIndex`: Okapi BM25 (k1 1.5, b 0.75) over the chunks' content words, for the top candidates of
  a question, and the pairing of chunks by shared rare terms.

The thresholds were set on ``benchmarks/bench_harder_checks.py`` (figures in docs/testsets.md).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from .chunks import Chunk
from .lexical import content_tokens, content_words

__all__ = ["EMBEDDING_ANSWER_THRESHOLD", "embedding_nearest", "ALONE_QUESTION_COVERAGE", "ALONE_ANSWER_COVERAGE", "ANSWERED_COVERAGE", "CANDIDATES", "answers_alone",
           "may_answer", "CandidateIndex"]

#: share of a question's grounded content words a chunk must hold to answer it alone
ALONE_QUESTION_COVERAGE = 0.9
#: share of the answer's content words a chunk must hold to answer the question alone
ALONE_ANSWER_COVERAGE = 0.5
#: share of a question's content words a chunk must hold to possibly answer it (the unanswerable check)
ANSWERED_COVERAGE = 0.8
#: cosine (E5 query vs passage) from which a chunk may answer a question (the unanswerable check, embedding part)
EMBEDDING_ANSWER_THRESHOLD = 0.88
#: BM25 candidates searched for an answer to an "unanswerable" question
CANDIDATES = 5


def _share(words: set[str], held: set[str]) -> float:
    return len(words & held) / len(words) if words else 1.0


def answers_alone(question: str, answer: str, chunk_text: str, all_texts: Sequence[str],
                  coverage: float = ALONE_QUESTION_COVERAGE) -> bool:
    """Whether ``chunk_text`` by itself answers ``question`` with ``answer`` (see the module docstring):
    ``all_texts`` are the texts the question was written from, which decide its grounded words; ``coverage``
    the share of them the chunk must hold."""
    held = content_words(chunk_text)
    grounded = content_words(question) & set().union(*(content_words(t) for t in all_texts))
    return (_share(grounded, held) >= coverage
            and _share(content_words(answer), held) >= ALONE_ANSWER_COVERAGE)


def may_answer(question: str, chunk_text: str, coverage: float = ANSWERED_COVERAGE) -> bool:
    """Whether ``chunk_text`` holds at least ``coverage`` of the question's content words."""
    words = content_words(question)
    return bool(words) and _share(words, content_words(chunk_text)) >= coverage


class CandidateIndex:
    """BM25 over the chunks' content words: :meth:`top` candidates for a question, :meth:`partner` chunk of a
    chunk (the one sharing the rarest terms)."""

    def __init__(self, chunks: Sequence[Chunk], k1: float = 1.5, b: float = 0.75) -> None:
        self.chunks = list(chunks)
        self._tf = [Counter(content_tokens(c.text)) for c in self.chunks]
        self._position = {c.chunk_id: i for i, c in enumerate(self.chunks)}
        self._lengths = [sum(tf.values()) for tf in self._tf]
        df: Counter = Counter()
        for tf in self._tf:
            df.update(tf.keys())
        n = len(self.chunks)
        self._idf = {w: math.log(1 + (n - d + 0.5) / (d + 0.5)) for w, d in df.items()}
        self._df = df
        self._avg = (sum(self._lengths) / n) if n else 0.0
        self.k1, self.b = k1, b

    def scores(self, text: str) -> list[float]:
        """The BM25 score of every chunk for the query ``text``."""
        words = set(content_tokens(text))
        out = []
        for tf, length in zip(self._tf, self._lengths, strict=True):
            norm = self.k1 * (1 - self.b + self.b * length / self._avg) if self._avg else self.k1
            out.append(sum(self._idf[w] * tf[w] * (self.k1 + 1) / (tf[w] + norm) for w in words if w in tf))
        return out

    def top(self, text: str, k: int = CANDIDATES) -> list[Chunk]:
        """The ``k`` chunks scoring highest (above 0) for ``text``, best first (ties in corpus order)."""
        scores = self.scores(text)
        order = sorted((i for i, s in enumerate(scores) if s > 0), key=lambda i: (-scores[i], i))
        return [self.chunks[i] for i in order[:k]]

    def partner(self, chunk: Chunk, eligible: Sequence[Chunk], max_share: float = 0.5,
                exclude: frozenset[str] = frozenset()) -> Chunk | None:
        """The chunk of ``eligible`` that shares with ``chunk`` the content words of highest total IDF (words in
        more than ``max_share`` of the chunks do not count), never ``chunk`` itself, a chunk overlapping it in
        the same document, nor a chunk id in ``exclude``; None when none shares a word."""
        limit = max(2, int(max_share * len(self.chunks)))
        mine = {w for w in self._tf[self._position[chunk.chunk_id]] if self._df[w] <= limit}
        best, best_score = None, 0.0
        for other in eligible:
            if other.chunk_id == chunk.chunk_id or other.chunk_id in exclude or _overlaps(chunk, other):
                continue
            score = sum(self._idf[w] for w in mine & self._tf[self._position[other.chunk_id]].keys())
            if score > best_score:
                best, best_score = other, score
        return best


def _overlaps(a: Chunk, b: Chunk) -> bool:
    """Whether two chunks share characters of one document (or one holds the other's text)."""
    if a.doc_id is not None and a.doc_id == b.doc_id and None not in (a.start, b.start, a.end, b.end):
        return a.start < b.end and b.start < a.end  # type: ignore[operator]
    return a.text.strip() in b.text or b.text.strip() in a.text


def embedding_nearest(embedder: Any, chunks: Sequence[Chunk],
                      threshold: float = EMBEDDING_ANSWER_THRESHOLD) -> Callable[[str], list[str]]:
    """``nearest(question) -> [chunk ids]``: the chunks whose passage vector has a cosine of at least
    ``threshold`` with the question's query vector (``embedder`` has ``embed_queries`` and ``embed_passages``,
    e.g. ``modelcalls.resolve_embedder("e5")``, with unit vectors). The passages are embedded at the first
    question."""
    import numpy as np

    matrix: list[Any] = []

    def nearest(question: str) -> list[str]:
        if not matrix:
            matrix.append(np.asarray(embedder.embed_passages([c.text for c in chunks]), dtype=np.float64))
        scores = np.asarray(embedder.embed_queries([question]), dtype=np.float64) @ matrix[0].T
        return [chunks[int(i)].chunk_id for i in np.flatnonzero(scores[0] >= threshold)]

    return nearest
