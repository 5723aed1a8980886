"""`rag-eval` inputs and outputs: formats users have, files never overwritten, failures that fail, option checks."""

from __future__ import annotations

import gzip
import io
import json
import sys

import pytest
from cli_support import TINY_QRELS, TINY_RUN, run_cli, tiny_files, write_jsonl

from rag_eval_adapters import evaluate, read_qrels, read_run, read_table_qrels, read_table_run
from rag_eval_adapters.jsonl import read_jsonl_qrels, read_jsonl_run

BIG = "9" * 400
TINY_MRR = evaluate(TINY_QRELS, TINY_RUN, ["mrr"]).mean["mrr"]


def one_line_error(code, out, err, *needles):
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("rag-eval: error: "), err
    assert "Traceback" not in err
    for needle in needles:
        assert needle in err, err


# ---------------------------------------------------------------- item 11: huge numbers, deep nesting


def test_huge_numbers_in_jsonl_are_errors_naming_the_line(tmp_path):
    q = tmp_path / "q.jsonl"
    q.write_text('{"query_id": "a", "relevance": {"d": 1}}\n{"query_id": "b", "relevance": {"d": 1e400}}\n')
    with pytest.raises(ValueError, match=r"q.jsonl:2: \"relevance\" for 'd': the grade inf is out of range"):
        read_jsonl_qrels(q)
    q.write_text(f'{{"query_id": "a", "relevance": {{"d": {BIG}}}}}\n')
    with pytest.raises(ValueError, match=r"q.jsonl:1: \"relevance\" for 'd': the grade '9+'\.\.\. \(400 char"):
        read_jsonl_qrels(q)
    r = tmp_path / "r.jsonl"
    r.write_text(f'{{"query_id": "a", "scores": {{"d": {BIG}}}}}\n')
    with pytest.raises(ValueError, match=r"r.jsonl:1: \"scores\" for 'd' must be a finite number"):
        read_jsonl_run(r)
    r.write_text('{"query_id": "a", "retrieved_ids": ["d"], "scores": [1e400]}\n')
    with pytest.raises(ValueError, match=r"r.jsonl:1: \"scores\" for 'd' must be a finite number, got inf"):
        read_jsonl_run(r)


def test_deeply_nested_jsonl_is_an_error_naming_the_line(tmp_path):
    r = tmp_path / "r.jsonl"
    r.write_text('{{"query_id": "a", "retrieved_ids": ["d"]}}\n{{"query_id": "b", "x": {}{}}}\n'.format("[" * 100_000, "]" * 100_000))
    with pytest.raises(ValueError, match=r"r.jsonl:2: the JSON is nested too deeply to read"):
        read_jsonl_run(r)


def test_huge_numbers_and_nesting_in_the_cli_are_one_line(tmp_path):
    qrels, run = tiny_files(tmp_path)
    big_q = tmp_path / "big.jsonl"
    big_q.write_text('{"query_id": "q1", "relevance": {"d1": 1e400}}\n')
    one_line_error(*run_cli("evaluate", "--qrels", big_q, "--run", run), "big.jsonl:1:")
    big_trec = tmp_path / "big.qrels"
    big_trec.write_text(f"q1 0 d1 {BIG}\n")
    one_line_error(*run_cli("evaluate", "--qrels", big_trec, "--run", run), "big.qrels:1: the grade")
    deep = tmp_path / "deep.jsonl"
    deep.write_text('{"query_id": "q1", "retrieved_ids": %s}\n' % ("[" * 50_000 + "]" * 50_000))
    one_line_error(*run_cli("evaluate", "--qrels", qrels, "--run", deep), "deep.jsonl:1: the JSON is nested")
    one_line_error(*run_cli("evaluate", "--qrels", qrels, "--run", run, "--k", BIG), "--k")
    one_line_error(*run_cli("compare", "--qrels", qrels, "--run", run, "--run", run, "--permutations", BIG),
                   "--permutations")


# ---------------------------------------------------------------- item 12: JSONL errors name the line


