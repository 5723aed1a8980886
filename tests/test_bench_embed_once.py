"""Issue 25, item 1: a benchmark run embeds each distinct text once and builds each BM25 index once, whatever
its configurations share (chunks across retrievers and rerankers, questions across chunkings, answers and
references); a warm re-run embeds nothing."""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from bench_helpers import HashEmbedder, case_records, documents  # noqa: E402

from rag_eval_adapters.bench import BenchSettings, FunctionChunking, run_bench  # noqa: E402

bm25s = pytest.importorskip("bm25s")
pytest.importorskip("llama_index.core")

SETTINGS = BenchSettings(ks=(1, 3, 5), permutations=20, e2e_limit=8, candidates=10)


class RecordingEmbedder(HashEmbedder):
    """The hashing embedder, recording every ``(side, text)`` it is asked to embed."""

    name = "recording-hash-64"

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, str]] = []

    def embed_queries(self, texts):
        self.calls += [("query", t) for t in texts]
        return super().embed_queries(texts)

    def embed_passages(self, texts):
        self.calls += [("passage", t) for t in texts]
        return super().embed_passages(texts)


def sentences(text):
    return [s for s in re.split(r"(?<=\.)\s+", text) if s.strip()]


def pairs(text):
    """Two sentences a chunk, then the last sentence alone: the last chunks of each document repeat the
    sentence chunking's texts, so the two chunkings share chunk texts."""
    found = sentences(text)
    return [" ".join(found[i:i + 2]) for i in range(0, len(found) - 1, 2)] + [found[-1]]


CHUNKINGS = [FunctionChunking("sent", sentences), FunctionChunking("pair", pairs)]


def bench(embedder, cache_dir):
    return run_bench(documents(), case_records(), chunkings=CHUNKINGS, retrievers=["bm25", "e5", "hybrid"],
                     rerankers=["lexical", "e5"], settings=SETTINGS, embedder=embedder, cache_dir=cache_dir)


def test_every_distinct_text_is_embedded_at_most_once_per_run(tmp_path):
    embedder = RecordingEmbedder()
    result = bench(embedder, tmp_path / "cache")
    assert len(result.results) == 2 * 3 * 3  # 2 chunkings x 3 retrievers x (none, lexical, e5)
    repeated = {call: n for call, n in Counter(embedder.calls).items() if n > 1}
    assert repeated == {}
    passages = {t for side, t in embedder.calls if side == "passage"}
    chunk_texts = {c.text for found in result.chunks.values() for c in found}
    assert chunk_texts <= passages  # both chunkings' chunks were embedded (the shared ones once)
    assert {c.text for c in result.chunks["sent"]} & {c.text for c in result.chunks["pair"]}  # some are shared
    assert {("query", c.query) for c in result.cases} <= set(embedder.calls)  # questions, once for all chunkings
    references = {c.answer for c in result.cases if c.answer}
    assert references <= passages  # the semantic-similarity metric's references, once for every configuration
    assert result.usage["embeddings"]["computed"] == len(embedder.calls)


def test_a_warm_re_run_embeds_nothing(tmp_path):
    bench(RecordingEmbedder(), tmp_path / "cache")
    again = RecordingEmbedder()
    result = bench(again, tmp_path / "cache")
    assert again.calls == []
    assert result.usage["embeddings"]["computed"] == 0


def test_each_bm25_index_is_built_once_a_chunking(tmp_path, monkeypatch):
    built = []
    original = bm25s.BM25.index

    def counting(self, *args, **kwargs):
        built.append(self)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(bm25s.BM25, "index", counting)
    bench(RecordingEmbedder(), tmp_path / "cache")
    assert len(built) == len(CHUNKINGS)  # bm25 and hybrid's BM25 part share one index a chunking
