"""Every field of a test-set line is checked when it is read, and a bad one names the file, the line and the
field (issue 21, item 9)."""

from __future__ import annotations

import json

import pytest

from rag_eval_adapters.testsets import TestSet, read_testset

GOOD = {"query_id": "q1", "query": "what buried Pompeii?", "evidence": "The eruption of Vesuvius buried Pompeii",
        "relevant_chunk_ids": ["c1"], "evidence_spans": [{"doc_id": "d", "start": 10, "end": 49}],
        "lexical_overlap": 0.5, "flags": ["high_overlap"], "retriever_rank": 2, "temperature": 0.0}


def write(tmp_path, *lines):
    path = tmp_path / "set.jsonl"
    path.write_bytes(b"".join(line if isinstance(line, bytes) else (line + "\n").encode() for line in lines))
    return path


def test_a_good_line_reads_back_every_field(tmp_path):
    case = TestSet.from_jsonl(write(tmp_path, json.dumps(GOOD)))[0]
    assert (case.lexical_overlap, case.flags, case.retriever_rank, case.evidence_spans[0].end) == (
        0.5, ["high_overlap"], 2, 49)


@pytest.mark.parametrize(("field", "value", "message"), [
    ("lexical_overlap", 7, r"'lexical_overlap' must be a finite number in \[0, 1\], got 7"),
    ("lexical_overlap", -0.1, r"'lexical_overlap' must be a finite number in \[0, 1\]"),
    ("lexical_overlap", "0.5", r"'lexical_overlap' must be a finite number in \[0, 1\], got '0.5'"),
    ("flags", "high_overlap", r"'flags' must be a list of non-empty strings, got 'high_overlap'"),
    ("retriever_rank", -3, r"'retriever_rank' must be an integer >= 1, got -3"),
    ("retriever_rank", 0, r"'retriever_rank' must be an integer >= 1, got 0"),
    ("retriever_rank", 1.5, r"'retriever_rank' must be an integer >= 1"),
    ("temperature", -1, r"'temperature' must be a finite number >= 0, got -1"),
    ("query_type", "trivia", r"'query_type' must be one of literal, paraphrase, scenario, multi_hop, unanswerable, got 'trivia'"),
    ("relevant_chunk_ids", [""], r"'relevant_chunk_ids' must be a list of non-empty strings"),
    ("evidence_spans", [{"doc_id": "d", "start": 49, "end": 10}], r"'evidence_spans\[0\]' needs integer offsets"),
    ("evidence_spans", [{"doc_id": "d", "start": 10}], r"'evidence_spans\[0\]' needs integer offsets"),
    ("evidence_spans", [{"doc_id": "d", "start": 10, "end": 20}],
     r"'evidence_spans\[0\]' covers 10 characters, fewer than its evidence \(39\): the span is truncated"),
])
def test_a_bad_field_names_the_file_line_and_field(tmp_path, field, value, message):
    path = write(tmp_path, json.dumps({**GOOD, "query_id": "q0"}), json.dumps({**GOOD, field: value}))
    with pytest.raises(ValueError, match=r"set.jsonl:2: field " + message):
        read_testset(path)


def test_nan_duplicate_ids_and_bad_bytes_name_the_line(tmp_path):
    nan = json.dumps(GOOD).replace('"lexical_overlap": 0.5', '"lexical_overlap": NaN')
    with pytest.raises(ValueError, match=r"set.jsonl:1: field 'lexical_overlap' must be a finite number"):
        read_testset(write(tmp_path, nan))
    with pytest.raises(ValueError, match=r"query_id 'q1' appears twice \(line 2 repeats line 1\)"):
        read_testset(write(tmp_path, json.dumps(GOOD), json.dumps(GOOD)))
    with pytest.raises(ValueError, match=r"set.jsonl:2: not valid UTF-8 \(byte 0xff"):
        read_testset(write(tmp_path, json.dumps(GOOD), b'{"query_id": "q2", "query": "\xff"}\n'))


def test_an_empty_list_of_chunk_ids_needs_other_relevance(tmp_path):
    bare = {"query_id": "q1", "query": "what?", "relevant_chunk_ids": []}
    with pytest.raises(ValueError, match=r"set.jsonl:1: query 'q1' has no relevance"):
        read_testset(write(tmp_path, json.dumps(bare)))
    case = read_testset(write(tmp_path, json.dumps({**bare, "evidence": "some quoted words"})))[0]
    assert case.relevant_chunk_ids == [] and case.texts == ["some quoted words"]
