"""The one JSONL reader under every JSON Lines input: gzip, standard input, a BOM, any line end, file:line errors."""

from __future__ import annotations

import gzip
import io
import json
import sys

import pytest

from rag_eval_adapters.answers.records import read_jsonl_records
from rag_eval_adapters.jsonl import read_jsonl_objects
from rag_eval_adapters.testsets import read_testset

LINES = [{"query_id": "q1", "query": "a?", "evidence": "x", "prediction": "p"},
         {"query_id": 2, "query": "b?", "evidence": "y", "prediction": "q"}]


def encoded(lines, end="\r\n"):
    return ("\ufeff" + end.join(json.dumps(line) for line in lines) + end).encode("utf-8")


def test_gzip_bom_crlf_and_stdin_read_alike_by_every_reader(tmp_path, monkeypatch):
    plain, packed = tmp_path / "a.jsonl", tmp_path / "a.jsonl.gz"
    plain.write_bytes(encoded(LINES, "\r"))
    packed.write_bytes(gzip.compress(encoded(LINES)))
    expected = [(1, LINES[0]), (2, LINES[1])]
    assert list(read_jsonl_objects(plain)) == list(read_jsonl_objects(packed)) == expected
    assert list(read_jsonl_records(packed)) == ["q1", "2"]
    assert [c.query_id for c in read_testset(packed)] == ["q1", "2"]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(encoded(LINES)), encoding="utf-8"))
    assert [c.query for c in read_testset("-")] == ["a?", "b?"]


def test_bad_lines_name_file_and_line_or_are_handed_back(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b'{"query_id": "q1"}\n\n[1, 2]\n{not json\n\xff\xfe\n{"query_id": "q6"}\n')
    with pytest.raises(ValueError, match=r"bad\.jsonl:3: expected a JSON object, got list"):
        list(read_jsonl_objects(path))
    with pytest.raises(ValueError, match=r"bad\.jsonl:3: expected a JSON object"):
        read_jsonl_records(path)
    got = list(read_jsonl_objects(path, bad_lines="yield"))
    assert [n for n, _ in got] == [1, 3, 4, 5, 6]
    assert [str(r).split(": ", 1)[1][:20] for _, r in got if isinstance(r, ValueError)] == [
        "expected a JSON obje", "not valid JSON (Expe", "not valid UTF-8 (byt"]
    assert got[-1] == (6, {"query_id": "q6"})
    with pytest.raises(ValueError, match='bad_lines must be "raise" or "yield"'):
        list(read_jsonl_objects(path, bad_lines="skip"))
