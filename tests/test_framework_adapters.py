"""The LlamaIndex and LangChain chat-model and embedding adapters share one rule set (``FrameworkChatLLM``,
``FrameworkEmbedder``): name, temperature and repr of a chat model; queries embedded one call a text, passages in
one batch call, and the embedder's cache name."""

from typing import Any

import pytest
from langchain_core.embeddings import Embeddings
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.llms import MockLLM

from rag_eval_adapters.langchain import LangChainEmbedder
from rag_eval_adapters.langchain.generator import LangChainChatLLM
from rag_eval_adapters.llamaindex import LlamaIndexEmbedder
from rag_eval_adapters.llamaindex.generator import LlamaIndexChatLLM


def test_chat_models_named_by_their_framework_with_their_temperature():
    ChatOpenAI = pytest.importorskip("langchain_openai").ChatOpenAI
    OpenAI = pytest.importorskip("llama_index.llms.openai").OpenAI
    lc = LangChainChatLLM(ChatOpenAI(model="gpt-4o-mini", api_key="k", temperature=0.2))
    li = LlamaIndexChatLLM(OpenAI(model="gpt-4o-mini", api_key="k", temperature=0.3))
    assert (lc.name, lc.temperature, repr(lc)) == ("gpt-4o-mini", 0.2, "LangChainChatLLM(ChatOpenAI, model='gpt-4o-mini')")
    assert (li.name, li.temperature, repr(li)) == ("gpt-4o-mini", 0.3, "LlamaIndexChatLLM(OpenAI, model='gpt-4o-mini')")


def test_a_chat_model_without_a_name_or_temperature():
    lc = LangChainChatLLM(FakeListChatModel(responses=["a"]))
    assert (lc.name, lc.temperature) == ("FakeListChatModel", None)
    assert LlamaIndexChatLLM(MockLLM()).temperature is None


class OddTemperature(FakeListChatModel):
    temperature: Any = None


@pytest.mark.parametrize("value", [float("nan"), float("inf"), True, "0.5"])
def test_a_temperature_that_is_no_finite_number_is_recorded_as_none(value):
    assert LangChainChatLLM(OddTemperature(responses=["a"], temperature=value)).temperature is None


def test_chat_models_of_another_kind_are_type_errors():
    with pytest.raises(TypeError, match="LangChain chat model"):
        LangChainChatLLM(MockLLM())
    with pytest.raises(TypeError, match="LlamaIndex LLM"):
        LlamaIndexChatLLM(FakeListChatModel(responses=["a"]))


class CountingEmbeddings(Embeddings):
    model = "count-1"

    def __init__(self):
        self.calls = []

    def embed_query(self, text):
        self.calls.append(("query", text))
        return [float(len(text)), 1.0]

    def embed_documents(self, texts):
        self.calls.append(("documents", list(texts)))
        return [[float(len(t)), 0.0] for t in texts]


class CountingEmbedding(BaseEmbedding):
    calls: list = []

    def _get_query_embedding(self, query):
        self.calls.append(("query", query))
        return [float(len(query)), 1.0]

    async def _aget_query_embedding(self, query):
        return self._get_query_embedding(query)

    def _get_text_embedding(self, text):
        return self._get_text_embeddings([text])[0]

    def _get_text_embeddings(self, texts):
        self.calls.append(("texts", list(texts)))
        return [[float(len(t)), 0.0] for t in texts]


def test_queries_one_call_a_text_and_passages_one_batch_in_both_frameworks():
    lc_model, li_model = CountingEmbeddings(), CountingEmbedding(model_name="count-2", calls=[])
    for embedder, model, batch in ((LangChainEmbedder(lc_model), lc_model, "documents"),
                                   (LlamaIndexEmbedder(li_model), li_model, "texts")):
        assert embedder.embed_queries(("ab", "c")) == [[2.0, 1.0], [1.0, 1.0]]
        assert embedder.embed_passages(("ab", "c")) == [[2.0, 0.0], [1.0, 0.0]]
        assert model.calls == [("query", "ab"), ("query", "c"), (batch, ["ab", "c"])]


def test_embedder_cache_names():
    assert LangChainEmbedder(CountingEmbeddings()).name == f"langchain:{__name__}.CountingEmbeddings:count-1"
    model = CountingEmbedding(model_name="count-2")
    assert LlamaIndexEmbedder(model).name == f"llamaindex:{__name__}.CountingEmbedding:count-2"
    assert LlamaIndexEmbedder(model, name="mine").name == LangChainEmbedder(CountingEmbeddings(), name="mine").name
