"""TREC qrels and run readers: contents, and errors that name the file and line."""

import pytest

from rag_eval_adapters import evaluate, read_trec_qrels, read_trec_run


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_read_qrels_and_run(tmp_path):
    qrels = read_trec_qrels(write(tmp_path, "q.txt", "1 0 a 1\n1 0 b 0\n\n2 0 c 2\n"))
    assert qrels == {"1": {"a": 1, "b": 0}, "2": {"c": 2}}
    run = read_trec_run(write(tmp_path, "r.txt", "1 Q0 a 1 1.5 x\n1\tQ0\tb\t2\t-0.25\tx\n2 Q0 c 1 3e2 x\n"))
    assert run == {"1": {"a": 1.5, "b": -0.25}, "2": {"c": 300.0}}


def test_rank_column_is_ignored_like_trec_eval(tmp_path):
    qrels = read_trec_qrels(write(tmp_path, "q.txt", "1 0 a 1\n"))
    # the rank column claims b first; scores put a first
    run = read_trec_run(write(tmp_path, "r.txt", "1 Q0 b 1 0.5 x\n1 Q0 a 2 0.9 x\n"))
    assert evaluate(qrels, run, ["mrr"]).mean["mrr"] == 1.0


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("1 0 a 1\n1 0 b\n", r"q.txt:2: a qrels line has 4 fields"),
        ("1 0 a high\n", r"q.txt:1: the grade 'high' is not a number"),
        ("1 0 a 1\n\n1 0 a 0\n", r"q.txt:3: query '1' judges document 'a' twice"),
    ],
)
def test_bad_qrels_lines(tmp_path, text, fragment):
    with pytest.raises(ValueError, match=fragment):
        read_trec_qrels(write(tmp_path, "q.txt", text))


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("1 Q0 a 1 0.5\n", r"r.txt:1: a run line has 6 fields"),
        ("1 Q0 a 1 0.5 x\n1 Q0 b 2 abc x\n", r"r.txt:2: the score 'abc' is not a number"),
        ("1 Q0 a 1 nan x\n", r"r.txt:1: the score 'nan' is not a number"),
        ("1 Q0 a 1 0.5 x\n1 Q0 a 2 0.4 x\n", r"r.txt:2: query '1' retrieves document 'a' twice"),
    ],
)
def test_bad_run_lines(tmp_path, text, fragment):
    with pytest.raises(ValueError, match=fragment):
        read_trec_run(write(tmp_path, "r.txt", text))


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such file"):
        read_trec_qrels(tmp_path / "absent.txt")
    with pytest.raises(FileNotFoundError, match="no such file"):
        read_trec_run(tmp_path / "absent.txt")


def test_invalid_utf8_names_the_line(tmp_path):
    path = tmp_path / "r.txt"
    path.write_bytes(b"1 Q0 a 1 0.5 x\n1 Q0 caf\xe9 2 0.4 x\n")
    with pytest.raises(ValueError, match=r"r.txt:2: not valid UTF-8 \(byte 0xe9 at column 9\)"):
        read_trec_run(path)
    path.write_bytes("1 0 café 1\n".encode())
    assert read_trec_qrels(path) == {"1": {"café": 1}}
