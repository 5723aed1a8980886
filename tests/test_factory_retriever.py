"""The benchmark retrievers built by a factory (LlamaIndex, LangChain): one rule, one set of checks."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever as LangChainBase
from llama_index.core.retrievers import BaseRetriever as LlamaBase
from llama_index.core.schema import NodeWithScore, QueryBundle

from rag_eval_adapters.factory_retriever import ranked_hits
from rag_eval_adapters.langchain.chunk_retrievers import LangChainRetriever
from rag_eval_adapters.llamaindex.chunk_retrievers import LlamaIndexRetriever

CHUNKS = [SimpleNamespace(chunk_id=f"c{i}", text=f"text {i}", doc_id=f"d{i}") for i in range(4)]


class FixedLangChain(LangChainBase):
    """Returns the documents in reverse order, each with the score in ``scores`` (None: no score)."""

    docs: list
    scores: list

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        out = []
        for doc, score in zip(reversed(self.docs), self.scores, strict=False):
            metadata = dict(doc.metadata) if score is None else {**doc.metadata, "score": score}
            out.append(Document(id=doc.id, page_content=doc.page_content, metadata=metadata))
        return out


class FixedLlama(LlamaBase):
    """Returns the nodes in reverse order, each with the score in ``scores``."""

    def __init__(self, nodes: list, scores: list) -> None:
        super().__init__()
        self.nodes, self.scores = nodes, scores

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return [NodeWithScore(node=n, score=s) for n, s in zip(reversed(self.nodes), self.scores, strict=False)]


def _langchain(scores):
    return LangChainRetriever(lambda docs: FixedLangChain(docs=docs, scores=scores), "lc")


def _llama(scores):
    return LlamaIndexRetriever(lambda nodes: FixedLlama(nodes, scores), "li")


@pytest.mark.parametrize("make", [_langchain, _llama])
def test_scores_kept_when_every_result_has_one(make):
    search = make([0.9, 0.5, 0.25, 0.1]).index(CHUNKS)
    assert search.search(["q", "r"], 3) == [[("c3", 0.9), ("c2", 0.5), ("c1", 0.25)]] * 2


@pytest.mark.parametrize("make", [_langchain, _llama])
def test_one_rank_reciprocal_when_a_score_is_missing(make):
    search = make([0.9, None, 0.25, 0.1]).index(CHUNKS)
    assert search.search(["q"], 10) == [[("c3", 1.0), ("c2", 0.5), ("c1", 1 / 3), ("c0", 0.25)]]


def test_ranked_hits_rule():
    assert ranked_hits([(1, 2), ("b", 0.5)], 1) == [("1", 2.0)]
    assert ranked_hits([("a", float("nan")), ("b", 0.5)], 5) == [("a", 1.0), ("b", 0.5)]
    assert ranked_hits([], 3) == []


@pytest.mark.parametrize("cls, items, framework", [(LangChainRetriever, "documents", "LangChain"),
                                                    (LlamaIndexRetriever, "nodes", "LlamaIndex")])
def test_checks_name_the_framework(cls, items, framework):
    with pytest.raises(TypeError, match=f"factory must be a function {items} -> {framework} retriever, got str"):
        cls("not a function", "x")
    retriever = cls(lambda items: object(), "mine")
    assert repr(retriever) == f"{cls.__name__}('mine')"
    with pytest.raises(TypeError, match=f"mine: the factory returned object, not a {framework} retriever"):
        retriever.index(CHUNKS)


def test_items_given_to_the_factory():
    seen = {}
    LangChainRetriever(lambda docs: seen.setdefault("lc", docs) and FixedLangChain(docs=docs, scores=[]), "lc").index(
        CHUNKS[:1])
    LlamaIndexRetriever(lambda nodes: seen.setdefault("li", nodes) and FixedLlama(nodes, []), "li").index(CHUNKS[:1])
    doc, node = seen["lc"][0], seen["li"][0]
    assert (doc.id, doc.page_content, doc.metadata) == ("c0", "text 0", {"chunk_id": "c0", "doc_id": "d0"})
    assert (node.id_, node.text, node.metadata) == ("c0", "text 0", {"doc_id": "d0"})
