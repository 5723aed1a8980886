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


PLUGIN = ("-p", "rag_eval_adapters.gate.pytest_plugin", "-p", "no:cacheprovider")


@pytest.fixture
def team(pytester, monkeypatch):
    """A team's test file, run with the plugin given by ``-p`` (entry points not loaded, so the plugin is loaded
    once whether or not the package is installed with its entry point)."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makepyfile(test_team=TEAM_TESTS)
    return pytester


def test_a_regression_fails_with_the_gates_explanation_and_inconclusive_fails(team):
    result = team.runpytest_inprocess(*PLUGIN)
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines(["*test_regressed*", "*Gate FAIL: candidate vs baseline: 1 fail (ndcg@10)*",
                                 "*ndcg@10: FAIL*worse by more than the margin*"])
    result.stdout.fnmatch_lines(["*Gate INCONCLUSIVE*", "*ndcg@10: INCONCLUSIVE*more questions are needed*"])


def test_inconclusive_skips_when_asked_on_the_command_line_or_in_the_ini(team):
    result = team.runpytest_inprocess(*PLUGIN, "--rag-gate-inconclusive=skip", "-rs")
    result.assert_outcomes(passed=2, failed=1, skipped=1)
    result.stdout.fnmatch_lines(["*SKIPPED*Gate INCONCLUSIVE*"])
    team.makeini("[pytest]\nrag_gate_inconclusive = skip\n")
    result = team.runpytest_inprocess(*PLUGIN)
    result.assert_outcomes(passed=2, failed=1, skipped=1)


def test_the_plugin_is_declared_as_a_pytest11_entry_point():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    pyproject = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text("utf-8"))
    assert pyproject["project"]["entry-points"]["pytest11"] == {"rag_gate": "rag_eval_adapters.gate.pytest_plugin"}


def test_the_pytest11_entry_point_loads_the_fixture_without_any_option(pytester, tmp_path, monkeypatch):
    """An installed package's entry point, as pip writes it (a dist-info on the path), loads the plugin."""
    import importlib.metadata

    if any(ep.name == "rag_gate" for ep in importlib.metadata.entry_points(group="pytest11")):
        site = None  # installed with its entry point already (CI's fresh install)
    else:
        site = tmp_path / "site"
        info = site / "rag_gate_entry_point-0.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text("Metadata-Version: 2.1\nName: rag-gate-entry-point\nVersion: 0\n")
        (info / "entry_points.txt").write_text("[pytest11]\nrag_gate = rag_eval_adapters.gate.pytest_plugin\n")
        monkeypatch.syspath_prepend(str(site))
    monkeypatch.delenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", raising=False)
    pytester.makepyfile(test_team=TEAM_TESTS)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-k", "unchanged or regressed")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*Gate FAIL*"])
