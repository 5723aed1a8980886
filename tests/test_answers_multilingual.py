"""Russian, Chinese and mixed-script answers score what a reader expects (values worked out by hand)."""

from __future__ import annotations

import pytest

from rag_eval_adapters.answers import (
    ROUGE,
    SQUAD,
    Normalization,
    exact_match,
    rouge_l,
    token_f1,
)


def test_russian_punctuation_case_and_yo_are_normalised():
    # «», — and the full stop are Unicode punctuation; case folding makes "Москва" equal "МОСКВА".
    assert SQUAD.tokens("«МОСКВА» — столица России.") == ["москва", "столица", "россии"]
    assert exact_match("«Москва»", "москва") == 1.0
    assert exact_match("Москва.", ["Санкт-Петербург", "МОСКВА"]) == 1.0


def test_russian_token_f1_by_hand():
    # prediction: столица россии москва (3 tokens); reference: москва (1) -> overlap 1, P = 1/3, R = 1
    score = token_f1("Столица России — Москва", "Москва")
    assert score.precision == pytest.approx(1 / 3)
    assert score.recall == 1.0
    assert score.f1 == pytest.approx(2 * (1 / 3) / (1 / 3 + 1))  # 0.5
    assert score.f1 == pytest.approx(0.5)


def test_russian_rouge_l_by_hand_where_rouge_score_gives_zero():
    # prediction: кошка сидела на ковре (4); reference: кошка лежала на ковре (4); LCS = кошка на ковре = 3
    score = rouge_l("Кошка сидела на ковре.", "Кошка лежала на ковре!")
    assert (score.precision, score.recall) == (0.75, 0.75)
    assert score.f1 == pytest.approx(0.75)
    rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")
    assert rouge_scorer.RougeScorer(["rougeL"]).score("Кошка лежала на ковре!", "Кошка сидела на ковре.")[
        "rougeL"].fmeasure == 0.0


def test_chinese_is_scored_by_characters_as_mlqa_does():
    assert SQUAD.tokens("北京是中国的首都。") == ["北", "京", "是", "中", "国", "的", "首", "都"]
    # prediction 北京 (2 chars) vs reference 中国的首都北京 (7 chars): overlap 2 -> P = 1, R = 2/7, F1 = 4/9
    score = token_f1("北京", "中国的首都北京")
    assert (score.precision, score.recall) == (1.0, pytest.approx(2 / 7))
    assert score.f1 == pytest.approx(4 / 9)
    assert exact_match("北京。", "北京") == 1.0
    assert exact_match("北京", "南京") == 0.0


def test_chinese_rouge_l_by_hand():
    # 北京是中国的首都 vs 中国的首都是北京: LCS 中国的首都 = 5 of 8 characters on each side
    score = rouge_l("北京是中国的首都", "中国的首都是北京")
    assert score == (0.625, 0.625, pytest.approx(0.625))


def test_full_width_and_compatibility_forms_fold_under_nfkc():
    # ＡＢＣ１２３ (full width) is abc123 after NFKC and case folding; "ﬁ" ligature is "fi"
    assert exact_match("ＡＢＣ１２３", "abc123") == 1.0
    assert exact_match("ﬁnal", "final") == 1.0
    assert exact_match("Straße", "STRASSE") == 1.0  # full case folding, not lower()


def test_mixed_script_answer_by_hand():
    # tokens: the model (English article dropped) -> [model, gpt, 4, ответил, 東, 京]
    tokens = SQUAD.tokens("The model GPT-4 ответил: 東京!")
    assert tokens == ["model", "gpt4", "ответил", "東", "京"]
    # reference tokens: [gpt4, ответил, 東, 京, быстро] -> overlap 4; P = 4/5, R = 4/5
    score = token_f1("The model GPT-4 ответил: 東京!", "GPT-4 ответил быстро: 東京")
    assert score.precision == pytest.approx(4 / 5)
    assert score.recall == pytest.approx(4 / 5)
    assert score.f1 == pytest.approx(0.8)
    # ROUGE splits GPT-4 into gpt and 4 and keeps "the": [the model gpt 4 ответил 東 京] (7) vs
    # [gpt 4 ответил быстро 東 京] (6); LCS gpt 4 ответил 東 京 = 5
    r = rouge_l("The model GPT-4 ответил: 東京!", "GPT-4 ответил быстро: 東京")
    assert (r.precision, r.recall) == (pytest.approx(5 / 7), pytest.approx(5 / 6))


def test_stemming_leaves_other_scripts_alone():
    assert rouge_l("кошки бегают", "кошки бегают", stem=True).f1 == 1.0
    # stemmed: [the cat were run] vs [the cat run] -> LCS 3; unstemmed only "the" is shared
    stemmed = rouge_l("The cats were running", "the cat runs", stem=True)
    assert (stemmed.precision, stemmed.recall) == (0.75, 1.0)
    assert rouge_l("The cats were running", "the cat runs").recall == pytest.approx(1 / 3)


def test_normalisation_is_configurable():
    keep_articles = Normalization(articles=())
    assert keep_articles.tokens("The cat") == ["the", "cat"]
    assert exact_match("The cat", "cat", normalization=keep_articles) == 0.0
    german = Normalization(articles=("der", "die", "das"))
    assert german.tokens("Die Katze, das Haus") == ["katze", "haus"]
    cased = Normalization(casefold=False)
    assert exact_match("Paris", "paris", normalization=cased) == 0.0
    assert Normalization(cjk_characters=False).tokens("北京 是") == ["北京", "是"]
    assert ROUGE.tokens("don't") == ["don", "t"] and SQUAD.tokens("don't") == ["dont"]


def test_empty_answers_follow_squad_v1_1():
    # both sides empty after normalisation: SQuAD v1.1 counts an exact match but an F1 of 0
    assert exact_match("The", "a") == 1.0
    assert token_f1("The", "a").f1 == 0.0
    assert rouge_l("", "Paris").f1 == 0.0


def test_bad_input_names_the_field():
    with pytest.raises(TypeError, match="prediction must be a string"):
        exact_match(None, "x")
    with pytest.raises(ValueError, match="references is empty"):
        token_f1("x", [])
    with pytest.raises(TypeError, match=r"references\[1\] must be a string"):
        rouge_l("x", ["a", 2])
    with pytest.raises(ValueError, match="punctuation must be"):
        Normalization(punctuation="drop")


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40) | st.sampled_from(
    ["Москва!", "北京是中国的首都。", "The cat", "ＡＢＣ", "l’Europe", "GPT-4 ответил: 東京", ""])


@settings(max_examples=300, deadline=None)
@given(TEXT, TEXT)
def test_any_unicode_text_scores_in_the_unit_interval(prediction, reference):
    for value in (exact_match(prediction, reference), *token_f1(prediction, reference), *rouge_l(prediction, reference)):
        assert 0.0 <= value <= 1.0
    assert exact_match(prediction, prediction) == 1.0
    if SQUAD.tokens(prediction):
        assert token_f1(prediction, prediction).f1 == 1.0
    if ROUGE.tokens(prediction):
        assert rouge_l(prediction, [reference, prediction]).f1 == 1.0
    for token in SQUAD.tokens(prediction) + ROUGE.tokens(prediction):
        assert token and not any(c.isspace() for c in token)
