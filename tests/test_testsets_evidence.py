"""Evidence that marks a passage, found in bounded time, from chunks of every script (issue 21, items 5-7)."""

from __future__ import annotations

import difflib
import json
import random

import pytest

from rag_eval_adapters.testsets import DROP_REASONS, find_evidence

# ------------------------------------------------------------------------------------------ item 6
WORDS = ("river delta forms where slows enters sea drops sediment channels meandering rivers wind loops when loop "
         "cut off leaves oxbow lake glaciers carve valleys shape ice moves slowly downhill under its own weight "
         "carrying rocks that scrape bedrock beneath them").split()


def prose(chars, seed=0):
    rng, out, size = random.Random(seed), [], 0
    while size < chars:
        sentence = " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 14))).capitalize() + "."
        out.append(sentence)
        size += len(sentence) + 1
    return " ".join(out)


def with_typos(text, every=37):
    letters = list(text)
    for i in range(5, len(letters), every):
        letters[i] = "q" if letters[i] != "q" else "z"
    return "".join(letters)


@pytest.fixture
def comparisons(monkeypatch):
    """The work of the fuzzy search, counted as characters compared: the sum over every
    ``difflib.SequenceMatcher`` it builds of ``len(a) * len(b)`` (a machine-independent measure, no clock)."""
    work = [0]

    class Counting(difflib.SequenceMatcher):
        def __init__(self, isjunk=None, a="", b="", autojunk=True):
            work[0] += len(a) * len(b)
            super().__init__(isjunk, a, b, autojunk)

    monkeypatch.setattr(difflib, "SequenceMatcher", Counting)
    return work


@pytest.mark.parametrize("length", [560, 1125, 2600])
def test_a_long_quote_with_typos_is_found_with_work_linear_in_the_document(length, comparisons):
    document = prose(12_000)
    start = document.index(" ", 4000) + 1
    passage = document[start : start + length].strip()
    match = find_evidence(with_typos(passage), document)
    assert match is not None and not match.exact and match.ratio >= 0.95
    assert abs(match.start - start) <= 2 and abs(match.end - (start + len(passage))) <= 2
    assert match.text == document[match.start : match.end]
    # about 6, 12 and 62 comparisons per document character; the quadratic search compared 3,700 per character
    # for the 560-character quote (8 s; 74 s and minutes for the longer ones)
    assert comparisons[0] <= 150 * len(document)


def test_the_fuzzy_search_grows_about_linearly_with_the_document(comparisons):
    quote_at = 2000
    for size in (10_000, 80_000):
        document = prose(size, seed=3)
        start = document.index(" ", quote_at) + 1
        passage = document[start : start + 600].strip()
        comparisons[0] = 0
        match = find_evidence(with_typos(passage), document)
        assert match is not None and abs(match.start - start) <= 2
        assert comparisons[0] <= 150 * size  # the quadratic search: 5,500 per character at 10,000


def test_a_short_fuzzy_quote_still_matches_and_a_foreign_one_does_not():
    chunk = "The Seine river flows through Paris. It is 777 km long and reaches the sea at Le Havre."
    close = find_evidence("The Seine rivre flows thru Paris.", chunk)
    assert close is not None and close.text == "The Seine river flows through Paris." and not close.exact
    assert find_evidence("Glaciers carve deep valleys over thousands of years.", chunk) is None


# ------------------------------------------------------------------------------------------ items 5 and 7
pytest.importorskip("openai")

from openai_server import reply  # noqa: E402

from rag_eval_adapters.testsets import OpenAICompatibleLLM, generate_testset  # noqa: E402


def llm(server):
    return OpenAICompatibleLLM("gpt-4o-mini", base_url=server.base_url, api_key=server.api_key)


def answer(question, evidence):
    return reply(json.dumps({"questions": [{"question": question, "answer": "an answer", "evidence": evidence}]}))


