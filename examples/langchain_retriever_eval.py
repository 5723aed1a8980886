"""Evaluate a real LangChain retriever with LangSmith's ``evaluate()``, fully offline.

The retriever is langchain-core's ``InMemoryVectorStore`` over a small corpus, with a deterministic
bag-of-words embedding (no model, no network). LangSmith runs the target over a list of examples with
``upload_results=False``, so nothing is sent anywhere; the scores come from ``rag_eval_adapters``' evaluators
and are checked against the metric core.

Run:  python examples/langchain_retriever_eval.py
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import uuid
import warnings

from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.vectorstores import InMemoryVectorStore
from langsmith import Client
from langsmith.schemas import Example

from rag_eval_adapters import evaluate as core_evaluate
from rag_eval_adapters.langchain import HitRateEvaluator, MRREvaluator, RetrievalMetricsEvaluator

# Keep everything local even where LangSmith tracing is switched on in the environment.
os.environ["LANGSMITH_TRACING"] = "false"
os.environ["LANGCHAIN_TRACING_V2"] = "false"
warnings.filterwarnings("ignore", message=".*upload_results.*")


class BagOfWordsEmbeddings(Embeddings):
    """Deterministic embedding: word counts hashed (md5) into ``size`` buckets, L2-normalised."""

    def __init__(self, size: int = 256) -> None:
        self.size = size

    def _embed(self, text: str) -> list[float]:
        vector = [0.0] * self.size
        for word in re.findall(r"[a-z0-9]+", text.lower()):
            bucket = int(hashlib.md5(word.encode()).hexdigest(), 16) % self.size
            vector[bucket] += 1.0
        norm = math.sqrt(sum(v * v for v in vector)) or 1.0
        return [v / norm for v in vector]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._embed(text) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._embed(text)


CORPUS = {
    "paris": "Paris is the capital of France and sits on the Seine.",
    "berlin": "Berlin is the capital of Germany.",
    "eiffel": "The Eiffel Tower in Paris was finished in 1889.",
    "seine": "The Seine river flows through Paris to the English Channel.",
    "rhine": "The Rhine river flows from the Alps through Germany to the North Sea.",
    "alps": "The Alps are the highest mountains in Europe.",
    "python": "Python is a programming language created by Guido van Rossum.",
    "rust": "Rust is a programming language focused on memory safety.",
}

# expected_ids: the relevant documents, or a mapping id -> grade for graded relevance.
DATASET = [
    ("What is the capital of France?", ["paris"]),
    ("Which river flows through Paris?", {"seine": 2, "paris": 1}),
    ("When was the Eiffel Tower finished?", ["eiffel"]),
    ("Which rivers flow through Germany?", ["rhine"]),
    ("Who created the Python programming language?", ["python"]),
]


def main() -> None:
    store = InMemoryVectorStore(BagOfWordsEmbeddings())
    store.add_documents([Document(id=doc_id, page_content=text) for doc_id, text in CORPUS.items()])
    retriever = store.as_retriever(search_kwargs={"k": 3})

    dataset_id = uuid.uuid4()
    examples = [
        Example(id=uuid.uuid4(), dataset_id=dataset_id, inputs={"question": q}, outputs={"expected_ids": ids})
        for q, ids in DATASET
    ]

    def target(inputs: dict) -> dict:
        return {"documents": retriever.invoke(inputs["question"])}

    evaluators = [
        HitRateEvaluator(k=1),
        MRREvaluator(),
        RetrievalMetricsEvaluator(["hit_rate@3", "recall@3", "ap", "ndcg@3"]),
    ]
    # An API key is required by the client's constructor only; upload_results=False keeps it unused.
    client = Client(api_key="offline", auto_batch_tracing=False, tracing_sampling_rate=0.0)
    results = client.evaluate(target, data=examples, evaluators=evaluators, upload_results=False)

    keys = [key for evaluator in evaluators for key in evaluator.feedback_keys]
    qrels, run, langsmith_scores = {}, {}, {}
    print(f"{'question':<48}{'retrieved':<24}" + "".join(f"{key:>12}" for key in keys))
    for row in results:
        qid = str(row["example"].id)
        question = row["example"].inputs["question"]
        expected = row["example"].outputs["expected_ids"]
        ids = [doc.id for doc in row["run"].outputs["documents"]]
        scores = {res.key: res.score for res in row["evaluation_results"]["results"]}
        qrels[qid] = dict(expected) if isinstance(expected, dict) else {doc: 1 for doc in expected}
        run[qid] = ids
        langsmith_scores[qid] = scores
        print(f"{question:<48}{','.join(ids):<24}" + "".join(f"{scores[key]:>12.4f}" for key in keys))

    report = core_evaluate(qrels, run, keys)
    print(f"{'mean':<72}" + "".join(f"{report.mean[key]:>12.4f}" for key in keys))
    for qid, scores in langsmith_scores.items():
        for key, score in scores.items():
            assert math.isclose(score, report.per_query[qid][key], abs_tol=1e-12), (qid, key)
    print("LangSmith feedback equals rag_eval_adapters.evaluate() for every query and metric.")


if __name__ == "__main__":
    main()
