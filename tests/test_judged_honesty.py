"""Judged numbers a system cannot game (issue 30, items 1-3): abstaining, quoting nothing, changing a number."""

from __future__ import annotations

import hashlib
import json
import math
import re

import pytest

pytest.importorskip("openai")

from rag_eval_adapters.answers import CallableEmbedder, evaluate_answers, is_abstention
from rag_eval_adapters.judges import LLMJudge
from rag_eval_adapters.reports import render_evaluation
from rag_eval_adapters.testsets import OpenAICompatibleLLM

REFERENCES = {"q1": "Paris is the capital of France.", "q2": "The Louvre is in Paris. It opened in 1793.",
              "q3": "The Seine is a river."}
QUESTIONS = {"q1": "What is Paris?", "q2": "What about the Louvre?", "q3": "What is the Seine?"}
SYSTEMS = {
    "correct": {"q1": REFERENCES["q1"], "q2": "The Louvre is in Paris.", "q3": REFERENCES["q3"]},
    "abstains_when_unsure": {"q1": REFERENCES["q1"], "q2": "I don't know.", "q3": REFERENCES["q3"]},
    "always_abstains": {"q1": "I don't know.", "q2": "Не знаю.", "q3": "我不知道。"},
    "answers_something": {q: "It is a nice place to visit." for q in REFERENCES},
}
METRICS = ["answer_correctness", "answer_correctness_precision", "answer_correctness_recall", "exact_match",
           "token_f1", "rouge_l", "semantic_similarity"]


def judge(server):
    return LLMJudge(OpenAICompatibleLLM("judge-model", base_url=server.base_url, api_key=server.api_key),
                    retry_base_delay=0.0)


def embedder():
    def embed(texts):
        out = []
        for text in texts:
            vector = [0.0] * 64
            for token in re.findall(r"\w+", text.lower()):
                vector[int(hashlib.md5(token.encode()).hexdigest(), 16) % 64] += 1.0
            out.append(vector if any(vector) else [1.0] + [0.0] * 63)
        return out

    return CallableEmbedder(embed, name="hashed-words")


def records(system):
    return [{"query_id": q, "question": QUESTIONS[q], "prediction": SYSTEMS[system][q], "reference": REFERENCES[q],
             "contexts": [REFERENCES[q]]} for q in REFERENCES]


def test_neither_abstaining_nor_answering_anything_beats_a_correct_system(judge_server):
    means = {s: evaluate_answers(records(s), METRICS, embedder(), judge=judge(judge_server), progress=False).mean
             for s in SYSTEMS}
    for system in ("abstains_when_unsure", "always_abstains", "answers_something"):
        for metric in METRICS:
            assert means[system].get(metric, 0.0) <= means["correct"][metric], (system, metric)
    assert means["abstains_when_unsure"]["answer_correctness_recall"] == pytest.approx(2 / 3)  # was 1.0
    assert means["always_abstains"]["answer_correctness"] == 0.0


def test_abstentions_are_counted_beside_the_judged_means_and_faithfulness_stays_honest(judge_server):
    report = evaluate_answers(records("abstains_when_unsure"), ["faithfulness", "answer_correctness"],
                              judge=judge(judge_server))
    assert report.info["abstained"] == {"count": 1, "rate": pytest.approx(1 / 3), "query_ids": ["q2"]}
    assert report.unmeasured == {"faithfulness": {"q2": "no_claims"}} and report.mean["faithfulness"] == 1.0
    assert "abstained: 1 of 3 answers (33.3%)" in render_evaluation(report)
    assert json.loads(render_evaluation(report, "json"))["info"]["abstained"]["count"] == 1
    assert report.info["judgments"]["faithfulness"]["q2"]["abstained"] is True


def test_on_an_unanswerable_question_only_an_abstention_is_correct(judge_server):
    rows = [{"query_id": "u1", "question": "Who owns the Moon?", "answerable": False, "prediction": text}
            for text in ("I don't know.",)] + [
        {"query_id": "u2", "question": "Who owns the Moon?", "answerable": False, "prediction": "NASA owns it."},
        {"query_id": "u3", "question": "Who owns the Moon?", "answerable": False, "prediction": "Не могу ответить."}]
    report = evaluate_answers(rows, ["answer_correctness", "answer_correctness_recall"], judge=judge(judge_server))
    assert report.per_query == {"u1": {"answer_correctness": 1.0, "answer_correctness_recall": 1.0},
                                "u2": {"answer_correctness": 0.0, "answer_correctness_recall": 0.0},
                                "u3": {"answer_correctness": 1.0, "answer_correctness_recall": 1.0}}


@pytest.mark.parametrize("text", ["I don't know.", "I do not know the answer to that.", "Unknown",
                                  "The context does not mention it.", "Я не знаю.", "Недостаточно информации.",
                                  "我不知道。", "无法回答这个问题", "Je ne sais pas.", "No answer.", "N/A", "Неизвестно."])
def test_abstentions_are_recognised_in_several_languages(text):
    assert is_abstention(text)


@pytest.mark.parametrize("text", ["Paris.", "I don't know why, but Paris is the capital.", "Unknowable is a word.",
                                  "Известно, что Москва — столица.", "北京是中国的首都。", "", "No answer has 3 parts. Yes.",
                                  "No answer was given by the witness.", "No se puede viajar a Marte sin cohete.",
                                  "Unknown soldiers are buried here."])
def test_answers_are_not_abstentions(text):
    assert not is_abstention(text)


def _verdict_reply(quote):
    return {"verdicts": [{"claim": 1, "verdict": "supported", "chunk_id": "1", "quote": quote}]}


@pytest.mark.parametrize("quote", ["e", ".", "the", "1", "the of", "Eiffel"])
def test_a_quote_without_content_supports_nothing(judge_server, quote):
    context = "The Eiffel Tower was completed in 1889 and is 300 metres tall."
    j = judge(judge_server)
    judge_server.on_prompt("<claims>", _reply(_verdict_reply(quote)))
    result = j.faithfulness("The Eiffel Tower was completed in 1998.", [context])
    assert result.score == 0.0 and result.claims[0].verdict == "not_found"


@pytest.mark.parametrize(("claim", "quote"), [("The tower was completed in 1998.", "completed in 1998"),
                                              ("The tower is 330 metres tall.", "is 330 metres tall"),
                                              ("Release 21 shipped the tower.", "Release 21 shipped")])
def test_a_fuzzy_quote_match_never_changes_a_number(judge_server, claim, quote):
    context = "The tower was completed in 1889 and is 300 metres tall. Release 20 shipped it."
    j = judge(judge_server)
    judge_server.on_prompt("<claims>", _reply(_verdict_reply(quote)))
    result = j.faithfulness(claim, [context])
    assert result.score == 0.0 and result.claims[0].verdict == "not_found"


def test_a_quote_with_content_shared_with_its_claim_still_supports_it(judge_server):
    context = "The tower was completed in 1889 and is 300 metres tall."
    j = judge(judge_server)
    judge_server.on_prompt("<claims>", _reply(_verdict_reply("completed in  1889")))
    result = j.faithfulness("The tower was completed in 1889.", [context])
    assert result.score == 1.0 and result.claims[0].quote == "completed in 1889"
    cjk = j.faithfulness("北京是中国的首都。", ["北京是中国的首都，也是政治中心。"])
    assert cjk.score == 1.0 and not math.isnan(cjk.score)


def _reply(content):
    from openai_server import reply

    return reply(json.dumps(content, ensure_ascii=False))
