"""The LangChain and LlamaIndex benchmark chunkings share one rule set (``FrameworkChunking``): the splitter
check, the default name, the ``repr`` and the pieces (in order, blank chunks left out)."""

import pytest
from langchain_core.documents import Document
from llama_index.core.node_parser import SentenceSplitter
from llama_index.core.schema import TextNode

from rag_eval_adapters.langchain.chunking import TextSplitterChunking, text_splitter_chunking
from rag_eval_adapters.llamaindex.chunking import NodeParserChunking, node_parser_chunking

TEXT = "The tower is in Paris. It was built in 1889. " * 6


class BlankSplitter:
    """A LangChain-style splitter whose second chunk is blank."""

    def split_documents(self, documents):
        text = documents[0].page_content
        return [Document(page_content=text[:5], metadata={"start_index": 0}), Document(page_content="  \n"),
                Document(page_content=text[5:], metadata={"start_index": 5})]


class BlankParser:
    """A LlamaIndex-style node parser whose first node is blank."""

    def get_nodes_from_documents(self, documents):
        text = documents[0].text
        return [TextNode(text=" ", start_char_idx=0), TextNode(text=text, start_char_idx=0)]


def text_splitter(**options):
    return pytest.importorskip("langchain_text_splitters").RecursiveCharacterTextSplitter(**options)


def test_langchain_pieces_are_the_splitter_chunks_with_their_offsets():
    splitter = text_splitter(chunk_size=60, chunk_overlap=10, add_start_index=True)
    pieces = text_splitter_chunking(splitter, "rc60").pieces("d1", TEXT)
    assert len(pieces) > 2
    assert all(TEXT[start : start + len(chunk)] == chunk for chunk, start in pieces)


def test_llamaindex_pieces_are_the_nodes_with_their_offsets():
    pieces = node_parser_chunking(SentenceSplitter(chunk_size=24, chunk_overlap=0)).pieces("d1", TEXT)
    assert len(pieces) > 2
    assert all(TEXT[start : start + len(chunk)] == chunk for chunk, start in pieces)


def test_blank_chunks_are_left_out_in_both_frameworks():
    assert TextSplitterChunking(BlankSplitter()).pieces("d", "hello world") == [("hello", 0), (" world", 5)]
    assert NodeParserChunking(BlankParser()).pieces("d", "hello world") == [("hello world", 0)]


def test_a_splitter_of_another_kind_is_a_type_error_naming_the_framework():
    with pytest.raises(TypeError, match="expected a LangChain text splitter, got SentenceSplitter"):
        TextSplitterChunking(SentenceSplitter())
    with pytest.raises(TypeError, match="expected a LlamaIndex node parser, got RecursiveCharacterTextSplitter"):
        NodeParserChunking(text_splitter())


def test_names_and_reprs():
    chunking = TextSplitterChunking(BlankSplitter())
    assert chunking.name == "BlankSplitter" and chunking.splitter.__class__ is BlankSplitter
    assert repr(chunking) == "TextSplitterChunking('BlankSplitter', splitter=BlankSplitter)"
    parser = BlankParser()
    chunking = NodeParserChunking(parser=parser, name="blank")
    assert chunking.name == "blank" and chunking.parser is parser
    assert repr(chunking) == "NodeParserChunking('blank', parser=BlankParser)"
