"""Scoring the benchmark's answers against the reference answers: token F1 and semantic similarity.

Token F1 is SQuAD's (the harmonic mean of token precision and recall after normalisation); semantic
similarity is the cosine of the E5 embeddings of the answer and the reference (E5's floor is high:
unrelated texts score about 0.75).
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections import Counter
from typing import Any, Sequence

__all__ = ["ANSWER_METRICS", "score_answers"]

ANSWER_METRICS = ("token_f1", "semantic_similarity")


def _tokens(text: str) -> list[str]:
    # TODO(bench): use rag_eval_adapters.answers.token_f1 (Unicode-aware, CJK by character) once it lands.
    text = unicodedata.normalize("NFKC", text).casefold()
    text = "".join(" " if unicodedata.category(ch).startswith("P") or ch in string.punctuation else ch
                   for ch in text)
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return text.split()


def _token_f1(prediction: str, reference: str) -> float:
    pred, ref = _tokens(prediction), _tokens(reference)
    if not pred or not ref:
        return float(pred == ref)
    common = sum((Counter(pred) & Counter(ref)).values())
    if not common:
        return 0.0
    precision, recall = common / len(pred), common / len(ref)
    return 2 * precision * recall / (precision + recall)


def score_answers(predictions: Sequence[str], references: Sequence[str], embedder: Any) -> list[dict[str, float]]:
    """Per answer ``{"token_f1", "semantic_similarity"}``, each in [0, 1] (an empty answer scores 0)."""
    try:
        from ..answers import semantic_similarity, token_f1  # type: ignore[attr-defined]
    except ImportError:
        token_f1 = semantic_similarity = None
    rows: list[dict[str, float]] = []
    if not predictions:
        return rows
    if token_f1 is None:
        pv = embedder.embed_passages([p or " " for p in predictions]) if predictions else []
        rv = embedder.embed_passages(list(references)) if references else []
    for i, (p, r) in enumerate(zip(predictions, references)):
        if token_f1 is not None:
            f1 = float(getattr(token_f1(p, r), "f1", token_f1(p, r)))
            sim = float(semantic_similarity(p, r, embedder)) if p.strip() else 0.0
        else:
            f1 = _token_f1(p, r)
            sim = float(min(1.0, max(0.0, float(pv[i] @ rv[i])))) if p.strip() else 0.0
        rows.append({"token_f1": f1, "semantic_similarity": sim})
    return rows
