"""Small offline inputs for the benchmark tests: a hashing embedder, documents and a typed test set."""

from __future__ import annotations

import hashlib
import re

import numpy as np


class HashEmbedder:
    """Hashed bag of words, L2-normalised: deterministic, no model. Counts the texts it embeds."""

    name = "hash-bow-64"

    def __init__(self, dim: int = 64) -> None:
        self.dim = dim
        self.embedded = 0

    def _vectors(self, texts):
        self.embedded += len(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for token in re.findall(r"[a-z0-9]+", text.lower()):
                out[i, int(hashlib.md5(token.encode()).hexdigest(), 16) % self.dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1.0, norms)

    def embed_queries(self, texts):
        return self._vectors(list(texts))

    def embed_passages(self, texts):
        return self._vectors(list(texts))


TOPICS = {
    "volcano": "Volcanoes erupt when magma rises through the crust. The eruption of Vesuvius buried Pompeii "
               "under ash in 79 AD. Lava flows cool into basalt rock. Geologists monitor gas emissions to "
               "forecast eruptions.",
    "bread": "Yeast makes dough rise by releasing carbon dioxide. Kneading develops gluten, which traps the "
             "gas. Bread is baked when the loaf sounds hollow. A sourdough starter is a culture of wild yeast.",
    "owls": "Owls hunt at night with acute hearing. Fringed feathers let owls fly almost silently. Many owls "
            "swallow prey whole and cough up pellets. The barn owl has a heart-shaped face.",
    "rivers": "The Amazon carries more water than any other river. Meandering rivers wind in loops. When a loop "
              "is cut off it leaves an oxbow lake. Deltas form where rivers deposit sediment at the sea.",
}

QUESTIONS = [
    ("q1", "literal", "what buried Pompeii under ash", "The eruption of Vesuvius.", "volcano",
     "The eruption of Vesuvius buried Pompeii under ash in 79 AD."),
    ("q2", "paraphrase", "which volcano destroyed the roman town", "Vesuvius.", "volcano",
     "The eruption of Vesuvius buried Pompeii under ash in 79 AD."),
    ("q3", "literal", "what makes dough rise", "Yeast releasing carbon dioxide.", "bread",
     "Yeast makes dough rise by releasing carbon dioxide."),
    ("q4", "scenario", "my loaf looks done but I am not sure it is baked through", "When it sounds hollow.",
     "bread", "Bread is baked when the loaf sounds hollow."),
    ("q5", "paraphrase", "how can an owl approach prey without noise", "Fringed feathers.", "owls",
     "Fringed feathers let owls fly almost silently."),
    ("q6", "scenario", "we found small fur balls under the tree where the owl sits", "Pellets coughed up by owls.",
     "owls", "Many owls swallow prey whole and cough up pellets."),
    ("q7", "literal", "which river carries the most water", "The Amazon.", "rivers",
     "The Amazon carries more water than any other river."),
    ("q8", "paraphrase", "how does a crescent lake appear beside a river", "A river loop is cut off.", "rivers",
     "When a loop is cut off it leaves an oxbow lake."),
]


def documents():
    return [{"doc_id": f"{name}.txt", "text": text} for name, text in TOPICS.items()]


def case_records():
    records = []
    for qid, qtype, query, answer, topic, evidence in QUESTIONS:
        start = TOPICS[topic].index(evidence)
        records.append({"query_id": qid, "query": query, "query_type": qtype, "answer": answer,
                        "evidence": evidence,
                        "evidence_spans": [{"doc_id": f"{topic}.txt", "start": start, "end": start + len(evidence)}]})
    return records


def write_bench_files(folder):
    """Write :func:`documents` (one file each, into ``folder/d``) and :func:`case_records` (``folder/t.jsonl``)
    for ``rag-eval bench``; returns (documents folder, test-set file)."""
    import json

    testset = folder / "t.jsonl"
    testset.write_text("".join(json.dumps(r) + "\n" for r in case_records()), encoding="utf-8")
    (folder / "d").mkdir()
    for d in documents():
        (folder / "d" / d["doc_id"]).write_text(d["text"], encoding="utf-8")
    return folder / "d", testset
