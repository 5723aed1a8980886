"""The work a benchmark run will do, counted before it starts, and the work its configurations share.

:func:`plan_line` says up front how many texts will be embedded (and how many of them the cache already holds)
and how many scorer and answer calls the run makes; :func:`embed_shared` embeds every chunk and question once
for all dense configurations, in batches written to the cache as they are computed, and times that work on its
own, so no configuration is charged for it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..progress import progress_bar
from ..testsets import TestCase
from .chunking import Chunk
from .interrupt import StopAfterBatch

__all__ = ["plan_line", "plan_and_probe", "probe_rate", "EmbeddingProbe", "duration", "batch_size",
           "embed_shared", "plural", "cache_line"]

EMBED_BATCH = 64
"""Texts embedded (and written to the cache) per step of :func:`embed_shared`."""
BATCH_SECONDS = 2.0
"""The work a batch of :func:`embed_shared` aims at (at the rate the plan measured)."""
PROBE_TEXTS = 8
"""Chunk texts embedded and timed before the run for the plan's time estimate."""
PROBE_SCAN = 2000
"""Chunk texts looked up in the cache, at most, to find those to time."""


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


@dataclass(frozen=True)
class EmbeddingProbe:
    """A few chunk texts the cache did not hold, embedded and timed before the run: the measured rate the
    plan's time estimate scales (by characters: a longer chunk costs more). The first text embedded is timed
    apart (``warmup_*``): a model's first call also loads it, a cost the rest of the run does not pay again."""

    texts: int
    chars: int
    seconds: float
    label: str
    """The part of the shared embedding these texts belong to (``"embed chunks of NAME"``)."""
    warmup_chars: int = 0
    warmup_seconds: float = 0.0

    @property
    def total_seconds(self) -> float:
        """Every second the probe spent embedding (the warm-up text included)."""
        return self.seconds + self.warmup_seconds

    @property
    def seconds_per_char(self) -> float:
        return self.seconds / max(1, self.chars)


def probe_rate(vectors: Any, chunks: Mapping[str, Sequence[Chunk]], n: int = PROBE_TEXTS) -> EmbeddingProbe | None:
    """Embed (into the cache: nothing is embedded twice) up to ``n + 1`` chunk texts not cached yet, from the
    first chunking that has any, timing the first apart (the model's load) and the others for the rate; None when
    every chunk text is cached."""
    for name, found in chunks.items():
        sample: list[str] = []
        for text in list(dict.fromkeys(c.text for c in found))[:PROBE_SCAN]:
            if vectors.count_missing([text], "passage"):
                sample.append(text)
                if len(sample) == n + 1:
                    break
        if sample:
            warmup, timed = (sample[:1], sample[1:]) if len(sample) > 1 else ([], sample)
            start = time.perf_counter()
            vectors.embed_passages(warmup)
            loaded = time.perf_counter()
            vectors.embed_passages(timed)
            return EmbeddingProbe(len(timed), sum(map(len, timed)), time.perf_counter() - loaded,
                                  f"embed chunks of {name}", sum(map(len, warmup)), loaded - start)
    return None


def duration(seconds: float) -> str:
    """``"under a second"``, ``"about 40 s"``, ``"about 12 min"``, ``"about 2.5 h"``."""
    if seconds < 1:
        return "under a second"
    if seconds < 90:
        return f"about {seconds:.0f} s"
    return f"about {seconds / 60:.0f} min" if seconds < 5400 else f"about {seconds / 3600:.1f} h"


def _estimate(passages: list[str], queries: list[str], missing: tuple[int, int], probe: EmbeddingProbe) -> str:
    """The time left to embed, from the probe's rate per character, over the share of each side not cached."""
    chars = sum(map(len, passages)) * missing[0] / max(1, len(passages)) - probe.chars - probe.warmup_chars
    chars += sum(map(len, queries)) * missing[1] / max(1, len(queries))
    left = max(0.0, chars) * probe.seconds_per_char
    return (f"{duration(left)} to embed the rest at the rate measured here ({probe.texts} chunk texts in "
            f"{probe.seconds:.2f} s; the time grows with chunk length)")


