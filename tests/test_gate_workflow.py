"""examples/gate/rag-eval-gate.yml: its rag-eval commands run as written on the files it ships, and the same
commands fail a regressed run."""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path

import pytest
from cli_support import run_cli

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = ROOT / "examples" / "gate" / "rag-eval-gate.yml"


def _commands():
    steps = yaml.safe_load(WORKFLOW.read_text("utf-8"))["jobs"]["gate"]["steps"]
    lines = [line for step in steps if "run" in step for line in step["run"].splitlines()]
    return [shlex.split(line) for line in lines if line.startswith("rag-eval ")]


@pytest.fixture
def checkout(tmp_path, monkeypatch):
    """A copy of the example's files where the workflow's checkout has them, as the working folder."""
    shutil.copytree(ROOT / "examples" / "gate", tmp_path / "examples" / "gate")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    return tmp_path


def test_the_workflows_commands_pass_the_shipped_candidate(checkout):
    commands = _commands()
    assert [c[1] for c in commands] == ["evaluate", "gate"]
    for command in commands:
        code, out, err = run_cli(*command[1:])
        assert code == 0, (command, out, err)
    assert (checkout / "gate.md").read_text("utf-8").startswith("### rag-eval gate: ✅ pass")
    assert (checkout / "gate.xml").exists() and (checkout / "gate.json").exists()


def test_the_same_commands_fail_a_regressed_run(checkout):
    run = checkout / "examples" / "gate" / "candidate.trec"
    lines = run.read_text("utf-8").splitlines()
    worse = [line for i, line in enumerate(lines) if not ("a " in line.split(" Q0 ")[1] and i % 3 == 0)]
    run.write_text("\n".join(worse) + "\n", encoding="utf-8")  # a third of the best documents lost
    codes = [run_cli(*command[1:])[0] for command in _commands()]
    assert codes == [0, 1]
    assert "❌ fail" in (checkout / "gate.md").read_text("utf-8")