BOILERPLATE = "Visit the museum shop before you leave the building."
TOUR = [f"{fact} {BOILERPLATE}" for fact in (
    "Monet painted water lilies in his garden at Giverny for thirty years.",
    "Manet shocked the Salon of 1865 with a portrait of a reclining woman.",
    "Degas drew ballet dancers rehearsing at the Paris Opera.",
    "Renoir showed friends dancing at an open-air cafe in Montmartre.",
    "Cezanne returned again and again to one mountain near Aix.",
    "Pissarro moved his easel to a hotel window to paint boulevards in the rain.",
    "Sisley spent his last years painting the river Loing and its bridges.",
    "Morisot exhibited in seven of the eight impressionist shows.",
)]


def test_short_and_common_evidence_is_dropped_and_counted(openai_server):
    chunks = [{"chunk_id": f"room{i}", "text": text} for i, text in enumerate(TOUR)]
    openai_server.on_prompt("Monet", answer("Where did Monet paint water lilies?", "the"))
    openai_server.on_prompt("Manet", answer("What shocked the Salon of 1865?", "."))
    openai_server.on_prompt("Degas", answer("Whom did Degas draw?", "e"))
    openai_server.on_prompt("Renoir", answer("What should visitors do before leaving?", BOILERPLATE))
    testset = generate_testset(chunks, llm(openai_server), samples=8, types="literal", min_chunk_chars=10,
                               max_concurrency=1)
    dropped = testset.summary["dropped"]
    assert dropped == {"evidence_too_short": 3, "evidence_too_common": 1}
    assert {"evidence_too_short", "evidence_too_common"} <= set(DROP_REASONS)
    assert len(testset) == 4 and all(len(c.relevant_chunk_ids) == 1 for c in testset)


def test_a_short_chinese_quote_is_measured_in_characters(openai_server):
    chunk = {"chunk_id": "bj", "text": "北京是中华人民共和国的首都，也是全国的政治中心。故宫位于北京市中心，是明清两代的皇宫。"}
    openai_server.on_prompt("北京", answer("北京是哪个国家的首都？", "首都"),
                            answer("故宫位于哪里？", "故宫位于北京市中心"))
    testset = generate_testset([chunk], llm(openai_server), samples=2, types="literal,paraphrase", max_concurrency=1)
    assert testset.summary["dropped"] == {"evidence_too_short": 1}
    assert [c.evidence for c in testset] == ["故宫位于北京市中心"]


TWO_SENTENCES = {
    "zh-1": "长城是中国古代修建的防御工程。它全长两万多公里，横跨十多个省份。",
    "zh-2": "茶起源于中国西南地区。唐代人陆羽写下了世界上第一部茶叶专著《茶经》。",
    "zh-3": "黄河是中国第二长河。它流经九个省区，最后注入渤海。",
    "ru-1": "Байкал является самым глубоким озером на планете. Его глубина превышает полтора километра, а вода "
            "очень чистая.",
    "ru-2": "Транссибирская магистраль соединяет Москву и Владивосток. Поезд идёт по ней около недели через всю "
            "страну.",
    "ru-3": "Эрмитаж основан в 1764 году. Сегодня это один из крупнейших музеев мира. В нём три миллиона экспонатов.",
}


def test_chinese_and_russian_chunks_of_two_sentences_give_cases_at_the_default_length(openai_server):
    chunks = [{"chunk_id": cid, "text": text} for cid, text in TWO_SENTENCES.items()]
    assert all(len(c["text"]) < 80 for c in chunks if c["chunk_id"].startswith("zh"))  # short in characters
    testset = generate_testset(chunks, llm(openai_server), samples=6, types="literal", max_concurrency=2)
    assert testset.summary["skipped_short_chunks"] == 0 and testset.summary["dropped"] == {}
    assert sorted(c.source_chunk_id for c in testset) == sorted(TWO_SENTENCES)
    assert {c.language for c in testset} == {"zh", "ru"}
