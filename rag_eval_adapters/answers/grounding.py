r"""Grounding without an LLM: how much of an answer its contexts support, lexically or by embeddings.

Two metrics of the registry's ``"answer"`` family score an answer against the *contexts* it was written from
(the retrieved passages), not against a reference answer:

* ``grounding_lexical``: the share of the answer's distinct word tokens that occur in its contexts, after the
  package's normalisation (:data:`~rag_eval_adapters.answers.ROUGE`: NFKC, case folding, punctuation to spaces,
  one token per CJK character), so it works in any language;
* ``grounding_semantic``: each answer sentence's best cosine to a sentence of the contexts (E5 by default,
  any :class:`~rag_eval_adapters.answers.Embedder`), averaged over the answer's sentences.

On MTRAG's 477 human-rated answers (``rag-eval meta-eval --builtin mtrag``, see ``docs/agreement.md``) they
follow the mean human faithfulness rating better than RAGAS's faithfulness LLM judge.

A record's contexts are read from its ``contexts`` field (or ``retrieved_contexts``, RAGAS's name): a list of
strings, a mapping ``{chunk_id: text}``, a list of ``(chunk_id, text)`` pairs or a list of mappings with
``text`` (or ``page_content`` / ``content``). An answer with no contexts scores 0 (nothing supports it); an
answer with no word token cannot be scored and is reported as that query's error, never a number.

>>> lexical_grounding("Paris is the capital.", ["The capital of France is Paris."])
1.0
>>> lexical_grounding("Paris, 1889", ["Paris is a city."])
0.5
>>> lexical_grounding("Москва — столица России", ["Столица России — Москва."])
1.0
>>> lexical_grounding("北京是首都", ["中国的首都是北京。"])
1.0
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Sequence
from typing import Any, ClassVar, Literal

import numpy as np
from pydantic import InstanceOf

from .embedders import Embedder
from .lexical import check_prediction
from .metrics import AnswerMetric
from .normalize import ROUGE, Normalization
from .record import AnswerRecord, as_chunks
from .semantic import embed

__all__ = ["LexicalGrounding", "SemanticGrounding", "lexical_grounding", "semantic_grounding",
           "semantic_grounding_batch", "context_texts", "split_sentences", "is_grounding",
           "grounding_column"]

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])|\n+")


def context_texts(contexts: Any, where: str = "contexts") -> list[str]:
    """The texts of ``contexts`` in any form the one answer-record reader takes (a string, a list of strings,
    ``{chunk_id: text}``, ``(chunk_id, text)`` pairs, mappings with ``text``); an error naming ``where`` otherwise."""
    return [text for _, text in as_chunks(contexts, where)]


def lexical_grounding(answer: str, contexts: Any, *, normalization: Normalization = ROUGE) -> float:
    r"""The share of the answer's distinct tokens that occur in its contexts, in [0, 1].

    .. math:: G_\mathrm{lex} = \frac{|T(a) \cap \bigcup_c T(c)|}{|T(a)|}

    :math:`T` is the set of tokens after ``normalization`` (default :data:`~rag_eval_adapters.answers.ROUGE`).

    Raises
    ------
    ValueError
        The answer has no token (grounding is undefined for it).
    """
    tokens = set(normalization.tokens(check_prediction(answer, "answer")))
    if not tokens:
        raise ValueError(f"the answer has no word token ({answer!r:.40}); its grounding is undefined")
    texts = context_texts(contexts)
    found = set().union(*(normalization.tokens(t) for t in texts)) if texts else set()
    return len(tokens & found) / len(tokens)


def split_sentences(text: str) -> list[str]:
    """``text`` cut into sentences: after ``. ! ?`` followed by white space, after ``。！？`` and at line breaks;
    blank pieces dropped."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]


def semantic_grounding_batch(answers: Sequence[str], contexts: Sequence[Any], embedder: Embedder, *,
                             side: Literal["query", "passage"] = "passage") -> np.ndarray:
    """:func:`semantic_grounding` of many answers, each distinct sentence embedded once in one call per side.

    Raises
    ------
    ValueError
        An answer without a sentence; a bad embedding (see :func:`~rag_eval_adapters.answers.semantic.embed`).
    """
    if len(answers) != len(contexts):
        raise ValueError(f"{len(answers)} answers but {len(contexts)} context lists")
    answer_sents = [split_sentences(check_prediction(a, "answer")) for a in answers]
    for a, sents in zip(answers, answer_sents, strict=True):
        if not sents:
            raise ValueError(f"the answer has no sentence ({a!r:.40}); its grounding is undefined")
    context_sents = [[s for t in context_texts(c) for s in split_sentences(t)] for c in contexts]
    index_a = {s: i for i, s in enumerate(dict.fromkeys(s for ss in answer_sents for s in ss))}
    index_c = {s: i for i, s in enumerate(dict.fromkeys(s for ss in context_sents for s in ss))}
    vec_a = embed(embedder, list(index_a), side)
    vec_c = embed(embedder, list(index_c), "passage") if index_c else np.zeros((0, vec_a.shape[1]))
    out = np.zeros(len(answers), dtype=np.float64)
    for i, (sents, ctx) in enumerate(zip(answer_sents, context_sents, strict=True)):
        if ctx:
            cos = vec_a[[index_a[s] for s in sents]] @ vec_c[[index_c[s] for s in ctx]].T
            out[i] = float(np.clip(cos.max(axis=1), 0.0, 1.0).mean())
    return out


