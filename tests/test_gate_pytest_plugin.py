"""The pytest plugin: ``rag_gate.check`` in a team's test makes the gate's decision and explains a failure."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

TEAM_TESTS = '''
import json, pathlib

BASE = {f"q{i}": {"ndcg@10": 0.4 + 0.05 * (i % 9)} for i in range(60)}

def shifted(delta, every=1):
    return {q: {"ndcg@10": v["ndcg@10"] + (delta if i % every == 0 else 0.0)} for i, (q, v) in enumerate(BASE.items())}

def test_unchanged(rag_gate):
    decision = rag_gate.check(BASE, BASE, {"ndcg@10": 0.02})
    assert decision.outcome == "pass"

def test_regressed(rag_gate):
    rag_gate.check(shifted(-0.3, every=2), BASE, {"ndcg@10": 0.02})

def test_unclear(rag_gate):
    few = dict(list(BASE.items())[:4])
    cand = {q: {"ndcg@10": v["ndcg@10"] + d} for (q, v), d in zip(few.items(), (0.1, -0.1, 0.05, -0.08))}
    rag_gate.check(cand, few, ["ndcg@10:0.02"])

def test_from_report_files(rag_gate, tmp_path):
    path = tmp_path / "base.json"
    path.write_text(json.dumps({"mean": {"ndcg@10": 0.5}, "per_query": BASE}))
    rag_gate.check(str(path), str(path), {"ndcg@10": None})
'''


def test_a_regression_fails_with_the_gates_explanation_and_inconclusive_fails(pytester):
    pytester.makepyfile(test_team=TEAM_TESTS)
    result = pytester.runpytest_inprocess("-p", "rag_eval_adapters.gate.pytest_plugin", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines(["*test_regressed*", "*Gate FAIL: candidate vs baseline: 1 fail (ndcg@10)*",
                                 "*ndcg@10: FAIL*worse by more than the margin*"])
    result.stdout.fnmatch_lines(["*Gate INCONCLUSIVE*", "*ndcg@10: INCONCLUSIVE*more questions are needed*"])


def test_inconclusive_skips_when_asked_on_the_command_line_or_in_the_ini(pytester):
    pytester.makepyfile(test_team=TEAM_TESTS)
    result = pytester.runpytest_inprocess("-p", "rag_eval_adapters.gate.pytest_plugin", "-p", "no:cacheprovider",
                                          "--rag-gate-inconclusive=skip", "-rs")
    result.assert_outcomes(passed=2, failed=1, skipped=1)
    result.stdout.fnmatch_lines(["*SKIPPED*Gate INCONCLUSIVE*"])
    pytester.makeini("[pytest]\nrag_gate_inconclusive = skip\n")
    result = pytester.runpytest_inprocess("-p", "rag_eval_adapters.gate.pytest_plugin", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=1, skipped=1)


def test_the_plugin_is_declared_as_a_pytest11_entry_point():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    pyproject = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text("utf-8"))
    assert pyproject["project"]["entry-points"]["pytest11"] == {"rag_gate": "rag_eval_adapters.gate.pytest_plugin"}
