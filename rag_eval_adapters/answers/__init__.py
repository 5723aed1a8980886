"""Answer metrics: exact match, token F1, ROUGE-L and semantic similarity, right in every language.

``from rag_eval_adapters.answers import exact_match, token_f1, rouge_l``: examples in several languages are in
:mod:`rag_eval_adapters.answers.lexical`, where the functions are defined. On English text exact match and F1 equal the SQuAD v1.1 evaluation script and ROUGE-L equals ``rouge-score``;
Unicode punctuation, case folding and CJK characters make them right for other languages too (see
``docs/answers.md``). The framework-free core; the LlamaIndex and LangChain adapters live in those packages.
"""

from __future__ import annotations

from .abstention import content_tokens, is_abstention
from .bound import BoundAnswerMetric
from .cache import CachedEmbedder
from .embedders import CallableEmbedder, E5Embedder, Embedder
from .evaluation import evaluate_answers
from .grounding import LexicalGrounding, SemanticGrounding, lexical_grounding, semantic_grounding
from .judged import AnswerCorrectness, ContextRelevance, Faithfulness, JudgedMetric
from .lexical import Overlap, exact_match, lcs_length, rouge_l, token_f1
from .metrics import (
    ANSWER_METRICS,
    AnswerMetric,
    ExactMatch,
    RougeL,
    SemanticSimilarity,
    TokenF1,
    answer_metric_names,
    parse_answer_metric,
    parse_answer_metrics,
)
from .normalize import CJK_RANGES, ROUGE, SQUAD, Normalization
from .openai_embedder import OpenAIEmbedder
from .record import FIELD_NAMES, AnswerRecord, read_records
from .semantic import semantic_similarity

__all__ = [
    "evaluate_answers",
    "exact_match",
    "token_f1",
    "rouge_l",
    "semantic_similarity",
    "Overlap",
    "lcs_length",
    "Normalization",
    "SQUAD",
    "ROUGE",
    "CJK_RANGES",
    "Embedder",
    "CallableEmbedder",
    "E5Embedder",
    "OpenAIEmbedder",
    "CachedEmbedder",
    "AnswerMetric",
    "ANSWER_METRICS",
    "ExactMatch",
    "TokenF1",
    "RougeL",
    "SemanticSimilarity",
    "LexicalGrounding",
    "SemanticGrounding",
    "lexical_grounding",
    "semantic_grounding",
    "parse_answer_metric",
    "parse_answer_metrics",
    "answer_metric_names",
    "BoundAnswerMetric",
    "JudgedMetric",
    "Faithfulness",
    "AnswerCorrectness",
    "ContextRelevance",
    "AnswerRecord",
    "FIELD_NAMES",
    "read_records",
    "is_abstention",
    "content_tokens",
]
