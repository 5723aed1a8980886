"""Judged metrics gate too: an unchanged re-run reuses the cached judgments (0 requests) and passes the gate."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("openai")

from cli_support import run_cli


def _answers(n):
    rows = []
    for i in range(n):
        fact = f"Item {i} is stored in room {i % 7}."
        answer = fact if i % 4 else f"{fact} It is painted blue."  # every fourth answer adds an unsupported claim
        rows.append({"query_id": f"q{i}", "question": f"Where is item {i}?", "answer": answer, "contexts": [fact],
                     "reference": fact})
    return rows


def test_an_unchanged_rerun_sends_no_request_and_passes(judge_server, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", judge_server.api_key)
    path = tmp_path / "answers.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in _answers(24)))
    judge = ("judge", "--input", path, "--judge-model", "judge-model", "--judge-base-url", judge_server.base_url,
             "-m", "faithfulness", "--cache", tmp_path / "judge.sqlite", "--format", "json")
    code, _, err = run_cli(*judge, "-o", tmp_path / "baseline.json")
    assert code == 0, err
    sent = len(judge_server.chat_requests)
    assert sent > 0
    code, _, err = run_cli(*judge, "-o", tmp_path / "candidate.json")
    assert code == 0, err
    assert len(judge_server.chat_requests) == sent  # every judgment came from the cache
    code, out, err = run_cli("gate", "--baseline", tmp_path / "baseline.json", "--candidate",
                             tmp_path / "candidate.json", "-m", "faithfulness:0.03", "--format", "json")
    decision = json.loads(out)
    assert code == 0, err
    assert decision["metrics"][0]["n"] == 24 and decision["metrics"][0]["difference"] == 0.0
    assert decision["metrics"][0]["baseline_mean"] == pytest.approx(0.875)  # 6 of 24 answers half supported
