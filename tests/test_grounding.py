"""Offline grounding metrics (``grounding_lexical``, ``grounding_semantic``): an answer against its contexts."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from cli_support import run_cli  # noqa: E402

from rag_eval_adapters.answers import (  # noqa: E402
    CallableEmbedder,
    LexicalGrounding,
    SemanticGrounding,
    evaluate_answers,
    lexical_grounding,
    parse_answer_metric,
    semantic_grounding,
)
from rag_eval_adapters.answers.grounding import split_sentences  # noqa: E402


def bag_embedder():
    """Sentences as bags of their lower-cased words (hashed into 64 dimensions): equal words, cosine 1."""
    def fn(texts):
        out = []
        for t in texts:
            v = np.zeros(64)
            for w in t.lower().replace(".", " ").split():
                v[sum(map(ord, w)) % 64] += 1
            out.append(v + 1e-9)
        return out
    return CallableEmbedder(fn, name="bag")


def test_lexical_grounding_is_the_share_of_distinct_answer_tokens_found_in_the_contexts():
    contexts = ["The Eiffel Tower is in Paris.", {"chunk_id": "b", "text": "It was built in 1889."}]
    # tokens: the, eiffel, tower, was, built, in, 1887 -> 6 of 7 found (1887 is not)
    assert lexical_grounding("The Eiffel Tower was built in 1887.", contexts) == pytest.approx(6 / 7)
    # a repeated token counts once
    assert lexical_grounding("Paris Paris Paris London", ["Paris"]) == pytest.approx(1 / 2)
    assert lexical_grounding("Paris", {"a": "PARIS!"}) == 1.0
    assert lexical_grounding("Paris", [("a", "Lyon")]) == 0.0


def test_lexical_grounding_in_russian_and_chinese():
    # Russian: case folded, punctuation (the dash, the guillemets) dropped; "столица" differs from "столицей"
    assert lexical_grounding("Москва — столица России.", ["«Столица России» — это Москва"]) == 1.0
    assert lexical_grounding("Москва является столицей", ["Москва — столица"]) == pytest.approx(1 / 3)
    # Chinese: one token a character
    assert lexical_grounding("北京是首都", ["中国的首都是北京。"]) == 1.0
    assert lexical_grounding("上海是首都", ["北京是首都"]) == pytest.approx(3 / 5)


def test_no_contexts_scores_zero_and_an_answer_without_words_is_an_error():
    assert lexical_grounding("Paris", []) == 0.0
    with pytest.raises(ValueError, match="no word token"):
        lexical_grounding("...", ["Paris"])
    with pytest.raises(TypeError, match=r"contexts\[0\]"):
        lexical_grounding("Paris", [3])


def test_the_registry_names_and_the_metric_objects():
    assert parse_answer_metric("grounding_lexical") == LexicalGrounding()
    assert parse_answer_metric("lexical_grounding") == LexicalGrounding()
    assert parse_answer_metric("grounding_semantic") == SemanticGrounding()
    assert not LexicalGrounding.needs_embedder and SemanticGrounding.needs_embedder
    assert LexicalGrounding().score("Paris", contexts=["Paris"]) == 1.0
    with pytest.raises(ValueError, match="contexts"):
        LexicalGrounding().score("Paris", ["Paris"])


def test_evaluate_answers_reads_contexts_and_needs_no_reference():
    records = [
        {"query_id": "en", "prediction": "Paris is big.", "contexts": ["Paris is a city."]},
        {"query_id": "ru", "prediction": "Москва", "retrieved_contexts": ["Москва"], "reference": "x"},
        {"query_id": "zh", "prediction": "北京", "contexts": {"c1": "北京是首都"}},
        {"query_id": "none", "prediction": "Paris", "contexts": []},
        {"query_id": "missing", "prediction": "Paris"},
        {"query_id": "both", "prediction": "Paris", "contexts": [], "retrieved_contexts": ["Lyon"]},
        {"query_id": "empty", "prediction": "", "contexts": ["Paris"]},
    ]
    report = evaluate_answers(records, ["grounding_lexical"], progress=False)
    assert report.per_query == {"en": {"grounding_lexical": pytest.approx(2 / 3)}, "ru": {"grounding_lexical": 1.0},
                                "zh": {"grounding_lexical": 1.0}, "none": {"grounding_lexical": 0.0}}
    assert "no 'contexts' field (nor 'retrieved_contexts')" in report.errors["missing"]
    assert "two names of one field with different values" in report.errors["both"]
    assert "no word token" in report.errors["empty"]


def test_a_reference_metric_beside_grounding_still_needs_the_reference():
    records = [{"query_id": 1, "prediction": "Paris", "contexts": ["Paris"]},
               {"query_id": 2, "prediction": "Paris", "contexts": ["Paris"], "reference": "Paris"}]
    report = evaluate_answers(records, ["grounding_lexical", "token_f1"], progress=False)
    assert report.per_query == {2: {"grounding_lexical": 1.0, "token_f1": 1.0}}
    assert "no 'references' field (nor 'reference'" in report.errors[1]


def test_split_sentences_in_three_scripts():
    assert split_sentences("One. Two!\nThree? Version 2.5: out") == ["One.", "Two!", "Three?", "Version 2.5: out"]
    assert split_sentences("北京是首都。上海很大！") == ["北京是首都。", "上海很大！"]
    assert split_sentences("Москва — столица. Она большая.") == ["Москва — столица.", "Она большая."]


def test_semantic_grounding_averages_each_sentences_best_match():
    e = bag_embedder()
    contexts = ["Paris is a city. The tower is tall.", "Cats sleep."]
    assert semantic_grounding("Paris is a city. The tower is tall.", contexts, e) == pytest.approx(1.0)
    half = semantic_grounding("Paris is a city. Zebras run fast", contexts, e)
    vectors = np.array(e.embed_passages(["Zebras run fast", "Paris is a city.", "The tower is tall.", "Cats sleep."]))
    vectors /= np.linalg.norm(vectors, axis=1)[:, None]
    assert half == pytest.approx((1.0 + max(0.0, float((vectors[1:] @ vectors[0]).max()))) / 2)
    assert semantic_grounding("Paris is a city.", [], e) == 0.0


def test_semantic_grounding_through_evaluate_answers_in_one_batch():
    calls = []
    inner = bag_embedder()

    def fn(texts):
        calls.append(list(texts))
        return inner.fn(texts)

    e = CallableEmbedder(fn, name="bag-counted")
    records = [{"query_id": i, "prediction": p, "contexts": ["Paris is a city. Cats sleep."]}
               for i, p in enumerate(["Paris is a city.", "Cats sleep. Paris is a city.", ""])]
    report = evaluate_answers(records, ["grounding_semantic", "grounding_lexical"], e, progress=False)
    assert report.column("grounding_semantic") == pytest.approx([1.0, 1.0])
    assert list(report.errors) == [2]
    with pytest.raises(ValueError, match="grounding_semantic needs an embedder"):
        evaluate_answers(records, ["grounding_semantic"], progress=False)


def test_rag_eval_answers_scores_grounding_from_a_file(tmp_path):
    path = tmp_path / "answers.jsonl"
    lines = [{"query_id": "q1", "prediction": "Paris is big", "contexts": ["Paris is a city"]},
             {"query_id": "q2", "prediction": "Москва", "contexts": [{"chunk_id": "a", "text": "Москва"}]}]
    path.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n", encoding="utf-8")
    code, out, err = run_cli("answers", "--predictions", str(path), "-m", "grounding_lexical", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["mean"]["grounding_lexical"] == pytest.approx((2 / 3 + 1) / 2)
