"""Benchmark: a big report.html stays small and quick to use.

Builds a synthetic bench page of ``--questions`` questions x ``--configs`` configurations (default 1,000 x 20:
four chunkings x five retrievers, cutoffs 1, 3, 5, 10, 20, the top 10 chunks of every question in every
configuration with grades and evidence offsets, an answer with scores for every question, judged claims for a
quarter of them, the paired tests of every two configurations on two metrics), writes it with
``rag_eval_adapters.reports.html.write_html_report``, and opens it from disk in headless Chromium (the system
browser, through Playwright) to measure:

* the file's size (goal: under 20 MB);
* the time to interactive: from the start of navigation to the page's ``report-ready`` mark, set once the
  tables, charts and question list are built (goal: under 2 s), and the wall time until ``data-ready``;
* the time to open the drill-down of the worst question (its chunks for two configurations).

    python benchmarks/bench_html.py                      # 1,000 x 20
    python benchmarks/bench_html.py --questions 200      # a quick look
    python benchmarks/bench_html.py --keep report.html   # keep the page to look at
    python benchmarks/bench_html.py --page demo_report/report.html --screenshots shots/   # measure a written page

``--screenshots DIR`` saves ``overview.png`` (the verdict, the table and the charts) and ``drilldown.png`` (the
worst question opened) of the measured page.

Exit 1 when a goal is missed.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from browser_support import WatchedPage, chromium, skip_reason  # noqa: E402

from rag_eval_adapters.reports.html import write_html_report  # noqa: E402

GOAL_MB, GOAL_S = 20.0, 2.0
FAMILIES = ["hit_rate", "recall", "precision", "mrr", "ndcg"]
KS = [1, 3, 5, 10, 20]
TYPES = ["literal", "paraphrase", "scenario"]
WORDS = ("river delta sediment volcano magma crust owl feather yeast dough gluten index query database "
         "transaction commit branch merge solar wind aurora planet orbit protein cell enzyme the a of and to "
         "in is that for with as on by").split()


def sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def synthetic_page(n_questions: int, n_configs: int, seed: int = 0) -> dict:
    """A bench page of the given size, shaped as :func:`rag_eval_adapters.bench.html_page.bench_page` makes it."""
    rng = random.Random(seed)
    chunkings = [f"s{size}o{size // 8}" for size in (128, 256, 384, 512)]
    retrievers = ["bm25", "e5", "hybrid", "bm25+lexical", "hybrid+lexical"]
    names = [f"{c}/{r}" for c in chunkings for r in retrievers][:n_configs]
    while len(names) < n_configs:
        names.append(f"extra{len(names)}/bm25")
    chunk_ids, chunk_texts = [], []
    per_chunking = max(50, n_questions * 3 // 2)
    for c in chunkings:
        for i in range(per_chunking):
            chunk_ids.append(f"doc{i // 6:04d}.txt#{c}#{i % 6}")
            chunk_texts.append(" ".join(sentence(rng, rng.randint(12, 22)) for _ in range(rng.randint(3, 6))))
    questions = [{"id": f"q{i:04d}", "text": sentence(rng, rng.randint(6, 14))[:-1] + "?", "type": rng.choice(TYPES),
                  "reference": sentence(rng, rng.randint(4, 12)), "evidence": [sentence(rng, 15)]}
                 for i in range(n_questions)]
    query_metrics = [f"{f}@10" for f in FAMILIES]
    configs, per_query, retrieved, answers = [], [], [], []
    for ci, name in enumerate(names):
        chunking = name.split("/")[0]
        base = (chunkings.index(chunking) if chunking in chunkings else ci % len(chunkings)) * per_chunking
        skill = 0.5 + 0.45 * rng.random()
        rows_q, rows_r, rows_a = [], [], []
        for qi in range(n_questions):
            ranking = []
            for _ in range(10):
                chunk = base + rng.randrange(per_chunking)
                grade = rng.choice((0, 0, 0, 40, 100)) if rng.random() < skill else 0
                text = chunk_texts[chunk]
                start = rng.randrange(max(1, len(text) - 80))
                ranking.append([chunk, round(rng.random() * 20, 4), grade, [start, start + 60] if grade else []])
            rows_r.append(ranking)
            values = [min(1.0, max(0.0, skill + rng.gauss(0, 0.2))) for _ in query_metrics]
            rows_q.append([round(v, 6) for v in values])
            answer = {"text": sentence(rng, rng.randint(8, 24)), "scores": {"token_f1": round(rng.random(), 6),
                                                                          "semantic_similarity": round(0.75 + rng.random() / 4, 6)}}
            if qi % 4 == 0:
                chunk = ranking[0][0]
                answer["claims"] = [{"text": sentence(rng, 8), "verdict": rng.choice(["supported", "unsupported"]),
                                     "quote": chunk_texts[chunk][10:50], "chunk_id": chunk_ids[chunk], "start": 10,
                                     "end": 50}]
            rows_a.append(answer)
        per_query.append(rows_q)
        retrieved.append(rows_r)
        answers.append(rows_a)
        mean = {f"{f}@{k}": round(min(1.0, skill * (0.6 + 0.02 * k)), 6) for f in FAMILIES for k in KS}
        mean.update(token_f1=round(skill / 2, 6), semantic_similarity=round(0.8 + skill / 10, 6))
        configs.append({"name": name, "info": {"chunking": name.split("/")[0], "retriever": name.split("/")[1]},
                        "mean": mean, "by_type": {t: {m: round(min(1.0, v * (0.9 + 0.1 * j)), 6)
                                                      for m, v in mean.items()} for j, t in enumerate(TYPES)}})
    used = sorted({e[0] for rows in retrieved for ranking in rows for e in ranking})
    renumber = {old: new for new, old in enumerate(used)}
    for rows in retrieved:
        for ranking in rows:
            for entry in ranking:
                entry[0] = renumber[entry[0]]
    tests = [{"metric": m, "a": a, "b": b, "difference": round(rng.gauss(0, 0.05), 6), "ci_low": -0.05,
              "ci_high": 0.05, "p": round(rng.random(), 6), "n": n_questions}
             for m in ("ndcg@10", "hit_rate@5") for i, a in enumerate(names) for b in names[i + 1:]]
    return {"title": f"synthetic bench report: {n_questions} questions x {n_configs} configurations",
            "summary": ["synthetic data for benchmarks/bench_html.py"],
            "verdict": [f"On all questions, {names[0]} wins (synthetic)."], "headline": "ndcg@10",
            "families": FAMILIES, "ks": KS, "extra_metrics": ["token_f1", "semantic_similarity"],
            "query_types": {t: sum(q["type"] == t for q in questions) for t in TYPES}, "configurations": configs,
            "tests": tests, "questions": questions, "query_metrics": query_metrics, "per_query": per_query,
            "chunks": {"ids": [chunk_ids[i] for i in used], "texts": [chunk_texts[i] for i in used]},
            "retrieved": retrieved, "answers": answers}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=int, default=1000)
    parser.add_argument("--configs", type=int, default=20)
    parser.add_argument("--keep", metavar="PATH", help="write the page here (default: a temporary file)")
    parser.add_argument("--page", metavar="HTML", help="measure this report.html instead of a synthetic one")
    parser.add_argument("--screenshots", metavar="DIR", help="save overview.png and drilldown.png of the page here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if args.page:
            path = Path(args.page)
            print(f"page: {path}")
        else:
            start = time.perf_counter()
            page_data = synthetic_page(args.questions, args.configs)
            built = time.perf_counter() - start
            path = Path(args.keep) if args.keep else Path(tmp) / "report.html"
            start = time.perf_counter()
            write_html_report(page_data, path)
            written = time.perf_counter() - start
            print(f"page: {args.questions} questions x {args.configs} configurations; data built in {built:.1f} s, "
                  f"written in {written:.2f} s")
        size_mb = path.stat().st_size / 1e6
        print(f"size: {size_mb:.2f} MB ({path.stat().st_size:,} bytes; goal < {GOAL_MB:.0f} MB)")
        reason = skip_reason()
        if reason:
            print(f"browser timing skipped: {reason}")
            return 0 if size_mb < GOAL_MB else 1
        with chromium() as browser:
            start = time.perf_counter()
            watched = WatchedPage(browser, path)
            wall = time.perf_counter() - start
            page = watched.page
            ready_ms = page.evaluate("performance.getEntriesByName('report-ready')[0].startTime")
            if args.screenshots:
                Path(args.screenshots).mkdir(parents=True, exist_ok=True)
                page.set_viewport_size({"width": 1300, "height": 2000})
                page.screenshot(path=str(Path(args.screenshots) / "overview.png"))
            start = time.perf_counter()
            page.click("#questions-table tbody tr:first-child .qbtn")
            page.wait_for_selector("#drilldown .config-column")
            drill = time.perf_counter() - start
            if args.screenshots:
                page.locator("#drilldown").screenshot(path=str(Path(args.screenshots) / "drilldown.png"))
            problems = watched.console_errors() + watched.foreign_requests()
        print(f"time to interactive: {ready_ms / 1000:.2f} s from navigation start to the report-ready mark "
              f"(goal < {GOAL_S:.0f} s); {wall:.2f} s wall until data-ready")
        print(f"drill-down of the worst question: {drill:.2f} s")
        if problems:
            print("console errors or requests:", problems)
    ok = size_mb < GOAL_MB and ready_ms / 1000 < GOAL_S and not problems
    print("goals met" if ok else "GOAL MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
