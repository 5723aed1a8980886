"""On English text exact match and F1 equal SQuAD v1.1's script, and ROUGE-L equals rouge-score, exactly."""

from __future__ import annotations

import random

import pytest
from answer_pairs import pairs
from squad_v11_oracle import exact_match_score, f1_score, metric_max_over_ground_truths

from rag_eval_adapters.answers import exact_match, lcs_length, rouge_l, token_f1

rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer", reason="rouge-score is the ROUGE-L oracle")

PAIRS = pairs(3000)


def test_the_generated_pairs_cover_every_case():
    f1s = [f1_score(p, r) for p, r in PAIRS]
    assert sum(exact_match_score(p, r) for p, r in PAIRS) > 300
    assert sum(f == 0 for f in f1s) > 300
    assert sum(0 < f < 1 for f in f1s) > 1000


def test_exact_match_and_f1_equal_the_squad_script():
    for prediction, reference in PAIRS:
        assert exact_match(prediction, reference) == float(exact_match_score(prediction, reference)), (prediction, reference)
        assert token_f1(prediction, reference).f1 == f1_score(prediction, reference), (prediction, reference)


def test_several_references_take_the_best_as_squad_does():
    rng = random.Random(5)
    for i in range(0, len(PAIRS) - 3, 3):
        prediction = PAIRS[i][0]
        references = [PAIRS[i][1], PAIRS[i + 1][1], PAIRS[i + 2][0]][: rng.randint(1, 3)]
        assert exact_match(prediction, references) == float(
            metric_max_over_ground_truths(exact_match_score, prediction, references))
        assert token_f1(prediction, references).f1 == metric_max_over_ground_truths(f1_score, prediction, references)


@pytest.mark.parametrize("stem", [False, True], ids=["plain", "porter"])
def test_rouge_l_equals_rouge_score(stem):
    scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=stem)
    for prediction, reference in PAIRS:
        theirs = scorer.score(reference, prediction)["rougeL"]
        ours = rouge_l(prediction, reference, stem=stem)
        assert (ours.precision, ours.recall, ours.f1) == (theirs.precision, theirs.recall, theirs.fmeasure), (
            prediction, reference)


def test_rouge_l_with_several_references_equals_score_multi():
    scorer = rouge_scorer.RougeScorer(["rougeL"])
    for i in range(0, 900, 3):
        prediction, references = PAIRS[i][0], [PAIRS[i][1], PAIRS[i + 1][1], PAIRS[i + 2][1]]
        theirs = scorer.score_multi(references, prediction)["rougeL"]
        ours = rouge_l(prediction, references)
        assert (ours.precision, ours.recall, ours.f1) == tuple(theirs)


def test_control_characters_and_odd_spacing_agree_too():
    cases = [("the\x01x a", "x"), ("\x7fan apple", "apple"), ("a\x00b the", "a\x00b"), ("\x0bthe\x0ccat", "cat"),
             ("The\u00a0cat", "cat"), ("", ""), ("a an the", ""), ("--", "!!")]
    for prediction, reference in cases:
        assert exact_match(prediction, reference) == float(exact_match_score(prediction, reference)), prediction
        assert token_f1(prediction, reference).f1 == f1_score(prediction, reference), prediction


def _lcs_table(a, b):
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            table[i][j] = table[i - 1][j - 1] + 1 if a[i - 1] == b[j - 1] else max(table[i - 1][j], table[i][j - 1])
    return table[-1][-1]


def test_lcs_length_equals_dynamic_programming_on_long_and_repetitive_sequences():
    rng = random.Random(3)
    for _ in range(500):
        alphabet = "abcd"[: rng.randint(1, 4)]
        a = [rng.choice(alphabet) for _ in range(rng.randint(0, 90))]
        b = [rng.choice(alphabet) for _ in range(rng.randint(0, 90))]
        assert lcs_length(a, b) == _lcs_table(a, b) == lcs_length(b, a)
