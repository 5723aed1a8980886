"""Page data for the report.html tests: a small page by hand and one full of injection probes; reading a
written page's embedded data back."""

from __future__ import annotations

import json
import re

DATA_BLOCK = re.compile(r'<script type="application/json" id="report-data">(.*?)</script>', re.S)


def embedded(html: str) -> dict:
    """The page data embedded in a written page (exactly one data block)."""
    blocks = DATA_BLOCK.findall(html)
    assert len(blocks) == 1
    return json.loads(blocks[0])

PROBES = [
    "<script>document.title='pwned-script'</script>",
    "<img src=x onerror=\"document.title='pwned-img'\">",
    "</script><script>document.title='pwned-close'</script>",
    "<a href=\"javascript:document.title='pwned-link'\">click</a>",
    "<svg onload=\"document.title='pwned-svg'\"></svg>",
    "<iframe src=\"https://example.com/\"></iframe><link rel=stylesheet href=\"https://example.com/x.css\">",
    "\u202eevil\u202c txt.exe \u2066isolate\u2069 \u2028line\u2029para &amp; &lt;",
]
PROBE_TEXT = " | ".join(PROBES)


def small_page(text: str = "The Amazon carries more water than any other river.") -> dict:
    """Two configurations, two questions, one judged claim: every part of the page has data."""
    chunks = [text + " Deltas form at the sea.", "Owls hunt at night.", "Yeast makes dough rise."]
    return {
        "title": "test report",
        "summary": ["two configurations, two questions"],
        "verdict": ["On all questions, b wins."],
        "headline": "ndcg@2",
        "families": ["hit_rate", "ndcg"],
        "ks": [1, 2],
        "extra_metrics": ["f1"],
        "query_types": {"literal": 1, "paraphrase": 1},
        "configurations": [
            {"name": "a", "info": {"retriever": "bm25"},
             "mean": {"hit_rate@1": 0.5, "hit_rate@2": 0.5, "ndcg@1": 0.5, "ndcg@2": 0.5, "f1": 0.2},
             "by_type": {"literal": {"hit_rate@1": 1.0, "hit_rate@2": 1.0, "ndcg@1": 1.0, "ndcg@2": 1.0},
                         "paraphrase": {"hit_rate@1": 0.0, "hit_rate@2": 0.0, "ndcg@1": 0.0, "ndcg@2": 0.0}}},
            {"name": "b", "info": {"retriever": "e5"},
             "mean": {"hit_rate@1": 1.0, "hit_rate@2": 1.0, "ndcg@1": 1.0, "ndcg@2": 0.9, "f1": 0.6},
             "by_type": {"literal": {"hit_rate@1": 1.0, "hit_rate@2": 1.0, "ndcg@1": 1.0, "ndcg@2": 0.8},
                         "paraphrase": {"hit_rate@1": 1.0, "hit_rate@2": 1.0, "ndcg@1": 1.0, "ndcg@2": 1.0}}},
        ],
        "tests": [{"metric": "ndcg@2", "a": "a", "b": "b", "difference": 0.4, "ci_low": 0.1, "ci_high": 0.7,
                   "p": 0.03, "p_adjusted": 0.06, "n": 2}],
        "questions": [
            {"id": "q1", "text": "which river carries the most water", "type": "literal", "reference": "The Amazon.",
             "evidence": [text]},
            {"id": "q2", "text": "what do owls do", "type": "paraphrase", "reference": "Hunt at night.",
             "evidence": ["Owls hunt at night."]},
        ],
        "query_metrics": ["hit_rate@2", "ndcg@2"],
        "per_query": [[[1.0, 1.0], [0.0, 0.0]], [[1.0, 0.8], [1.0, 1.0]]],
        "chunks": {"ids": ["rivers#0", "owls#0", "bread#0"], "texts": chunks},
        "retrieved": [
            [[[0, 2.5, 100, [0, len(text)]], [2, 1.0, 0, []]], [[2, 0.3, 0, []]]],
            [[[2, 0.9, 0, []], [0, 0.8, 100, [0, len(text)]]], [[1, 0.7, 100, [0, 4, 10, 19]]]],
        ],
        "answers": [
            [{"text": "The Amazon.", "scores": {"f1": 0.4}}, None],
            [{"text": "The Amazon river.", "scores": {"f1": 0.8},
              "claims": [{"text": "The Amazon carries the most water.", "verdict": "supported",
                          "quote": "carries more water", "chunk_id": "rivers#0", "start": 11, "end": 29}]},
             {"error": "TimeoutError: no answer"}],
        ],
    }


