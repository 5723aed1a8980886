"""docs/bench.md "From documents to a bench": the generate -> bench script of the page runs as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("bm25s")
pytest.importorskip("llama_index.core")

DOC = Path(__file__).resolve().parent.parent / "docs" / "bench.md"


def _script() -> str:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## From documents to a bench", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 1, "the section holds one python block"
    return blocks[0]


def test_the_generate_to_bench_script_of_the_docs_runs_and_prints_what_the_page_says(capsys):
    exec(compile(_script(), str(DOC), "exec"), {"__name__": "docs_bench_script"})  # noqa: S102
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "4 requested, 4 generated, dropped: {}"
    assert [line.split()[0] for line in out[1:]] == ["s32o0/bm25", "s64o0/bm25"]
    assert all("'recall@3': 1.0" in line for line in out[1:])


def test_generate_testset_takes_the_benchs_chunks_as_they_are():
    from rag_eval_adapters.bench import Chunk as BenchChunk
    from rag_eval_adapters.bench import Document, parse_chunking
    from rag_eval_adapters.modelcalls import ScriptedChatLLM
    from rag_eval_adapters.testsets import Chunk, generate_testset

    assert BenchChunk is Chunk
    text = ("Lake Baikal in Siberia is the deepest lake in the world, at more than 1,600 metres. "
            "It holds about a fifth of the fresh surface water of the planet.")
    chunks = parse_chunking("512:64").split([Document("lakes.txt", text)])
    evidence = "It holds about a fifth of the fresh surface water of the planet."
    llm = ScriptedChatLLM(['{"questions": [{"question": "How much fresh surface water does Baikal hold?", '
                           f'"answer": "a fifth", "evidence": "{evidence}"}}]}}'])
    testset = generate_testset(chunks, llm, samples=1, min_chunk_chars=10)
    case = testset.cases[0]
    assert case.source_chunk_id == chunks[0].chunk_id
    start = text.index(evidence)
    assert [(s.doc_id, s.start, s.end) for s in case.evidence_spans] == [("lakes.txt", start, start + len(evidence))]


def test_the_old_two_field_chunk_is_refused_not_read_as_a_document_id():
    from rag_eval_adapters.testsets import Chunk, as_chunks

    with pytest.raises(TypeError, match="give Chunk\\(chunk_id, text=...\\) by name"):
        Chunk("c1", "The Nile flows north.")
    assert Chunk("c1", text="abc", start=5).end == 8
    assert as_chunks([{"chunk_id": "e", "text": "", "doc_id": "d.txt"}])[0].text == ""