def test_a_bad_byte_in_jsonl_names_its_line(tmp_path):
    r = tmp_path / "r.jsonl"
    r.write_bytes(b'{"query_id": "a", "retrieved_ids": ["d"]}\n{"query_id": "b\xff", "retrieved_ids": ["d"]}\n')
    with pytest.raises(ValueError, match=r"r.jsonl:2: not valid UTF-8 \(byte 0xff at column 16\)"):
        read_jsonl_run(r)
    qrels, _ = tiny_files(tmp_path)
    one_line_error(*run_cli("evaluate", "--qrels", qrels, "--run", r), "r.jsonl:2: not valid UTF-8")


def test_jsonl_with_a_byte_order_mark_and_windows_line_ends(tmp_path):
    r = tmp_path / "r.txt"  # no .jsonl name: recognised by its first character behind the BOM
    r.write_bytes(b'\xef\xbb\xbf{"query_id": "a", "retrieved_ids": ["d", "e"]}\r\n\r\n')
    assert read_run(r) == {"a": ["d", "e"]}


# ---------------------------------------------------------------- item 17: outputs


def test_output_or_plot_naming_an_input_is_refused_and_the_input_kept(tmp_path):
    qrels, run = tiny_files(tmp_path)
    before = qrels.read_bytes(), run.read_bytes()
    one_line_error(*run_cli("evaluate", "--qrels", qrels, "--run", run, "--output", qrels),
                   f"--output {qrels} is an input file")
    one_line_error(*run_cli("compare", "--qrels", qrels, "--run", run, "--run", run, "-o", run), "is an input file")
    png_run = tmp_path / "run.png"
    png_run.write_bytes(run.read_bytes())
    one_line_error(*run_cli("evaluate", "--qrels", qrels, "--run", png_run, "--plot", png_run),
                   "--plot", "is an input file")
    linked = tmp_path / "alias.qrels"
    linked.symlink_to(qrels)
    one_line_error(*run_cli("evaluate", "--qrels", qrels, "--run", run, "--output", linked), "is an input file")
    assert (qrels.read_bytes(), run.read_bytes()) == before
    assert png_run.read_bytes() == before[1]


def test_output_format_follows_the_extension_unless_format_is_given(tmp_path):
    qrels, run = tiny_files(tmp_path)
    for name, check in [("r.json", lambda t: json.loads(t)["mean"] == {"mrr": TINY_MRR}),
                        ("r.csv", lambda t: t.splitlines()[0] == "query_id,mrr"),
                        ("r.md", lambda t: t.startswith("## ") and "| mrr |" in t),
                        ("r.txt", lambda t: "mrr" in t and not t.startswith(("{", "#", "query_id")))]:
        target = tmp_path / name
        code, out, err = run_cli("evaluate", "--qrels", qrels, "--run", run, "-m", "mrr", "-o", target)
        assert code == 0 and out == "", err
        assert check(target.read_text()), (name, target.read_text())
    target = tmp_path / "forced.json"
    code, _, _ = run_cli("evaluate", "--qrels", qrels, "--run", run, "-m", "mrr", "-o", target, "--format", "csv")
    assert code == 0 and target.read_text().startswith("query_id,mrr")
    target = tmp_path / "cmp.json"
    code, _, err = run_cli("compare", "--qrels", qrels, "--run", run, "--run", run, "-m", "mrr", "-o", target,
                           "--permutations", "10", "--bootstrap", "10")
    assert code == 0, err
    assert json.loads(target.read_text())["counts"]["runs"] == 2


def test_a_missing_output_folder_is_an_error_before_any_work(tmp_path):
    qrels, run = tiny_files(tmp_path)
    one_line_error(*run_cli("evaluate", "--qrels", qrels, "--run", run, "-o", tmp_path / "no" / "r.json"),
                   "the folder", "does not exist")
    one_line_error(*run_cli("evaluate", "--qrels", qrels, "--run", run, "--plot", tmp_path / "no" / "k.png"),
                   "--plot", "does not exist")
    one_line_error(*run_cli("evaluate", "--qrels", qrels, "--run", run, "-o", tmp_path / "a.png",
                            "--plot", tmp_path / "a.png"), "both name")
    assert not (tmp_path / "no").exists() and not (tmp_path / "a.png").exists()


# ---------------------------------------------------------------- item 20: failures fail, options checked first


