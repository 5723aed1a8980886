"""The pyarrow TREC readers return exactly what the line-by-line readers return, errors included."""

import numpy as np
import pytest

from rag_eval_adapters import evaluate, read_trec_qrels, read_trec_run
from rag_eval_adapters.trec import read_trec_qrels_table, read_trec_run_table

pytest.importorskip("pyarrow")

QRELS_CASES = {
    "plain": "1 0 a 1\n1 0 b 0\n2 0 c 2\n",
    "tabs": "1\t0\ta\t1\n2\t0\tc\t3\n",
    "mixed tabs and spaces": "1 0 a 1\n1\t0\tb\t2\n",
    "double spaces": "1  0 a 1\n",
    "leading and trailing blanks": " 1 0 a 1 \n",
    "blank lines and crlf": "\n1 0 a 1\r\n\r\n2 0 b 1\r\n",
    "float grade": "1 0 a 1.5\n1 0 b 2\n",
    "negative and zero-padded": "1 0 a -1\n1 0 b 02\n",
    "queries interleaved": "2 0 x 1\n1 0 a 1\n2 0 y 0\n1 0 b 2\n",
    "non-breaking space": "1 0 a\u00a0b 1\n",
    "unicode ids": "q\u00e9 0 d\u00f6c 1\n",
    "inf grade": "1 0 a inf\n",
    "wrong field count": "1 0 a 1\n1 0 b\n",
    "bad grade": "1 0 a high\n",
    "repeated document": "1 0 a 1\n\n1 0 a 0\n",
    "empty": "",
}

RUN_CASES = {
    "plain": "1 Q0 a 1 1.5 x\n1 Q0 b 2 -0.25 x\n2 Q0 c 1 3e2 x\n",
    "tabs": "1\tQ0\ta\t1\t0.5\tx\n",
    "mixed tabs and spaces": "1 Q0 a 1 1.5 x\n1\tQ0\tb\t2\t-0.25\tx\n",
    "queries interleaved": "2 Q0 x 1 0.5 t\n1 Q0 a 1 0.4 t\n2 Q0 y 2 0.3 t\n",
    "integer and inf scores": "1 Q0 a 1 3 t\n1 Q0 b 2 -inf t\n1 Q0 c 3 inf t\n",
    "nan score": "1 Q0 a 1 nan x\n",
    "bad score": "1 Q0 a 1 0.5 x\n1 Q0 b 2 abc x\n",
    "underscore score": "1 Q0 a 1 1_000 x\n",
    "repeated document": "1 Q0 a 1 0.5 x\n1 Q0 a 2 0.4 x\n",
    "wrong field count": "1 Q0 a 1 0.5\n",
    "NULL-looking ids": "NULL Q0 NaN 1 0.5 N/A\n",
}


def outcome(read, path, engine):
    try:
        return "ok", read(path, engine=engine)
    except (ValueError, FileNotFoundError) as exc:
        return type(exc).__name__, str(exc)


@pytest.mark.parametrize("case", sorted(QRELS_CASES))
def test_qrels_same_as_the_line_reader(tmp_path, case):
    path = tmp_path / "q.txt"
    path.write_text(QRELS_CASES[case], encoding="utf-8")
    expected = outcome(read_trec_qrels, path, "python")
    assert outcome(read_trec_qrels, path, "auto") == expected
    assert outcome(read_trec_qrels, path, "pyarrow") == expected
    if expected[0] == "ok":
        assert list(read_trec_qrels(path)) == list(expected[1])  # query order: first appearance
        assert all(type(v) is type(w) for q in expected[1] for v, w in
                   zip(read_trec_qrels(path)[q].values(), expected[1][q].values(), strict=False))


@pytest.mark.parametrize("case", sorted(RUN_CASES))
def test_run_same_as_the_line_reader(tmp_path, case):
    path = tmp_path / "r.txt"
    path.write_text(RUN_CASES[case], encoding="utf-8")
    expected = outcome(read_trec_run, path, "python")
    assert outcome(read_trec_run, path, "auto") == expected
    if expected[0] == "ok":
        assert [list(d) for d in read_trec_run(path).values()] == [list(d) for d in expected[1].values()]


def test_invalid_utf8_is_read_like_the_line_reader(tmp_path):
    path = tmp_path / "q.txt"
    path.write_bytes(b"1 0 a\xff 1\n")
    for engine in ("auto", "python"):
        with pytest.raises(ValueError, match=r"q.txt:1: not valid UTF-8 \(byte 0xff at column 6\)"):
            read_trec_qrels(path, engine=engine)


def test_large_random_files_and_tables(tmp_path):
    rng = np.random.default_rng(2)
    qrels_lines, run_lines = [], []
    for q in rng.permutation(300):
        docs = [f"doc{d}" for d in rng.choice(10_000, size=30, replace=False)]
        for d in docs[:8]:
            qrels_lines.append(f"q{q} 0 {d} {int(rng.integers(0, 4))}")
        for r, d in enumerate(docs[2:], 1):
            run_lines.append(f"q{q} Q0 {d} {r} {rng.integers(0, 50) / 7:.6f} tag")
    qpath, rpath = tmp_path / "q.txt", tmp_path / "r.txt"
    qpath.write_text("\n".join(qrels_lines) + "\n")
    rpath.write_text("\n".join(run_lines) + "\n")
    qrels, run = read_trec_qrels(qpath), read_trec_run(rpath)
    assert qrels == read_trec_qrels(qpath, engine="python")
    assert run == read_trec_run(rpath, engine="python")
    from rag_eval_adapters.columnar import evaluate_columns

    metrics = ["ndcg@10", "ap", "mrr", "precision@5"]
    columns = evaluate_columns(read_trec_qrels_table(qpath), read_trec_run_table(rpath), metrics)
    dicts = evaluate(qrels, run, metrics)
    assert columns.query_ids == dicts.query_ids
    np.testing.assert_allclose(columns.values, dicts.values, rtol=0, atol=1e-12)


def test_tables_of_files_the_fast_parser_cannot_take(tmp_path):
    qpath, rpath = tmp_path / "q.txt", tmp_path / "r.txt"
    qpath.write_text("1 0 a 1.5\n1\t0\tb 2\n")
    rpath.write_text("1 Q0 a 1 1e3 x\n1\tQ0  b 2 +2 x\n")
    assert read_trec_qrels_table(qpath).to_pydict() == {"query_id": ["1", "1"], "doc_id": ["a", "b"],
                                                       "grade": [1.5, 2.0]}
    assert read_trec_run_table(rpath).to_pydict() == {"query_id": ["1", "1"], "doc_id": ["a", "b"],
                                                     "score": [1000.0, 2.0]}
    rpath.write_text("1 Q0 a 1 0.5 x\n1 Q0 a 2 0.4 x\n2 Q0 b 1 0.5 x\n")
    with pytest.raises(ValueError, match=r"r.txt:1: a qrels line has 4 fields"):
        read_trec_qrels_table(rpath)
    # a repeated document is that query's error in evaluate_columns; the other queries are scored
    from rag_eval_adapters.columnar import evaluate_columns

    qpath.write_text("1 0 a 1\n2 0 b 1\n")
    report = evaluate_columns(read_trec_qrels_table(qpath), read_trec_run_table(rpath), ["mrr"])
    assert report.per_query == {"2": {"mrr": 1.0}}
    assert "scores a document twice" in report.errors["1"]
