"""Score a retrieval run with the plain functions and with evaluate(): no framework needed.

    python examples/quickstart.py
"""

from rag_eval_adapters import evaluate
from rag_eval_adapters.metrics import mrr, ndcg, recall

# Graded judgments: 2 = the answer, 1 = useful context, 0 = judged not relevant.
qrels = {
    "what is bm25": {"doc-bm25": 2, "doc-tfidf": 1, "doc-cats": 0},
    "how do rerankers work": {"doc-rerank": 2, "doc-cross-encoder": 2},
    "chunk size for rag": {"doc-chunking": 2},
}
# What the retriever returned, best first (or {doc: score}, ranked as trec_eval ranks).
run = {
    "what is bm25": ["doc-tfidf", "doc-bm25", "doc-cats"],
    "how do rerankers work": ["doc-cross-encoder", "doc-bm25", "doc-rerank"],
    "chunk size for rag": ["doc-cats", "doc-tfidf"],
}

# One query at a time
q = "what is bm25"
print(f"{q!r}: mrr={mrr(run[q], qrels[q]):.3f} ndcg@3={ndcg(run[q], qrels[q], k=3):.3f} "
      f"recall@1={recall(run[q], qrels[q], k=1):.3f}")

# The whole run
report = evaluate(qrels, run, ["hit_rate@1", "mrr", "recall@3", "ndcg@3", "map"])
print(report)
width = max(len(str(query)) for query in report.per_query)
print(f"{'query':<{width}}  " + "  ".join(f"{key:>10}" for key in report.keys))
for query, values in report.per_query.items():
    print(f"{query:<{width}}  " + "  ".join(f"{values[key]:>10.4f}" for key in report.keys))
print(f"{'mean':<{width}}  " + "  ".join(f"{report.mean[key]:>10.4f}" for key in report.keys))
