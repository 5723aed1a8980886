"""Benchmark: answer metrics against the implementations they equal on English text, in one run.

Generates ``--pairs`` seeded English answer/reference pairs of 20-60 words (punctuation, case, articles,
numbers; related, unrelated and equal pairs) and times, on the same pairs:

* ROUGE-L: ``rag_eval_adapters.answers.rouge_l`` against ``rouge_score.rouge_scorer.RougeScorer(["rougeL"])``,
  without and with Porter stemming;
* exact match and token F1: ``exact_match`` / ``token_f1`` against the official SQuAD v1.1 script's
  ``exact_match_score`` / ``f1_score`` (kept verbatim in ``tests/squad_v11_oracle.py``).

Times are CPU seconds of the process (single-threaded work; on a shared machine wall-clock time mostly measures
the other jobs). Every value is compared too: the script fails (exit 1) when any differs. Goals: ROUGE-L at least 5x faster
than rouge-score, EM and F1 at least 3x faster than the SQuAD script.

    python benchmarks/bench_answers.py               # 100,000 pairs
    python benchmarks/bench_answers.py --pairs 5000  # a quick look
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from answer_pairs import pairs  # noqa: E402
from squad_v11_oracle import exact_match_score, f1_score  # noqa: E402

from rag_eval_adapters.answers import exact_match, rouge_l, token_f1  # noqa: E402

GOALS = {"ROUGE-L": 5.0, "ROUGE-L (Porter stemming)": 5.0, "exact match": 3.0, "token F1": 3.0}


def timed(fn, data):
    """CPU seconds of this process (the work is single-threaded), so other jobs on a shared machine count less."""
    start = time.process_time()
    values = [fn(p, r) for p, r in data]
    return time.process_time() - start, values


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=100_000, help="answer/reference pairs (default 100000)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--only", action="append", choices=list(GOALS), metavar="METRIC",
                        help=f"time only these rows (repeatable): {', '.join(GOALS)}")
    args = parser.parse_args(argv)
    from rouge_score import rouge_scorer

    data = pairs(args.pairs, seed=args.seed, min_words=20, max_words=60)
    words = sum(len(p.split()) + len(r.split()) for p, r in data) / (2 * len(data))
    print(f"{len(data):,} English answer/reference pairs, {words:.1f} words on average\n")
    plain = rouge_scorer.RougeScorer(["rougeL"])
    stemmed = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)
    rouge_l("warm up the stemmer", "warm up", stem=True)
    stemmed.score("warm up the stemmer", "warm up")
    cases = [
        ("ROUGE-L", "rouge-score", lambda p, r: tuple(rouge_l(p, r)),
         lambda p, r: tuple(plain.score(r, p)["rougeL"])),
        ("ROUGE-L (Porter stemming)", "rouge-score", lambda p, r: tuple(rouge_l(p, r, stem=True)),
         lambda p, r: tuple(stemmed.score(r, p)["rougeL"])),
        ("exact match", "SQuAD v1.1 script", exact_match, lambda p, r: float(exact_match_score(p, r))),
        ("token F1", "SQuAD v1.1 script", lambda p, r: token_f1(p, r).f1, f1_score),
    ]
    rows, failed = [], False
    for name, peer, ours_fn, theirs_fn in cases:
        if args.only and name not in args.only:
            continue
        theirs_s, theirs = timed(theirs_fn, data)
        ours_s, ours = timed(ours_fn, data)
        differ = sum(a != b for a, b in zip(ours, theirs, strict=False))
        ratio = theirs_s / ours_s
        ok = differ == 0 and ratio >= GOALS[name]
        failed |= differ > 0
        rows.append((name, peer, theirs_s, ours_s, ratio, differ, GOALS[name], ok))
    header = "| metric | peer | peer CPU s | ours CPU s | speed-up | goal | values differing |"
    print(header)
    print("|---|---|---:|---:|---:|---:|---:|")
    for name, peer, theirs_s, ours_s, ratio, differ, goal, ok in rows:
        print(f"| {name} | {peer} | {theirs_s:.2f} | {ours_s:.2f} | {ratio:.1f}x | {goal:.0f}x"
              f"{'' if ok else ' (missed)'} | {differ} of {len(data):,} |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
