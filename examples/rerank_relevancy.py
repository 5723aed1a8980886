"""Reranker relevancy of a retrieval, without expected ids.

Runs offline with the lexical scorer; when COHERE_API_KEY (or CO_API_KEY) is set it also scores with Cohere
Rerank (model from --model, endpoint from CO_API_URL if set) and reports the billed search units.

    python examples/rerank_relevancy.py                       # offline
    COHERE_API_KEY=... python examples/rerank_relevancy.py    # offline + Cohere
    python examples/rerank_relevancy.py --cache rerank.sqlite # a re-run does not pay twice
"""

from __future__ import annotations

import argparse
import os

from rag_eval_adapters.rerank import (
    CohereReranker,
    LexicalScorer,
    RelevanceScorer,
    RerankError,
    rerank_relevancy_batch,
)

# Two retrievers' results for the same questions: one retrieves on topic, one mostly off topic.
QUERIES = {
    "q1": "What is the capital of France?",
    "q2": "How do vaccines train the immune system?",
    "q3": "When did the Apollo 11 mission land on the Moon?",
}
GOOD = {
    "q1": ["Paris is the capital and largest city of France.", "France is a country in Western Europe."],
    "q2": [
        "Vaccines train the immune system to recognise a pathogen by exposing it to an antigen.",
        "The immune system produces antibodies and memory cells after vaccination.",
    ],
    "q3": ["Apollo 11 landed on the Moon on 20 July 1969.", "Neil Armstrong was the first person on the Moon."],
}
POOR = {
    "q1": ["Lyon is known for its cuisine.", "The Seine flows through several regions."],
    "q2": ["Vitamin C is found in citrus fruit.", "Sleep matters for health."],
    "q3": [],  # the retriever found nothing: scores 0.0, no request sent
}


def report(scorer: RelevanceScorer) -> None:
    print(f"\n== {scorer!r}")
    print(f"{'retriever':<10} {'agg':<7} " + " ".join(f"{q:>6}" for q in QUERIES) + f" {'mean':>6}")
    for label, run in (("good", GOOD), ("poor", POOR)):
        for agg in ("max", "mean", "median"):
            items = {qid: (QUERIES[qid], run[qid]) for qid in QUERIES}
            batch = rerank_relevancy_batch(items, scorer, agg=agg)
            cells = " ".join(f"{batch.scores[q]:6.3f}" if q in batch.scores else f"{'ERR':>6}" for q in QUERIES)
            print(f"{label:<10} {agg:<7} {cells} {batch.mean() or 0.0:6.3f}")
            for qid, message in batch.errors.items():
                print(f"  {qid}: {message}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="rerank-v3.5", help="Cohere rerank model (default: rerank-v3.5)")
    parser.add_argument("--cache", default=None, help="SQLite file caching Cohere scores across runs")
    args = parser.parse_args()

    report(LexicalScorer())

    if os.environ.get("COHERE_API_KEY") or os.environ.get("CO_API_KEY"):
        try:
            with CohereReranker(model=args.model, cache=args.cache) as cohere_scorer:
                report(cohere_scorer)
                usage = cohere_scorer.usage
                print(
                    f"\nCohere usage: {usage.requests} requests, {usage.search_units:g} search units billed, "
                    f"{usage.retries} retries, {usage.cache_hits} pairs from the cache"
                )
        except RerankError as exc:
            print(f"\nCohere scoring failed: {exc}")
    else:
        print("\n(set COHERE_API_KEY to score with Cohere Rerank as well)")


if __name__ == "__main__":
    main()