def probe_page() -> dict:
    """The small page with an injection probe in every text that comes from data: ids, questions, chunks,
    answers, claims, verdicts, metric names and the title."""
    page = small_page(PROBE_TEXT)
    page["title"] = "probe " + PROBES[2]
    page["summary"] = [PROBE_TEXT]
    page["verdict"] = [PROBE_TEXT]
    page["query_types"] = {PROBES[0]: 1, "paraphrase": 1}
    for config, name in zip(page["configurations"], (PROBES[1], PROBES[6]), strict=True):
        config["name"] = name
        config["info"] = {PROBES[3]: PROBES[4]}
        config["by_type"][PROBES[0]] = config["by_type"].pop("literal")
    page["tests"][0].update(a=PROBES[1], b=PROBES[6], metric=PROBES[5])
    page["questions"][0].update(id=PROBES[6], text=PROBE_TEXT, type=PROBES[0], reference=PROBES[2],
                                evidence=[PROBE_TEXT])
    page["chunks"]["ids"][0] = PROBES[2]
    page["answers"][1][0]["text"] = PROBE_TEXT
    page["answers"][1][0]["claims"][0].update(text=PROBES[1], verdict=PROBES[3], quote=PROBES[4], chunk_id=PROBES[2])
    page["answers"][1][1]["error"] = PROBES[5]
    return page


def notes_page(n_configs: int = 2) -> dict:
    """The small page with what report.md and report.txt say around the numbers: a judge's warning, questions
    left out of a chunking, 24 human-label lines, 24 summary lines, and the interval of every mean (``--ci``);
    ``n_configs`` long-named copies of the configurations (a wide table)."""
    page = small_page()
    page["summary"] = [f"summary line {i}" for i in range(24)]
    page["warnings"] = ["the judge gpt-x also wrote the answers: it may prefer them"]
    page["left_out"] = [  # as the bench writes it into report.json
        {"chunking": "s256o32", "reason": "no_relevant_chunk", "query_ids": ["q1", "q2"], "questions": 2,
         "message": "2 of 2 questions have no relevant chunk in s256o32 and are left out: q1, q2"},
        {"chunking": None, "reason": "unanswerable", "query_ids": ["q2"], "questions": 2, "message": "..."},
        {"configuration": "a", "reason": "a reason of tomorrow", "query_ids": ["q1"]}]
    page["human_labels"] = [f"b ndcg@2: judge mean 0.9, corrected 0.8 [0.6, 1.0] from {i} human labels"
                            for i in range(24)]
    page["interval_note"] = "[low, high]: the 90% interval of each mean over its queries (t: Student's t)."
    configs = []
    for i in range(n_configs):
        config = dict(page["configurations"][i % 2])
        if i >= 2:
            config["name"] = f"s{256 + i}o32/hybrid-retriever-with-a-long-name+cross-encoder-reranker-{i}"
        config["intervals"] = {m: [max(0.0, v - 0.1), min(1.0, v + 0.1)] for m, v in config["mean"].items()}
        config["intervals_by_type"] = {t: {m: [0.0, 1.0] for m in means} for t, means in config["by_type"].items()}
        configs.append(config)
    page["configurations"] = configs
    for key in ("per_query", "retrieved", "answers"):
        page[key] = [page[key][i % 2] for i in range(n_configs)]
    return page
