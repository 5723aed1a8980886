"""Where the caches live (issue 30, items 17 and 18): never over an input or an output, and by default in one
folder shared by every run (``rag_eval_adapters.cachedir``), so a new report folder embeds nothing again."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from cli_support import run_cli

from rag_eval_adapters.cachedir import CACHE_DIR_ENV, default_cache_dir, describe_size, resolve_cache_dir

ANSWER = {"question": "What is Paris?", "answer": "Paris is the capital of France.",
          "contexts": ["Paris is the capital of France."], "reference": "Paris is the capital of France."}


@pytest.fixture
def answers(tmp_path):
    path = tmp_path / "answers.jsonl"
    path.write_text(json.dumps(ANSWER) + "\n", encoding="utf-8")
    return path


def judge(answers, server, *extra):
    return ("judge", "--input", answers, "--judge-model", "judge-model", "--judge-base-url", server.base_url, *extra)


def error_line(err: str) -> str:
    """The one error line (after a deprecation warning, if any); no traceback."""
    lines = [line for line in err.splitlines() if not line.startswith("rag-eval: warning:")]
    assert len(lines) == 1 and lines[0].startswith("rag-eval: error: "), err
    return lines[0]


def test_judge_refuses_its_input_as_the_cache_and_leaves_it_whole(judge_server, answers, monkeypatch):
    # before: a traceback (the JSONL opened as an SQLite database)
    monkeypatch.setenv("OPENAI_API_KEY", judge_server.api_key)
    before = answers.read_bytes()
    code, _, err = run_cli(*judge(answers, judge_server, "--cache", answers))
    assert code == 2 and f"--cache {answers} is an input file" in error_line(err)
    folder = answers.parent / "caches"
    folder.mkdir()
    inside = folder / "judge.sqlite"  # the file --cache-dir would write is the input
    inside.write_bytes(before)
    code, _, err = run_cli(*judge(inside, judge_server, "--cache-dir", folder))
    assert code == 2 and "--cache-dir" in error_line(err) and "is an input file" in err
    assert answers.read_bytes() == before and inside.read_bytes() == before and judge_server.chat_requests == []


def test_judge_refuses_one_file_as_both_the_cache_and_the_report(judge_server, answers, tmp_path, monkeypatch):
    # before: exit 0, the report written over the cache (or the cache over the report): one of them lost
    monkeypatch.setenv("OPENAI_API_KEY", judge_server.api_key)
    same = tmp_path / "out.json"
    code, _, err = run_cli(*judge(answers, judge_server, "--cache", same, "-o", same))
    assert code == 2 and "--output and --cache both name" in error_line(err)
    assert not same.exists() and judge_server.chat_requests == []


def test_a_cache_that_is_no_database_is_one_error_line(judge_server, answers, tmp_path, monkeypatch):
    # before: a traceback (CacheError reached main uncaught)
    monkeypatch.setenv("OPENAI_API_KEY", judge_server.api_key)
    folder = tmp_path / "c"
    folder.mkdir()
    (folder / "judge.sqlite").write_text("not a database\n" * 50, encoding="utf-8")
    code, _, err = run_cli(*judge(answers, judge_server, "--cache-dir", folder))
    assert code == 2 and "is not a usable SQLite database" in error_line(err)


def test_a_cache_folder_may_not_be_a_file_nor_inside_an_input_folder(bench_inputs, answers, judge_server, tmp_path):
    docs, testset = bench_inputs
    code, _, err = run_cli(*judge(answers, judge_server, "--cache-dir", answers))
    assert code == 2 and "is a file, not a folder" in error_line(err)
    code, _, err = run_cli("bench", "--documents", docs, "--testset", testset, "--retriever", "bm25", "--skip-e2e",
                           "--cache-dir", docs / "cache", "--output", tmp_path / "r")
    assert code == 2 and "is inside the input folder" in error_line(err)
    assert sorted(p.name for p in docs.iterdir()) == sorted(p.name for p in docs.iterdir() if p.is_file())


def test_the_default_cache_folder_rule(tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    assert default_cache_dir({}) == home / ".cache" / "rag-eval-adapters"
    assert default_cache_dir({"XDG_CACHE_HOME": str(tmp_path / "xdg")}) == tmp_path / "xdg" / "rag-eval-adapters"
    assert default_cache_dir({"XDG_CACHE_HOME": "relative/xdg"}) == home / ".cache" / "rag-eval-adapters"
    own = {CACHE_DIR_ENV: str(tmp_path / "own"), "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    assert default_cache_dir(own) == tmp_path / "own"
    assert default_cache_dir({CACHE_DIR_ENV: " ", "XDG_CACHE_HOME": str(tmp_path / "x")}) == tmp_path / "x" / \
        "rag-eval-adapters"
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path / "env"))
    assert default_cache_dir() == tmp_path / "env" and resolve_cache_dir(None) == tmp_path / "env"
    assert resolve_cache_dir(tmp_path / "given") == tmp_path / "given"
    assert [describe_size(n) for n in (0, 999, 1000, 1_234_567, 5 * 10**9)] == ["0 B", "999 B", "1.0 kB", "1.2 MB",
                                                                               "5.0 GB"]


def test_the_tests_never_touch_the_users_cache():
    folder = Path(os.environ[CACHE_DIR_ENV])
    real = Path.home() / ".cache" / "rag-eval-adapters"
    assert folder.is_dir() and default_cache_dir() == folder and real not in (folder, *folder.parents)


def plan(err: str) -> str:
    return next(line for line in err.splitlines() if line.startswith("rag-eval: plan: "))


def test_a_new_report_folder_embeds_nothing_again_and_the_plan_says_where_the_cache_is(bench_inputs, tmp_path,
                                                                                       monkeypatch):
    # before: the cache lived in OUTPUT/.cache, so a second report folder embedded every text again
    docs, testset = bench_inputs
    shared = tmp_path / "shared"
    monkeypatch.setenv(CACHE_DIR_ENV, str(shared))
    argv = ("bench", "--documents", docs, "--testset", testset, "--chunking", "32:8", "--retriever", "e5",
            "--skip-e2e", "--permutations", "100")
    code, _, err = run_cli(*argv, "--output", tmp_path / "first")
    assert code == 0, err
    first = plan(err)
    total = int(re.search(r"to embed for dense retrieval: (\d+) texts", first).group(1))
    assert "0 of them already cached" in first and f"cache {shared / 'embeddings.sqlite'} (" in first
    assert re.search(r"embeddings\.sqlite \([\d.]+ k?B on disk, 0 entries\)", first)  # a new, empty database
    assert not (tmp_path / "first" / ".cache" / "embeddings.sqlite").exists()
    code, _, err = run_cli(*argv, "--output", tmp_path / "second")
    assert code == 0, err
    second = plan(err)
    assert f"{total} of them already cached" in second
    size = re.search(r"embeddings\.sqlite \(([\d.]+) (k?B) on disk, (\d+) entries\)", second)
    assert int(size.group(3)) == total  # one entry a text (keyed by model): every text of the first run
    assert float(size.group(1)) * (1000 if size.group(2) == "kB" else 1) >= 1000  # the vectors, on disk
    assert json.loads((tmp_path / "second" / "report.json").read_text())["usage"]["embeddings"]["computed"] == 0
    code, _, err = run_cli(*argv, "--output", tmp_path / "third", "--cache-dir", tmp_path / "own")
    assert code == 0 and "0 of them already cached" in plan(err) and (tmp_path / "own" / "embeddings.sqlite").exists()