def failing_files(tmp_path):
    qrels = write_jsonl(tmp_path / "q.jsonl", [
        {"query_id": "q1", "expected_ids": ["d1"]},
        {"query_id": "q2", "expected_ids": []},  # nothing judged: this query cannot be scored
        {"query_id": "q3", "relevance": {}},
        {"query_id": "q4", "expected_ids": ["d2"]},
    ])
    run = write_jsonl(tmp_path / "r.jsonl", [{"query_id": q, "retrieved_ids": ["d1", "d2"]}
                                             for q in ("q1", "q2", "q3", "q4")])
    return qrels, run


def test_queries_that_could_not_be_scored_fail_the_command(tmp_path):
    qrels, run = failing_files(tmp_path)
    target = tmp_path / "out.json"
    code, out, err = run_cli("evaluate", "--qrels", qrels, "--run", run, "-m", "mrr", "-o", target)
    assert code == 2
    assert "2 queries could not be scored (first: q2:" in err and "--allow-errors" in err
    assert sorted(json.loads(target.read_text())["errors"]) == ["q2", "q3"]  # the report is still written
    code, out, err = run_cli("evaluate", "--qrels", qrels, "--run", run, "-m", "mrr", "--format", "json",
                             "--allow-errors")
    assert code == 0 and json.loads(out)["mean"] == {"mrr": 0.75}
    code, _, err = run_cli("compare", "--qrels", qrels, "--run", run, "--run", run, "-m", "mrr",
                           "--permutations", "10", "--bootstrap", "10")
    assert code == 2 and "4 queries could not be scored (first: r.jsonl: q2:" in err


@pytest.mark.parametrize("args, needle", [
    (["evaluate", "--limit", "0"], "--limit must be a positive integer, got 0"),
    (["evaluate", "--limit", "-3"], "--limit must be a positive integer"),
    (["compare", "--seed", "-1"], "--seed must be a non-negative integer, got -1"),
    (["compare", "--permutations", "-1"], "--permutations must be a positive integer, got -1"),
    (["compare", "--bootstrap", "0"], "--bootstrap must be a positive integer"),
    (["compare", "--confidence", "1.5"], "--confidence must be a number strictly between 0 and 1, got 1.5"),
])
def test_option_values_are_refused_before_any_work(tmp_path, args, needle):
    command, *options = args
    missing = tmp_path / "absent.qrels"  # reading it would be the first work: the option must fail first
    runs = ["--run", "r1", "--run", "r2"] if command == "compare" else ["--run", "r1"]
    one_line_error(*run_cli(command, "--qrels", missing, *runs, *options), needle)


def test_demo_permutations_are_checked_before_the_retrieval(tmp_path):
    one_line_error(*run_cli("demo", "--output", tmp_path / "d", "--permutations", "-1"),
                   "--permutations must be a positive integer, got -1")
    assert not (tmp_path / "d").exists()


# ---------------------------------------------------------------- item 21: the inputs users have


def test_gzip_trec_and_jsonl(tmp_path):
    qrels, run = tiny_files(tmp_path)
    qgz, rgz = tmp_path / "qrels.txt.gz", tmp_path / "run.jsonl.gz"
    qgz.write_bytes(gzip.compress(qrels.read_bytes()))
    rgz.write_bytes(gzip.compress("".join(json.dumps({"query_id": q, "retrieved_ids": d}) + "\n"
                                          for q, d in TINY_RUN.items()).encode()))
    assert read_qrels(qgz) == read_qrels(qrels)
    assert read_run(rgz) == TINY_RUN
    code, out, err = run_cli("evaluate", "--qrels", qgz, "--run", rgz, "-m", "mrr", "--format", "json")
    assert code == 0, err
    assert json.loads(out)["mean"]["mrr"] == pytest.approx(TINY_MRR)


def test_standard_input(tmp_path, monkeypatch):
    qrels, run = tiny_files(tmp_path)

    class Stdin:
        buffer = io.BytesIO(run.read_bytes())

    monkeypatch.setattr(sys, "stdin", Stdin)
    code, out, err = run_cli("evaluate", "--qrels", qrels, "--run", "-", "-m", "mrr", "--format", "json")
    assert code == 0, err
    assert json.loads(out)["mean"]["mrr"] == pytest.approx(TINY_MRR)
    one_line_error(*run_cli("evaluate", "--qrels", "-", "--run", "-"), "standard input")