def plan_and_probe(chunks: Mapping[str, Sequence[Chunk]], cases: Sequence[TestCase], *, configurations: int,
                   retrieval_configurations: int, rerankers: int, dense: bool, vectors: Any, answers: int,
                   answerer: str | None, probe: bool = True) -> tuple[str, EmbeddingProbe | None]:
    """The plan line (see :func:`plan_line`) and, with ``probe`` and texts to embed for dense retrieval, the
    :class:`EmbeddingProbe` whose measured rate gives the line its time estimate."""
    passages, queries = _texts(chunks, cases)
    parts = [f"plan: {plural(len(cases), 'question')}, {plural(len(chunks), 'chunking')} "
             f"({plural(sum(len(c) for c in chunks.values()), 'chunk')}), {plural(configurations, 'configuration')}"]
    measured = None
    held = cache_line(vectors) if vectors is not None and getattr(vectors, "path", None) is not None else None
    if dense and vectors is not None:
        missing = (vectors.count_missing(passages, "passage"), vectors.count_missing(queries, "query"))
        total = len(passages) + len(queries)
        parts.append(f"to embed for dense retrieval: {plural(total, 'text')} ({len(passages)} chunk texts, "
                     f"{plural(len(queries), 'question')}), {total - sum(missing)} of them already cached")
        measured = probe_rate(vectors, chunks) if probe and missing[0] else None
        if measured is not None:
            parts[-1] += "; " + _estimate(passages, queries, missing, measured)
    if held is not None:  # what the cache held before this run's timing probe added to it
        parts.append(held)
    calls = []
    if rerankers:
        calls.append(f"{plural(rerankers * retrieval_configurations * len(cases), 'reranker call')} "
                     "(one per question and reranked configuration)")
    if answers:
        calls.append(f"up to {plural(answers * configurations, 'answer')} ({answers} questions x "
                     f"{configurations} configurations, {answerer})")
    if calls:
        parts.append("calls: " + ", ".join(calls))
    return "; ".join(parts), measured


def plan_line(chunks: Mapping[str, Sequence[Chunk]], cases: Sequence[TestCase], *, configurations: int,
              retrieval_configurations: int, rerankers: int, dense: bool, vectors: Any, answers: int,
              answerer: str | None) -> str:
    """One line: questions, chunks, configurations, texts to embed (and cached), scorer and answer calls; no
    text is embedded (:func:`plan_and_probe` also measures the embedding rate and estimates the time)."""
    return plan_and_probe(chunks, cases, configurations=configurations,
                          retrieval_configurations=retrieval_configurations, rerankers=rerankers, dense=dense,
                          vectors=vectors, answers=answers, answerer=answerer, probe=False)[0]


def batch_size(probe: EmbeddingProbe | None) -> int:
    """Texts a batch of :func:`embed_shared`: about :data:`BATCH_SECONDS` of work at the probe's rate (between
    4 and :data:`EMBED_BATCH`), so a Ctrl-C is obeyed within seconds; :data:`EMBED_BATCH` without a probe."""
    if probe is None or probe.seconds <= 0:
        return EMBED_BATCH
    return max(4, min(EMBED_BATCH, int(BATCH_SECONDS * probe.texts / probe.seconds)))


def _parts(vectors: Any, chunks: Mapping[str, Sequence[Chunk]],
           cases: Sequence[TestCase]) -> list[tuple[str, list[str], Callable[[list[str]], Any]]]:
    parts = [(f"embed chunks of {name}", list(dict.fromkeys(c.text for c in found)), vectors.embed_passages)
             for name, found in chunks.items()]
    parts.append(("embed questions", list(dict.fromkeys(c.query for c in cases)), vectors.embed_queries))
    return parts


def embed_shared(vectors: Any, chunks: Mapping[str, Sequence[Chunk]], cases: Sequence[TestCase],
                 say: Callable[[str], None], show: bool, *, batch: int = EMBED_BATCH,
                 stop: StopAfterBatch | None = None) -> dict[str, float]:
    """Embed every chunk text (per chunking) and every question once, ``batch`` texts at a time (each batch
    is in the cache as soon as it is computed); returns the seconds of each part, keyed
    ``"embed chunks of NAME"`` and ``"embed questions"``. With ``stop``, a Ctrl-C stops the run at the next
    batch boundary (``KeyboardInterrupt``), the finished batches kept in the cache."""
    seconds: dict[str, float] = {}
    for label, texts, embed in _parts(vectors, chunks, cases):
        start = time.perf_counter()
        steps = range(0, len(texts), batch)
        said = 0
        for i in progress_bar(steps, total=len(steps), desc=label, show=show):
            embed(texts[i:i + batch])
            done = min(len(texts), i + batch)
            if stop is not None:
                stop.check(done, len(texts), label)
            if not show and (done == len(texts) or 10 * done // len(texts) > said):  # every tenth, and the end
                said = 10 * done // len(texts)
                say(f"{label}: {done}/{len(texts)}")
        seconds[label] = time.perf_counter() - start
    return seconds
