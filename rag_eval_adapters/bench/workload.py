"""The work a benchmark run will do, counted before it starts, and the work its configurations share.

:func:`plan_line` says up front how many texts will be embedded (and how many of them the cache already holds)
and how many scorer and answer calls the run makes; :func:`embed_shared` embeds every chunk and question once
for all dense configurations, in batches written to the cache as they are computed, and times that work on its
own, so no configuration is charged for it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..progress import progress_bar
from ..testsets import TestCase
from .chunking import Chunk

__all__ = ["plan_line", "embed_shared", "plural", "cache_line"]

EMBED_BATCH = 64
"""Texts embedded (and written to the cache) per step of :func:`embed_shared`."""


def plural(n: int, word: str, words: str | None = None) -> str:
    """``"1 query"``, ``"2 queries"``: ``n`` and the noun in the number it takes."""
    return f"{n} {word if n == 1 else (words or word + 's')}"


def _texts(chunks: Mapping[str, Sequence[Chunk]], cases: Sequence[TestCase]) -> tuple[list[str], list[str]]:
    passages = list(dict.fromkeys(c.text for found in chunks.values() for c in found))
    return passages, list(dict.fromkeys(c.query for c in cases))


def cache_line(vectors: Any) -> str:
    """Where the embedding cache is and what it holds: ``cache PATH (SIZE on disk, N entries)``."""
    from ..cachedir import describe_size, disk_size

    store = getattr(getattr(vectors, "_cached", None), "cache", None)
    entries = f", {plural(len(store), 'entry', 'entries')}" if store is not None and hasattr(store, "__len__") else ""
    return f"cache {vectors.path} ({describe_size(disk_size(vectors.path))} on disk{entries})"


def plan_line(chunks: Mapping[str, Sequence[Chunk]], cases: Sequence[TestCase], *, configurations: int,
              retrieval_configurations: int, rerankers: int, dense: bool, vectors: Any, answers: int,
              answerer: str | None) -> str:
    """One line: questions, chunks, configurations, texts to embed (and cached), where the embedding cache is and
    what it holds, scorer and answer calls."""
    passages, queries = _texts(chunks, cases)
    parts = [f"plan: {plural(len(cases), 'question')}, {plural(len(chunks), 'chunking')} "
             f"({plural(sum(len(c) for c in chunks.values()), 'chunk')}), {plural(configurations, 'configuration')}"]
    if dense and vectors is not None:
        missing = vectors.count_missing(passages, "passage") + vectors.count_missing(queries, "query")
        total = len(passages) + len(queries)
        parts.append(f"to embed for dense retrieval: {plural(total, 'text')} ({len(passages)} chunk texts, "
                     f"{plural(len(queries), 'question')}), {total - missing} of them already cached")
    if vectors is not None and getattr(vectors, "path", None) is not None:
        parts.append(cache_line(vectors))
    calls = []
    if rerankers:
        calls.append(f"{plural(rerankers * retrieval_configurations * len(cases), 'reranker call')} "
                     "(one per question and reranked configuration)")
    if answers:
        calls.append(f"up to {plural(answers * configurations, 'answer')} ({answers} questions x "
                     f"{configurations} configurations, {answerer})")
    if calls:
        parts.append("calls: " + ", ".join(calls))
    return "; ".join(parts)


def embed_shared(vectors: Any, chunks: Mapping[str, Sequence[Chunk]], cases: Sequence[TestCase],
                 say: Callable[[str], None], show: bool) -> dict[str, float]:
    """Embed every chunk text (per chunking) and every question once, ``EMBED_BATCH`` texts at a time (each
    batch is in the cache as soon as it is computed); returns the seconds of each part, keyed
    ``"embed chunks of NAME"`` and ``"embed questions"``."""
    seconds: dict[str, float] = {}
    parts = [(f"embed chunks of {name}", list(dict.fromkeys(c.text for c in found)), vectors.embed_passages)
             for name, found in chunks.items()]
    parts.append(("embed questions", list(dict.fromkeys(c.query for c in cases)), vectors.embed_queries))
    for label, texts, embed in parts:
        start = time.perf_counter()
        done = 0
        steps = range(0, len(texts), EMBED_BATCH)
        for i in progress_bar(steps, total=len(steps), desc=label, show=show):
            embed(texts[i:i + EMBED_BATCH])
            done = min(len(texts), i + EMBED_BATCH)
            if not show:
                say(f"{label}: {done}/{len(texts)}")
        seconds[label] = time.perf_counter() - start
    return seconds
