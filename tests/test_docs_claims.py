"""What the documentation states about BM25 and about parity with SQuAD and rouge-score holds, and the
documentation states it (issue 21, item 27)."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from squad_v11_oracle import f1_score

from rag_eval_adapters.answers import rouge_l, token_f1

ROOT = Path(__file__).resolve().parents[1]


def test_bench_docs_give_bm25s_parameters_and_formula_and_the_scores_follow_them():
    pytest.importorskip("bm25s")
    from rag_eval_adapters.bench import BM25Retriever
    from rag_eval_adapters.bench.chunking import Chunk

    docs = (ROOT / "docs" / "bench.md").read_text(encoding="utf-8")
    k1, b = (float(v) for v in re.search(r"`BM25Retriever\(k1=([\d.]+), b=([\d.]+)\)`", docs).groups())
    assert (k1, b) == (BM25Retriever().k1, BM25Retriever().b)
    assert "`idf * tf / (tf + k1 * (1 - b + b * len / avg_len))`" in docs
    assert "`idf = ln(1 + (N - df + 0.5) / (df + 0.5))`" in docs and "omit the constant factor `(k1 + 1)`" in docs

    texts = ["apple banana apple", "banana cherry", "cherry cherry date grape kiwi", "melon"]
    chunks = [Chunk(f"c{i}", "d", text, 0, len(text)) for i, text in enumerate(texts)]
    tokens = [text.split() for text in texts]
    avg_len = sum(map(len, tokens)) / len(tokens)

    def documented(query: str, chunk: list[str]) -> float:
        score = 0.0
        for term in query.split():
            df = sum(term in t for t in tokens)
            tf = chunk.count(term)
            if tf:
                idf = math.log(1 + (len(tokens) - df + 0.5) / (df + 0.5))
                score += idf * tf / (tf + k1 * (1 - b + b * len(chunk) / avg_len))
        return score

    for query in ("apple cherry", "banana", "cherry grape"):
        (hits,) = BM25Retriever().index(chunks).search([query], 10)
        expected = {f"c{i}": documented(query, t) for i, t in enumerate(tokens) if documented(query, t) > 0}
        assert dict(hits) == pytest.approx(expected, rel=1e-6), query


def test_readme_says_the_parity_holds_on_ascii_english_and_where_it_ends():
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert "`rouge-score` on ASCII English" in readme and "on ASCII English text the values are exactly" in readme
    assert not re.search(r"rouge-score.? on English", readme)
    # the README's two examples of where the references part ways outside ASCII
    assert token_f1("he said “yes”", "he said yes").f1 == 1.0 and round(f1_score("he said “yes”", "he said yes"), 2) == 0.67
    rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")
    assert rouge_l("café", "caf").f1 == 0.0
    assert rouge_scorer.RougeScorer(["rougeL"]).score("caf", "café")["rougeL"].fmeasure == 1.0
