"""The framework-free text matcher: normalization, the containment rule and the ids/judgments it produces."""

from __future__ import annotations

import pytest

from rag_eval_adapters import metrics
from rag_eval_adapters.matching import contains_match, judge_texts, normalize_text


@pytest.mark.parametrize(
    ("text", "normalized"),
    [
        ("Hello World", "hello world"),
        ("  Hello \n\t  World  ", "hello world"),
        ("ALL\u00a0CAPS", "all caps"),  # non-breaking space is white space too
        ("", ""),
        ("   ", ""),
    ],
)
def test_normalize_text(text, normalized):
    assert normalize_text(text) == normalized


@pytest.mark.parametrize(
    ("retrieved", "expected", "matches"),
    [
        ("Paris is the capital of France.", "capital of France", True),  # retrieved contains expected
        ("capital of France", "Paris is the capital of France.", True),  # retrieved contained in expected
        ("PARIS  is the\ncapital", "paris is the capital", True),  # case and white space ignored
        ("Paris is the capital of France.", "capital of Germany", False),
        ("capital of", "capitalism of the state", False),
        ("", "anything", False),  # an empty chunk is not contained-in-everything
        ("anything", "   ", False),
    ],
)
def test_contains_match(retrieved, expected, matches):
    assert contains_match(retrieved, expected) is matches


def test_judge_texts_relevant_retrieved_and_unmatched_expected():
    judged = judge_texts(
        ["Berlin is in Germany.", "Paris is the capital of France.", "Lyon is in France."],
        ["capital of France", "Rome is the capital of Italy."],
    )
    assert judged.retrieved_ids == ["retrieved[0]", "retrieved[1]", "retrieved[2]"]
    assert judged.matches == ((), (0,), ())
    # judgments: the relevant retrieved text, plus the expected text nothing matched
    assert judged.qrels == {"retrieved[1]": 1.0, "expected[1]": 1.0}
    assert judged.expected_qrels == {"expected[0]": 1.0, "expected[1]": 1.0}
    assert judged.covered_ids == ["expected[0]"]
    assert "matched_expected=1" in repr(judged)


def test_judge_texts_several_chunks_of_one_expected_text_stay_bounded():
    # an expected section split into three retrieved chunks: each chunk is relevant, the section is matched once
    section = "Alpha beta gamma. Delta epsilon zeta. Eta theta iota."
    chunks = ["alpha beta gamma.", "delta epsilon zeta.", "eta theta iota."]
    judged = judge_texts(chunks, [section])
    assert judged.covered_ids == ["expected[0]"]
    assert set(judged.qrels) == set(judged.retrieved_ids)
    assert metrics.precision(judged.retrieved_ids, judged.qrels) == 1.0
    assert metrics.average_precision(judged.retrieved_ids, judged.qrels) == 1.0
    assert metrics.ndcg(judged.retrieved_ids, judged.qrels) == pytest.approx(1.0, abs=1e-12)
    assert metrics.recall(judged.covered_ids, judged.expected_qrels) == 1.0


def test_judge_texts_one_chunk_matching_two_expected_texts_counts_both_for_recall():
    judged = judge_texts(["Paris is in France and Rome is in Italy."], ["Paris is in France", "Rome is in Italy"])
    assert judged.matches == ((0, 1),)
    assert judged.covered_ids == ["expected[0]", "expected[1]"]
    assert metrics.recall(judged.covered_ids, judged.expected_qrels) == 1.0


def test_judge_texts_grades_take_the_best_matched_expected_text():
    judged = judge_texts(
        ["a b c d", "zzz"],
        ["a b", "c d", "missing text"],
        grades={"a b": 1, "c d": 3, "missing text": 2},
    )
    assert judged.qrels == {"retrieved[0]": 3.0, "expected[2]": 2.0}
    assert judged.expected_qrels == {"expected[0]": 1.0, "expected[1]": 3.0, "expected[2]": 2.0}


def test_judge_texts_repeated_expected_text_counts_once():
    judged = judge_texts(["foo bar"], ["foo", "foo"])
    assert judged.expected_texts == ("foo",)
    assert judged.expected_qrels == {"expected[0]": 1.0}


def test_judge_texts_pluggable_matcher():
    calls = []

    def same_first_word(retrieved: str, expected: str) -> bool:
        calls.append((retrieved, expected))
        return retrieved.split()[0] == expected.split()[0]

    judged = judge_texts(["apple pie", "banana split"], ["banana bread"], matcher=same_first_word)
    assert judged.matches == ((), (0,))
    assert calls == [("apple pie", "banana bread"), ("banana split", "banana bread")]


def test_judge_texts_empty_retrieval_is_not_an_error():
    judged = judge_texts([], ["x"])
    assert judged.retrieved_ids == [] and judged.covered_ids == []
    assert judged.qrels == {"expected[0]": 1.0}
    assert metrics.precision(judged.retrieved_ids, judged.qrels) == 0.0


@pytest.mark.parametrize(
    ("retrieved", "expected", "kwargs", "error", "fragment"),
    [
        (["x"], None, {}, ValueError, "expected_texts is missing"),
        (["x"], [], {}, ValueError, "expected_texts is empty"),
        (["x"], ["ok", "  "], {}, ValueError, "expected_texts[1] is blank"),
        (None, ["x"], {}, ValueError, "retrieved_texts is missing"),
        (["x"], "a single string", {}, TypeError, "single string"),
        (["x", 3], ["x"], {}, TypeError, "retrieved_texts[1] must be a str"),
        (["x"], ["x"], {"grades": {"x": "high"}}, TypeError, "must be a number (a relevance grade)"),
        (["x"], ["x"], {"grades": {"x": float("nan")}}, ValueError, "must be a finite grade, got nan"),
        (["x"], ["x"], {"grades": {"y": 2}}, ValueError, "not among expected_texts"),
        (["x"], ["x"], {"matcher": "exact"}, TypeError, "matcher must be a callable"),
    ],
)
def test_judge_texts_bad_input_names_query_and_field(retrieved, expected, kwargs, error, fragment):
    with pytest.raises(error) as info:
        judge_texts(retrieved, expected, query_id="q7", **kwargs)
    assert fragment in str(info.value)
    if "matcher" not in fragment:  # a bad matcher is an option error, not the query's
        assert "query 'q7'" in str(info.value)