def test_beir_qrels_tsv_with_its_header(tmp_path):
    beir = tmp_path / "test.tsv"
    beir.write_text("query-id\tcorpus-id\tscore\n" + "".join(
        f"{q}\t{d}\t{g}\n" for q, docs in TINY_QRELS.items() for d, g in docs.items()))
    assert read_qrels(beir) == TINY_QRELS == read_table_qrels(beir)
    renamed = tmp_path / "qrels"  # no extension: the header says what it is
    renamed.write_bytes(beir.read_bytes())
    assert read_qrels(renamed) == TINY_QRELS
    _, run = tiny_files(tmp_path)
    code, out, err = run_cli("evaluate", "--qrels", beir, "--run", run, "-m", "mrr", "--format", "json")
    assert code == 0, err
    assert json.loads(out)["mean"]["mrr"] == pytest.approx(TINY_MRR)
    beir.write_text("query-id\tcorpus-id\tscore\nq1\td1\t0x1\n")
    with pytest.raises(ValueError, match=r"test.tsv:2: the grade '0x1' is not a number"):
        read_qrels(beir)


def test_run_tables_in_csv_with_score_or_rank(tmp_path):
    scored = tmp_path / "run.csv"
    scored.write_text("query_id,doc_id,score\n" + "".join(
        f"{q},{d},{10 - i}\n" for q, docs in TINY_RUN.items() for i, d in enumerate(docs)))
    assert read_run(scored) == {q: {d: float(10 - i) for i, d in enumerate(docs)} for q, docs in TINY_RUN.items()}
    ranked = tmp_path / "ranked.csv"
    ranked.write_text("qid,docid,rank\n" + "".join(
        f"{q},{d},{i}\n" for q, docs in TINY_RUN.items() for i, d in reversed(list(enumerate(docs, 1)))))
    assert read_table_run(ranked) == TINY_RUN
    qrels, _ = tiny_files(tmp_path)
    for path in (scored, ranked):
        code, out, err = run_cli("evaluate", "--qrels", qrels, "--run", path, "-m", "mrr", "--format", "json")
        assert code == 0, err
        assert json.loads(out)["mean"]["mrr"] == pytest.approx(TINY_MRR)
    ranked.write_text("query_id,doc_id,rank\nq1,a,1\nq1,b,1\n")
    with pytest.raises(ValueError, match=r"ranked.csv:3: query 'q1' has two documents at rank 1"):
        read_run(ranked)
    ranked.write_text("query_id,doc_id,text\nq1,a,x\n")
    with pytest.raises(ValueError, match="ranked.csv: no score or rank column"):
        read_table_run(ranked, format="csv")


def test_run_tables_in_parquet(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    rows = [(q, d, 10.0 - i) for q, docs in TINY_RUN.items() for i, d in enumerate(docs)]
    table = pa.table({"query_id": [r[0] for r in rows], "doc_id": [r[1] for r in rows],
                      "score": [r[2] for r in rows], "text": ["..."] * len(rows)})
    path = tmp_path / "run.parquet"
    pq.write_table(table, path)
    assert read_run(path) == {q: {d: 10.0 - i for i, d in enumerate(docs)} for q, docs in TINY_RUN.items()}
    qrels, _ = tiny_files(tmp_path)
    code, out, err = run_cli("evaluate", "--qrels", qrels, "--run", path, "-m", "mrr", "--format", "json")
    assert code == 0, err
    assert json.loads(out)["mean"]["mrr"] == pytest.approx(TINY_MRR)
    pq.write_table(pa.table({"query_id": ["q1"], "doc_id": ["a"], "score": [float("nan")]}), path)
    with pytest.raises(ValueError, match=r"run.parquet: row 1: the score nan must be a finite number|row 1:.*nan"):
        read_run(path)


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="named pipes are POSIX")
def test_a_pipe_such_as_process_substitution(tmp_path):
    import os
    import threading

    qrels, run = tiny_files(tmp_path)
    fifo = tmp_path / "run.pipe"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(gzip.compress(run.read_bytes())))
    writer.start()
    code, out, err = run_cli("evaluate", "--qrels", qrels, "--run", fifo, "-m", "mrr", "--format", "json")
    writer.join()
    assert code == 0, err
    assert json.loads(out)["mean"]["mrr"] == pytest.approx(TINY_MRR)
    one_line_error(*run_cli("evaluate", "--qrels", tmp_path, "--run", run), "is a folder")
