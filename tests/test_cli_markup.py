"""Text that reaches rich is printed as written, never read as console markup (issue 21, item 25).

A query id, group value, run name, configuration name or file name such as ``[/]`` used to end the command
with rich's ``MarkupError`` (exit 1), and ``[bold red]x`` printed as a bold red ``x``.
"""

from __future__ import annotations

import io

import pytest
from bench_helpers import write_bench_files
from cli_support import run_cli, write_jsonl

from rag_eval_adapters.cli import main

IDS = ["[/]", "[bold]x", "plain"]  # TREC ids have no spaces


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _files(tmp_path):
    qrels = tmp_path / "q[dim].qrels"
    run = tmp_path / "run[bold red]x.trec"
    qrels.write_text("".join(f"{q} 0 d1 1\n" for q in IDS))
    run.write_text("".join(f"{q} Q0 d1 1 2.0 t\n{q} Q0 d2 2 1.0 t\n" for q in IDS))
    return qrels, run


@pytest.mark.parametrize("terminal", [False, True])
def test_evaluate_prints_query_ids_and_file_names_as_written(tmp_path, terminal, monkeypatch):
    monkeypatch.delenv("TQDM_DISABLE", raising=False)  # the progress display names the run file
    qrels, run = _files(tmp_path)
    out, err = (_Terminal(), _Terminal()) if terminal else (io.StringIO(), io.StringIO())
    code = main(["evaluate", "--qrels", str(qrels), "--run", str(run), "-m", "mrr", "--per-query"],
                stdout=out, stderr=err)
    assert code == 0, err.getvalue()
    for query_id in IDS:
        assert query_id in out.getvalue()
    assert "run[bold red]x" in out.getvalue()  # the table's title names the run
    if terminal:
        assert "scoring run[bold red]x" in err.getvalue()  # the transient progress display names it too


def test_compare_prints_run_names_as_written(tmp_path):
    qrels, run = _files(tmp_path)
    code, out, err = run_cli("compare", "--qrels", qrels, "--run", run, "--run", run, "--name", "[/]",
                             "--name", "[bold red]B", "-m", "mrr", "--permutations", "10", "--bootstrap", "10")
    assert code == 0, err
    assert "[/]" in out and "[bold red]B" in out


@pytest.mark.parametrize("terminal", [False, True])
def test_answers_prints_groups_and_query_ids_as_written(tmp_path, terminal):
    rows = [{"query_id": q, "prediction": "paris", "reference": "paris", "kind": f"{q}!"} for q in [*IDS, "[bold red]y"]]
    path = write_jsonl(tmp_path / "answers.jsonl", rows)
    out, err = (_Terminal(), _Terminal()) if terminal else (io.StringIO(), io.StringIO())
    code = main(["answers", "--predictions", str(path), "--group-by", "kind", "--per-query"], stdout=out, stderr=err)
    assert code == 0, err.getvalue()
    for query_id in [*IDS, "[bold red]y"]:
        assert query_id in out.getvalue() and f"{query_id}!" in out.getvalue()


def test_bench_prints_configuration_names_as_written(monkeypatch, tmp_path):
    pytest.importorskip("bm25s")
    pytest.importorskip("llama_index.core")
    from rag_eval_adapters.bench import RETRIEVERS, Component

    monkeypatch.setitem(RETRIEVERS, "[red]bm25", Component("BM25 under a bracketed name",
                                                           f"{__name__}:build_bracketed_bm25"))
    folder, testset = write_bench_files(tmp_path)
    code, out, err = run_cli("bench", "--documents", folder, "--testset", testset, "--chunking", "32:8",
                             "--retriever", "[red]bm25", "--skip-e2e", "--k", "1,3", "--permutations", "20",
                             "--output", tmp_path / "r")
    assert code == 0, err
    table_rows = [line for line in out.splitlines() if line.startswith("│")]
    assert any(line.split("│")[1].strip() == "s32o8/[red]bm25" for line in table_rows), out


def build_bracketed_bm25(embedder, depth):
    """A retriever registered by a test: BM25 named with console markup."""
    from rag_eval_adapters.bench import BM25Retriever

    retriever = BM25Retriever()
    retriever.name = "[red]bm25"
    return retriever
