"""examples/rerank_relevancy.py runs offline, and with Cohere (here: the local rerank server) when a key is set."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "rerank_relevancy.py"


def run(env: dict[str, str], *args: str) -> str:
    base = {k: v for k, v in os.environ.items() if k not in ("COHERE_API_KEY", "CO_API_KEY", "CO_API_URL")}
    proc = subprocess.run([sys.executable, str(EXAMPLE), *args], env={**base, **env}, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_example_runs_offline_without_a_key():
    out = run({})
    assert "LexicalScorer" in out and "CohereReranker" not in out
    rows = {tuple(line.split()[:2]): line.split()[2:] for line in out.splitlines() if line.startswith(("good", "poor"))}
    assert float(rows[("good", "max")][-1]) > float(rows[("poor", "max")][-1])
    assert rows[("poor", "max")][2] == "0.000"  # the empty retrieval scores 0
    assert "set COHERE_API_KEY" in out


def test_example_uses_cohere_when_a_key_is_set(cohere_server, tmp_path):
    pytest.importorskip("cohere")
    env = {"COHERE_API_KEY": cohere_server.api_key, "CO_API_URL": cohere_server.url}
    out = run(env, "--cache", str(tmp_path / "c.sqlite"))
    assert "CohereReranker(model='rerank-v3.5'" in out and "ERR" not in out
    # 2 retrievers x 3 aggregations x 3 queries, minus the empty retrieval; the cache sends each query once
    assert len(cohere_server.rerank_requests) == 5
    assert "5 requests, 5 search units billed" in out
