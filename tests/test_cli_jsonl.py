"""JSONL qrels and run readers: every accepted form, and errors that name the line."""

from __future__ import annotations

import pytest

from rag_eval_adapters.jsonl import looks_like_jsonl, read_jsonl_qrels, read_jsonl_run


def _write(tmp_path, text, name="data.jsonl"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_qrels_both_forms(tmp_path):
    path = _write(tmp_path, '{"query_id": "a", "expected_ids": ["d1", "d2"]}\n\n'
                            '{"query_id": 7, "relevance": {"d3": 2, "d4": 0, "d5": -1}}\n')
    assert read_jsonl_qrels(path) == {"a": {"d1": 1, "d2": 1}, "7": {"d3": 2, "d4": 0, "d5": -1}}


def test_run_forms(tmp_path):
    path = _write(tmp_path, '{"query_id": "a", "retrieved_ids": ["d2", "d1", "d2"]}\n'
                            '{"query_id": "b", "retrieved_ids": ["d1", "d2"], "scores": [1, 3.5]}\n'
                            '{"query_id": "c", "scores": {"d9": 0.25}}\n')
    run = read_jsonl_run(path)
    assert run == {"a": ["d2", "d1", "d2"], "b": {"d1": 1.0, "d2": 3.5}, "c": {"d9": 0.25}}


def test_empty_retrieval_is_allowed(tmp_path):
    path = _write(tmp_path, '{"query_id": "a", "retrieved_ids": []}\n')
    assert read_jsonl_run(path) == {"a": []}


@pytest.mark.parametrize(
    "text, expected",
    [
        ('{"query_id": "a", "expected_ids": ["d1"]}\n{"query_id": "a", "expected_ids": ["d2"]}\n',
         ":2: query 'a' appears a second time"),
        ('{"query_id": "a"}\n', ':1: no judgments for query \'a\''),
        ('{"expected_ids": ["d1"]}\n', ':1: missing "query_id"'),
        ('["a", "d1"]\n', ":1: expected a JSON object"),
        ('{"query_id": "a", "relevance": {"d1": 1.5}}\n', ":1: grade for 'd1'"),
        ('{"query_id": "a", "relevance": ["d1"]}\n', ':1: "relevance" must be an object'),
        ('{"query_id": "a", "expected_ids": "d1"}\n', ':1: "expected_ids" must be a list'),
        ('{"query_id": "a", "expected_ids": [["d1"]]}\n', ':1: every id in "expected_ids"'),
        ('\n\n{"query_id": "a", "expected_ids": [}\n', ":3: not valid JSON"),
    ],
)
def test_qrels_errors_name_the_line(tmp_path, text, expected):
    path = _write(tmp_path, text)
    with pytest.raises(ValueError) as info:
        read_jsonl_qrels(path)
    assert str(info.value).startswith(str(path))
    assert expected in str(info.value)


@pytest.mark.parametrize(
    "text, expected",
    [
        ('{"query_id": "a", "retrieved_ids": ["d1"]}\n{"query_id": "a", "retrieved_ids": []}\n',
         ":2: query 'a' appears a second time"),
        ('{"query_id": "a", "retrieved_ids": ["d1", "d2"], "scores": [1.0]}\n', ':1: "scores" must be a list as long'),
        ('{"query_id": "a", "retrieved_ids": ["d1"], "scores": ["high"]}\n', ':1: "scores" for \'d1\''),
        ('{"query_id": "a", "scores": {"d1": NaN}}\n', ':1: "scores" for \'d1\' must be a finite number'),
        ('{"query_id": "a", "retrieved_ids": ["d1", "d1"], "scores": [2, 1]}\n', ":1: id 'd1' appears twice"),
        ('{"query_id": "a"}\n', ":1: no retrieved ids for query 'a'"),
        ('{"query_id": null, "retrieved_ids": []}\n', ':1: "query_id" must be a string'),
    ],
)
def test_run_errors_name_the_line(tmp_path, text, expected):
    path = _write(tmp_path, text)
    with pytest.raises(ValueError) as info:
        read_jsonl_run(path)
    assert expected in str(info.value)


def test_looks_like_jsonl(tmp_path):
    assert looks_like_jsonl(_write(tmp_path, "q1 0 d1 1\n", "qrels.jsonl"))  # the extension decides
    assert looks_like_jsonl(_write(tmp_path, '\n  {"query_id": "a"}\n', "qrels"))
    assert not looks_like_jsonl(_write(tmp_path, "q1 0 d1 1\n", "qrels.txt"))
    assert not looks_like_jsonl(_write(tmp_path, "", "empty"))
