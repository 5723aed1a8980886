"""Evaluate a real in-memory LlamaIndex retriever on a small data set: no network, no API key, no LLM.

    python examples/llamaindex_retriever_eval.py

A ``VectorStoreIndex`` over a dozen nodes is embedded with a deterministic local embedding (hashed bag of
words), its retriever is wrapped in LlamaIndex's own ``RetrieverEvaluator`` with the drop-in metrics of
``rag_eval_adapters.llamaindex``, and :func:`evaluate_dataset` scores every question concurrently. The script
prints one row a query and the mean of each metric.
"""

from __future__ import annotations

import hashlib
import math
import re

from llama_index.core import VectorStoreIndex
from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.evaluation import RetrieverEvaluator
from llama_index.core.schema import TextNode

from rag_eval_adapters.llamaindex import MRR, NDCG, HitRate, evaluate_dataset, metrics_from_names


class HashingEmbedding(BaseEmbedding):
    """Hashed bag of words, L2-normalised: a deterministic stand-in for a real embedding model."""

    dim: int = 512

    def _vector(self, text: str) -> list[float]:
        vector = [0.0] * self.dim
        for token in re.findall(r"[a-z0-9]+", text.lower()):
            vector[int(hashlib.md5(token.encode()).hexdigest(), 16) % self.dim] += 1.0
        norm = math.sqrt(sum(x * x for x in vector)) or 1.0
        return [x / norm for x in vector]

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._vector(query)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._vector(query)

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._vector(text)


CORPUS = {
    "paris": "Paris is the capital of France and its largest city.",
    "eiffel": "The Eiffel Tower was built in Paris for the 1889 World's Fair.",
    "seine": "The Seine river flows through Paris to the English Channel.",
    "berlin": "Berlin is the capital of Germany.",
    "wall": "The Berlin Wall divided the city from 1961 to 1989.",
    "rome": "Rome is the capital of Italy.",
    "colosseum": "The Colosseum is an ancient amphitheatre in the centre of Rome.",
    "madrid": "Madrid is the capital of Spain.",
    "prado": "The Prado museum in Madrid holds Spanish paintings by Velazquez and Goya.",
    "danube": "The Danube flows through Vienna and Budapest to the Black Sea.",
    "vienna": "Vienna is the capital of Austria, known for its music.",
    "alps": "The Alps stretch across France, Switzerland, Italy and Austria.",
}

DATASET = [
    {"query": "What is the capital of Germany?", "expected_ids": ["berlin"]},
    {"query": "When was the Eiffel Tower built?", "expected_ids": ["eiffel"]},
    {"query": "Which river flows through Paris?", "expected_ids": ["seine"]},
    {"query": "Where can I see paintings by Goya?", "expected_ids": ["prado"]},
    {"query": "Which city did a wall divide until 1989?", "expected_ids": ["wall", "berlin"]},
    {"query": "Which rivers flow through Vienna?", "expected_ids": ["danube", "vienna"]},
    {"query": "Which mountains cross Switzerland?", "expected_ids": ["alps"]},
    # no ids, only the expected passage: scored by text matching
    {"query": "Where is the ancient amphitheatre?", "expected_ids": [],
     "expected_texts": ["the Colosseum is an ancient amphitheatre"]},
]


def main() -> None:
    nodes = [TextNode(id_=node_id, text=text) for node_id, text in CORPUS.items()]
    index = VectorStoreIndex(nodes, embed_model=HashingEmbedding())
    retriever = index.as_retriever(similarity_top_k=5)

    metrics = [HitRate(), MRR(), HitRate(top_k=1), NDCG(top_k=5)] + metrics_from_names(["precision@3", "recall@3"])
    evaluator = RetrieverEvaluator(metrics=metrics, retriever=retriever)
    run = evaluate_dataset(evaluator, DATASET, workers=4)

    keys = list(run.mean)
    width = max(len(row["query"]) for row in run.rows())
    print(f"{'query':<{width}}  " + "  ".join(f"{key:>10}" for key in keys) + "  retrieved")
    for row in run.rows():
        values = "  ".join(f"{row[key]:>10.3f}" for key in keys)
        print(f"{row['query']:<{width}}  {values}  {', '.join(row['retrieved_ids'][:3])}")
    print(f"{'mean':<{width}}  " + "  ".join(f"{run.mean[key]:>10.3f}" for key in keys))
    for error in run.errors:
        print(f"failed: {error}")
    print(run)


if __name__ == "__main__":
    main()