def semantic_grounding(answer: str, contexts: Any, embedder: Embedder, *,
                       side: Literal["query", "passage"] = "passage") -> float:
    r"""The mean over the answer's sentences of each one's best cosine to a context sentence, in [0, 1].

    .. math:: G_\mathrm{sem} = \frac{1}{|S(a)|} \sum_{s \in S(a)} \max_{t \in S(C)} \max(0, \cos(e(s), e(t)))

    :math:`S` splits into sentences (:func:`split_sentences`); context sentences are embedded as passages,
    answer sentences as ``side`` (default passages too). 0 when there is no context.
    """
    return float(semantic_grounding_batch([answer], [contexts], embedder, side=side)[0])


class LexicalGrounding(AnswerMetric):
    r"""Lexical grounding: the share of the answer's distinct word tokens found in its contexts.

    .. math:: G_\mathrm{lex} = \frac{|T(a) \cap \bigcup_c T(c)|}{|T(a)|}

    :math:`T` is the token set after the ``ROUGE`` normalisation (NFKC, case folding, punctuation to spaces,
    one token per CJK character: any language). Reads the record's ``contexts`` (or ``retrieved_contexts``),
    needs no reference; 0 without contexts; an answer with no token is that query's error. On MTRAG's 477
    human-rated answers: Spearman 0.636 with the mean faithfulness rating (RAGAS's LLM judge 0.582).

    References
    ----------
    Y. Katsis et al., "MTRAG: A Multi-Turn Conversational Benchmark for Evaluating Retrieval-Augmented Generation
    Systems", arXiv:2501.03468, 2025 (the human ratings it is measured against).
    """

    name: ClassVar[str] = "grounding_lexical"
    aliases: ClassVar[tuple[str, ...]] = ("lexical_grounding",)
    reads: ClassVar[tuple[str, ...]] = ("prediction", "contexts")
    """Scored against the record's contexts, not its reference."""
    normalization: InstanceOf[Normalization] = ROUGE

    def score(self, prediction: str, references: Any = None, embedder: Embedder | None = None, *,
              contexts: Any = None) -> float:
        if contexts is None:
            raise ValueError(f"{self.key} scores an answer against its contexts: give contexts=[...]")
        return lexical_grounding(prediction, contexts, normalization=self.normalization)


class SemanticGrounding(AnswerMetric):
    r"""Semantic grounding: each answer sentence's best embedding cosine to a context sentence, averaged.

    .. math:: G_\mathrm{sem} = \frac{1}{|S(a)|} \sum_{s \in S(a)} \max_{t \in S(C)} \max(0, \cos(e(s), e(t)))

    Sentences end at ``. ! ?`` before white space, at ``。！？`` and at line breaks; both sides embedded as
    passages (``side="query"`` embeds the answer's as queries). Needs an embedder (offline E5:
    ``E5Embedder``) and the record's ``contexts``; 0 without contexts. Read it relative to the embedder's
    floor (about 0.75 for unrelated texts with E5). On MTRAG's 477 answers with E5: Spearman 0.595 with the
    mean human faithfulness rating (0.585 over the 450 with passages).

    References
    ----------
    L. Wang et al., "Multilingual E5 Text Embeddings: A Technical Report", arXiv:2402.05672, 2024.
    """

    name: ClassVar[str] = "grounding_semantic"
    aliases: ClassVar[tuple[str, ...]] = ("semantic_grounding",)
    needs_embedder: ClassVar[bool] = True
    reads: ClassVar[tuple[str, ...]] = ("prediction", "contexts")
    side: Literal["query", "passage"] = "passage"

    def score(self, prediction: str, references: Any = None, embedder: Embedder | None = None, *,
              contexts: Any = None) -> float:
        if embedder is None:
            raise ValueError(f"{self.key} needs an embedder, e.g. embedder=E5Embedder()")
        if contexts is None:
            raise ValueError(f"{self.key} scores an answer against its contexts: give contexts=[...]")
        return semantic_grounding(prediction, contexts, embedder, side=self.side)


def is_grounding(metric: AnswerMetric) -> bool:
    """True for a metric scored against the record's contexts without a judge (the grounding metrics)."""
    return "contexts" in metric.reads and not metric.needs_judge


def grounding_column(records: Sequence[AnswerRecord], metric: AnswerMetric, embedder: Embedder | None,
                     errors: dict[Hashable, str]) -> dict[Hashable, float]:
    """A grounding metric of every record (its ``prediction`` against its ``contexts``, as the one reader of
    :mod:`~rag_eval_adapters.answers.record` read them); a record that cannot be scored goes into ``errors``."""
    if not isinstance(metric, (LexicalGrounding, SemanticGrounding)):
        raise TypeError(f"{metric.key} is no grounding metric (grounding_lexical, grounding_semantic)")
    contexts = {r.query_id: [text for _, text in r.contexts] for r in records}
    if isinstance(metric, SemanticGrounding) and embedder is not None:
        try:
            values = semantic_grounding_batch([r.prediction or "" for r in records],
                                              [contexts[r.query_id] for r in records], embedder, side=metric.side)
            return {r.query_id: float(v) for r, v in zip(records, values, strict=True)}
        except Exception:  # noqa: BLE001 - isolate the failing records below, keep the others
            pass
    out: dict[Hashable, float] = {}
    for r in records:
        try:
            out[r.query_id] = metric.score(r.prediction or "", None, embedder, contexts=contexts[r.query_id])
        except Exception as exc:  # noqa: BLE001 - recorded per query
            errors[r.query_id] = f"query {r.query_id!r}: {metric.key}: {type(exc).__name__}: {exc}"
    return out
