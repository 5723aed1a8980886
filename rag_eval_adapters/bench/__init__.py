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

from .answering import ANSWER_PROMPT, ExtractiveAnswerer, LLMAnswerer, split_sentences
from .chunking import Chunk, Chunking, FunctionChunking, parse_chunking, sentence_chunking
from .embedding import CachedEmbedder, E5Scorer, default_embedder
from .fusion import reciprocal_rank_fusion
from .inputs import Case, Document, Span, cases_from_records, load_cases, load_documents
from .pipeline import EVAL_MODES, BenchResult, BenchSettings, run_bench
from .relevance import build_qrels, judge_case, span_grades
from .retrievers import BM25Retriever, DenseRetriever, HybridRetriever, Retriever
from .scoring import METRIC_DEFINITIONS, ConfigResult

__all__ = [
    "run_bench", "BenchSettings", "BenchResult", "ConfigResult", "EVAL_MODES", "METRIC_DEFINITIONS",
    "Document", "Case", "Span", "load_documents", "load_cases", "cases_from_records",
    "Chunk", "Chunking", "FunctionChunking", "sentence_chunking", "parse_chunking",
    "span_grades", "judge_case", "build_qrels",
    "Retriever", "BM25Retriever", "DenseRetriever", "HybridRetriever", "reciprocal_rank_fusion",
    "CachedEmbedder", "E5Scorer", "default_embedder",
    "ExtractiveAnswerer", "LLMAnswerer", "ANSWER_PROMPT", "split_sentences",
]
