"""The text rules of the test-set generator: evidence matching, language, lexical overlap, reply parsing."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rag_eval_adapters.testsets import (
    FUZZY_THRESHOLD,
    detect_language,
    find_evidence,
    lexical_overlap,
    same_language,
)

CHUNK = "The Seine  river\n flows through   Paris. It is 777 km long."


def test_exact_after_white_space_normalisation_maps_to_chunk_offsets():
    match = find_evidence("The Seine river flows through Paris.", CHUNK)
    assert match.exact and CHUNK[match.start : match.end] == match.text == "The Seine  river\n flows through   Paris."
    assert find_evidence('"It is 777 km long."', CHUNK).text == "It is 777 km long."  # quotes around it


def test_fuzzy_match_above_the_threshold_only():
    close = find_evidence("The Seine river flows thru Paris.", CHUNK)
    assert close is not None and not close.exact and close.ratio >= FUZZY_THRESHOLD
    assert close.text in CHUNK
    assert find_evidence("The Thames flows through London.", CHUNK) is None
    assert find_evidence("", CHUNK) is None and find_evidence("   ", CHUNK) is None


@settings(max_examples=150, deadline=None)
@given(st.text(min_size=1, max_size=80), st.integers(0, 79), st.integers(1, 40))
def test_any_substring_is_found_exactly(text, start, length):
    piece = text[start : start + length]
    wanted = " ".join(" ".join(piece.split()).strip("\"'«»“”„「」").split())  # what the quote stands for
    match = find_evidence(piece, text)
    if not wanted:
        assert match is None
        return
    assert match is not None and match.exact
    assert " ".join(text[match.start : match.end].split()) == wanted


def test_languages():
    assert detect_language("Москва является столицей России.") == "ru"
    assert detect_language("Київ є столицею України.") == "uk"
    assert detect_language("北京是中国的首都。") == "zh"
    assert detect_language("東京は日本の首都です。") == "ja"
    assert detect_language("What is the capital of the country?") == "en"
    assert detect_language("Was ist die Hauptstadt und wie groß ist sie?") == "de"
    assert detect_language("12345") == "und"
    assert same_language("Какая река течёт через город?", "Через город протекает река Москва.")
    assert not same_language("Which river flows through the city?", "Через город протекает река Москва.")
    assert not same_language("Какая столица Китая?", "北京是中国的首都。")
    assert same_language("中国的首都是哪里？", "北京是中国的首都。")
    assert not same_language("Was ist die Hauptstadt und wie groß ist die Stadt?",
                             "The capital is the largest city of the country and it is on the river.")


def test_lexical_overlap():
    assert lexical_overlap("What is the length of the Seine?", CHUNK) == 0.5  # length, seine -> seine found
    assert lexical_overlap("Seine Paris", CHUNK) == 1.0
    assert lexical_overlap("What is it?", CHUNK) == 0.0
    assert lexical_overlap("中国的首都", "北京是中国的首都。") == 1.0
