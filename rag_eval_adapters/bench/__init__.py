"""``rag_eval_adapters.bench``: the whole RAG benchmark in one run, by query type, across chunkings,
retrievers and rerankers (the engine of ``rag-eval bench`` and ``rag-eval demo``).

>>> from rag_eval_adapters.bench import run_bench, BenchSettings      # doctest: +SKIP
>>> result = run_bench("docs/", "testset.jsonl", chunkings=["256:32", "512:64"],
...                    retrievers=["bm25", "e5", "hybrid"], rerankers=["lexical"], output_dir="bench_report")
>>> result.verdict                                                     # doctest: +SKIP

Relevance survives re-chunking (:mod:`.relevance`); every configuration's numbers are the core
:func:`rag_eval_adapters.evaluate` of the TREC run and qrels files it writes. See ``docs/bench.md``.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {  # public name -> its module; loaded on first use, so the name tables are cheap to read
    **dict.fromkeys(("ANSWER_PROMPT", "ExtractiveAnswerer", "LLMAnswerer", "split_sentences"), ".answering"),
    **dict.fromkeys(("Chunk", "Chunking", "FunctionChunking", "parse_chunking", "sentence_chunking"), ".chunking"),
    **dict.fromkeys(("Component", "RETRIEVERS", "RERANKERS", "DEFAULT_RETRIEVERS", "DEFAULT_RERANKERS"),
                    ".components"),
    **dict.fromkeys(("CachedEmbedder", "E5Scorer", "default_embedder"), ".embedding"),
    "reciprocal_rank_fusion": ".fusion",
    **dict.fromkeys(("Case", "Document", "Span", "cases_from_records", "load_cases", "load_documents",
                     "read_document_folder"), ".inputs"),
    **dict.fromkeys(("EVAL_MODES", "BenchResult", "BenchSettings", "run_bench"), ".pipeline"),
    **dict.fromkeys(("build_qrels", "judge_case", "span_grades"), ".relevance"),
    **dict.fromkeys(("BM25Retriever", "DenseRetriever", "HybridRetriever", "Retriever"), ".retrievers"),
    **dict.fromkeys(("METRIC_DEFINITIONS", "ConfigResult"), ".scoring"),
}

__all__ = [
    "run_bench", "BenchSettings", "BenchResult", "ConfigResult", "EVAL_MODES", "METRIC_DEFINITIONS",
    "Document", "Case", "Span", "load_documents", "load_cases", "cases_from_records", "read_document_folder",
    "Chunk", "Chunking", "FunctionChunking", "sentence_chunking", "parse_chunking",
    "span_grades", "judge_case", "build_qrels",
    "Retriever", "BM25Retriever", "DenseRetriever", "HybridRetriever", "reciprocal_rank_fusion",
    "RETRIEVERS", "RERANKERS", "DEFAULT_RETRIEVERS", "DEFAULT_RERANKERS", "Component",
    "CachedEmbedder", "E5Scorer", "default_embedder",
    "ExtractiveAnswerer", "LLMAnswerer", "ANSWER_PROMPT", "split_sentences",
]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_EXPORTS[name], __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
