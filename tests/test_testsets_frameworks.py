"""generate_testset with LlamaIndex's and LangChain's OpenAI classes (real SDKs, local server), and with
LlamaIndex nodes / LangChain Documents as chunks."""

from __future__ import annotations

import pytest

pytest.importorskip("llama_index.llms.openai")
pytest.importorskip("langchain_openai")

from langchain_core.documents import Document as LCDocument
from langchain_openai import ChatOpenAI
from llama_index.core import Document
from llama_index.core.node_parser import SentenceSplitter
from llama_index.llms.openai import OpenAI
from openai_server import fail

from rag_eval_adapters.langchain.generator import LangChainChatLLM
from rag_eval_adapters.llamaindex.generator import LlamaIndexChatLLM
from rag_eval_adapters.testsets import OpenAICompatibleLLM, generate_testset

TEXT = (
    "The heart pumps blood through the body. Arteries carry blood away from the heart. Veins return blood to the "
    "heart. Capillaries connect arteries and veins. The lungs add oxygen to the blood. The kidneys filter waste "
    "from the blood. Red cells carry oxygen. White cells fight infection. Platelets help blood to clot. "
    "Сердце перекачивает кровь по всему телу. Лёгкие насыщают кровь кислородом. "
) * 2


def nodes():
    docs = [Document(text=TEXT, id_="anatomy"), Document(text=TEXT.upper(), id_="ANATOMY")]
    return SentenceSplitter(chunk_size=48, chunk_overlap=16).get_nodes_from_documents(docs), {d.id_: d.text for d in docs}


def llama(server, **kw):
    return OpenAI(model="gpt-4o-mini", api_base=server.base_url, api_key=server.api_key, max_retries=0, **kw)


def chat_openai(server, **kw):
    return ChatOpenAI(model="gpt-4o-mini", base_url=server.base_url, api_key=server.api_key, max_retries=0, **kw)


def sdk(server):
    return OpenAICompatibleLLM("gpt-4o-mini", base_url=server.base_url, api_key=server.api_key, temperature=0.1)


def test_three_llm_kinds_give_the_same_cases_and_usage(openai_server):
    chunks, _ = nodes()
    results = []
    for make in (sdk, lambda s: llama(s, temperature=0.1), lambda s: chat_openai(s, temperature=0.1)):
        before = dict(openai_server.usage_sent)
        testset = generate_testset(chunks, make(openai_server), samples=6, min_chunk_chars=20, max_concurrency=3)
        sent = {k: openai_server.usage_sent[k] - before[k] for k in before}
        assert (testset.summary["input_tokens"], testset.summary["output_tokens"]) == (
            sent["prompt_tokens"], sent["completion_tokens"])
        results.append([(c.query_id, c.query, c.evidence, c.relevant_chunk_ids) for c in testset])
    assert results[0] == results[1] == results[2] and len(results[0]) >= 5


def test_llamaindex_nodes_spans_map_back_to_the_documents(openai_server):
    chunks, texts = nodes()
    testset = generate_testset(chunks, llama(openai_server), samples=10, min_chunk_chars=20)
    assert len(testset) >= 8
    by_id = {n.node_id: n for n in chunks}
    for case in testset:
        assert case.evidence_spans, case
        for span in case.evidence_spans:
            assert " ".join(texts[span.doc_id][span.start : span.end].split()) == " ".join(case.evidence.split())
        for chunk_id in case.relevant_chunk_ids:  # overlapping nodes of the same text all count
            assert " ".join(case.evidence.split()) in " ".join(by_id[chunk_id].get_content().split())
    assert any(len(c.relevant_chunk_ids) > 1 for c in testset)


def test_langchain_documents_and_a_retriever_rank(openai_server):
    docs = [
        LCDocument(page_content="Arteries carry blood away from the heart to the organs.",
                   metadata={"id": "a-1", "source": "blood.txt", "start_index": 0}),
        LCDocument(page_content="Veins return blood from the organs back to the heart.",
                   metadata={"id": "a-2", "source": "blood.txt", "start_index": 57}),
    ]
    full = docs[0].page_content + "  " + docs[1].page_content

    class Retriever:
        def invoke(self, query):
            return list(reversed(docs))

    testset = generate_testset(docs, chat_openai(openai_server), samples=2, types=["literal"], min_chunk_chars=10,
                               retriever=Retriever())
    assert {c.source_chunk_id: c.retriever_rank for c in testset} == {"a-1": 2, "a-2": 1}
    for case in testset:
        (span,) = case.evidence_spans
        assert span.doc_id == "blood.txt" and full[span.start : span.end] == case.evidence


@pytest.mark.parametrize("kind", ["llamaindex", "langchain"])
def test_framework_llms_are_retried_on_429(openai_server, kind):
    openai_server.queue(fail(429, retry_after="0"))
    model = llama(openai_server) if kind == "llamaindex" else chat_openai(openai_server)
    chunks, _ = nodes()
    testset = generate_testset(chunks, model, samples=1, min_chunk_chars=20, retry_base_delay=0.0)
    assert len(testset) == 1 and testset.summary["retries"] == 1
    assert [r.status for r in openai_server.chat_requests] == [429, 200]


def test_adapters_refuse_other_objects():
    with pytest.raises(TypeError, match="LlamaIndex LLM"):
        LlamaIndexChatLLM(object())
    with pytest.raises(TypeError, match="LangChain chat model"):
        LangChainChatLLM(object())


def test_a_llamaindex_retriever_rank_agrees_with_evaluate_dataset(openai_server, tmp_path):
    from llama_index.core.base.base_retriever import BaseRetriever
    from llama_index.core.evaluation import RetrieverEvaluator
    from llama_index.core.schema import NodeWithScore, TextNode

    from rag_eval_adapters.llamaindex import HitRate, evaluate_dataset

    corpus = {
        "arteries": "Arteries carry blood away from the heart to the organs of the body.",
        "veins": "Veins return blood from the organs back to the heart through valves.",
        "lungs": "The lungs add oxygen to the blood and remove carbon dioxide from it.",
        "kidneys": "The kidneys filter waste from the blood and produce urine every day.",
    }
    nodes = [TextNode(id_=k, text=v) for k, v in corpus.items()]

    class Keyword(BaseRetriever):
        def _retrieve(self, query_bundle):
            words = set(query_bundle.query_str.lower().split())
            scored = sorted(nodes, key=lambda n: (-len(words & set(n.text.lower().split())), n.node_id))
            return [NodeWithScore(node=n, score=1.0) for n in scored[:2]]

    retriever = Keyword()
    out = tmp_path / "t.jsonl"
    testset = generate_testset(nodes, llama(openai_server), samples=4, min_chunk_chars=20, retriever=retriever,
                               output=out)
    assert len(testset) == 4 and all(c.relevant_chunk_ids == [c.source_chunk_id] for c in testset)
    evaluator = RetrieverEvaluator(metrics=[HitRate(top_k=1), HitRate(top_k=2)], retriever=retriever)
    for dataset in (testset.to_rows(), str(out)):
        run = evaluate_dataset(evaluator, dataset, workers=2, show_progress=False)
        ranks = [c.retriever_rank for c in testset]
        assert run.mean["hit_rate@1"] == sum(r == 1 for r in ranks) / 4
        assert run.mean["hit_rate@2"] == sum(r is not None and r <= 2 for r in ranks) / 4
