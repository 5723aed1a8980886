"""One spelling per concept across every ``rag-eval`` command (issue 29, point 6).

The tests walk each subcommand's parser (its argparse actions): no concept has two live spellings, a spelling is a
flag everywhere or takes a value everywhere, every command using a judge has the three judge options, and every
deprecated spelling still works and says once, on one stderr line, which spelling replaces it.
"""

from __future__ import annotations

import argparse
import io
from collections import defaultdict

import pytest
from cli_support import run_cli

from rag_eval_adapters.cli import build_parser, main
from rag_eval_adapters.cli._vocabulary import (
    CONCEPTS,
    DeprecatedAlias,
    concept_of,
    option_spellings,
    subparsers,
)


def drift(parser: argparse.ArgumentParser) -> list[str]:
    """Every breach of the vocabulary in ``parser``'s commands (empty: none)."""
    live: dict[str, set[str]] = defaultdict(set)
    kinds: dict[str, set[bool]] = defaultdict(set)
    for _command, spelling, action in option_spellings(parser):
        if isinstance(action, DeprecatedAlias):
            continue
        live[concept_of(spelling)].add(spelling)
        kinds[spelling].add(action.nargs == 0)
    problems = [f"{concept}: {' and '.join(sorted(s))}" for concept, s in live.items() if len(s) > 1]
    problems += [f"{concept}: spelled {sorted(s)[0]}, not {CONCEPTS[concept].spelling}" for concept, s in live.items()
                 if concept in CONCEPTS and len(s) == 1 and CONCEPTS[concept].spelling not in s]
    problems += [f"{spelling} is a flag in one command and takes a value in another" for spelling, k in kinds.items()
                 if len(k) > 1]
    return problems


def test_every_concept_has_one_spelling_across_the_commands():
    assert drift(build_parser()) == []


def test_the_walk_finds_two_spellings_of_one_concept_and_a_flag_that_takes_a_value_elsewhere():
    parser = argparse.ArgumentParser(prog="rag-eval")
    sub = parser.add_subparsers()
    one, two = sub.add_parser("one"), sub.add_parser("two")
    one.add_argument("--output")
    two.add_argument("--output-dir")
    one.add_argument("--cache")  # the old spelling of --cache-dir, live
    one.add_argument("--judge", action="store_true")
    two.add_argument("--judge")
    found = drift(parser)
    assert "output: --output and --output-dir" in found
    assert "cache: spelled --cache, not --cache-dir" in found
    assert "--judge is a flag in one command and takes a value in another" in found


@pytest.mark.parametrize("spelling, concept", [("--outputs", "output"), ("--cache-file", "cache"),
                                               ("--labels", "human labels"), ("--corpus", "documents"),
                                               ("--base-url", "embedder endpoint"), ("--label", "label")])
def test_a_spelling_is_read_into_its_concept(spelling, concept):
    assert concept_of(spelling) == concept


def test_every_command_that_uses_a_judge_has_the_three_judge_options():
    for command, sub in subparsers(build_parser()).items():
        options = {s for a in sub._actions for s in a.option_strings}
        if "--judge-model" in options:
            assert {"--judge-base-url", "--judge-api-key-env"} <= options, command


def test_every_command_writing_a_report_or_a_cache_spells_it_output_and_cache_dir():
    commands = subparsers(build_parser())
    for command, sub in commands.items():
        live = {s for a in sub._actions if not isinstance(a, DeprecatedAlias) for s in a.option_strings}
        assert "--output" in live and "-o" in live, command
        assert not {"--output-dir", "--cache"} & live, command
    assert {c for c, sub in commands.items() if "--cache-dir" in {s for a in sub._actions for s in a.option_strings}} \
        == {"generate", "answers", "judge", "bench", "demo", "meta-eval"}


def deprecated_aliases() -> list[tuple[str, str, DeprecatedAlias]]:
    return [(c, s, a) for c, s, a in option_spellings(build_parser()) if isinstance(a, DeprecatedAlias)]


def test_the_deprecated_spellings_are_the_old_ones():
    assert {(c, s) for c, s, _ in deprecated_aliases()} == {
        ("demo", "--output-dir"), ("generate", "--corpus"), ("generate", "--cache"), ("answers", "--cache"),
        ("answers", "--base-url"), ("judge", "--cache"), ("meta-eval", "--cache"), ("meta-eval", "--labels"),
        ("meta-eval", "--judge"), ("meta-eval", "--base-url")}


REQUIRED = {"generate": ["--llm-model", "m"], "answers": ["--predictions", "p.jsonl"],
            "judge": ["--input", "a.jsonl", "--judge-model", "m"], "meta-eval": ["--builtin", "ragchecker"],
            "bench": ["--documents", "docs", "--output", "out"]}


@pytest.mark.parametrize("command, spelling, action", deprecated_aliases(),
                         ids=[f"{c} {s}" for c, s, _ in deprecated_aliases()])
def test_a_deprecated_spelling_works_and_warns_once_naming_the_new_one(command, spelling, action, capsys):
    sub = subparsers(build_parser())[command]
    value = [] if action.nargs == 0 else ["x.sqlite"]
    args = sub.parse_args([*REQUIRED.get(command, []), spelling, *value, spelling, *value])
    warnings = [line for line in capsys.readouterr().err.splitlines() if line.startswith("rag-eval: warning:")]
    assert warnings == [f"rag-eval: warning: {spelling} is deprecated; use {action.replacement}"]
    stored = getattr(args, action.dest)
    assert stored == (["x.sqlite", "x.sqlite"] if isinstance(stored, list) else "x.sqlite")
    new = action.replacement.split("/")[-1]
    assert any(new in a.option_strings for a in sub._actions if not isinstance(a, DeprecatedAlias))


def test_an_old_spelling_through_the_command_warns_on_one_line_then_runs(tmp_path):
    code, _, err = run_cli("demo", "--output-dir", tmp_path / "d", "--output-dir", tmp_path / "d",
                           "--permutations", "0")
    assert code == 2 and err == ("rag-eval: warning: --output-dir is deprecated; use --output\n"
                                 "rag-eval: error: --permutations must be a positive integer, got 0\n")


def test_an_unexpected_failure_keeps_its_traceback_and_an_expected_one_is_one_line(tmp_path, monkeypatch):
    import rag_eval_adapters.cli.demo as demo

    def broken(args, stdout, stderr):
        raise RuntimeError("a bug")

    parser = build_parser()
    monkeypatch.setattr("rag_eval_adapters.cli.build_parser", lambda: parser)
    subparsers(parser)["demo"].set_defaults(func=broken)
    with pytest.raises(RuntimeError, match="a bug"):
        main(["demo"], stdout=io.StringIO(), stderr=io.StringIO())

    def bad_value(args, stdout, stderr):
        raise ValueError("line 3 of x.jsonl:\n  no query_id")

    subparsers(parser)["demo"].set_defaults(func=bad_value)
    err = io.StringIO()
    assert main(["demo"], stdout=io.StringIO(), stderr=err) == 2
    assert err.getvalue() == "rag-eval: error: line 3 of x.jsonl: no query_id\n"
    assert demo.cmd_demo is not broken


def test_docs_cli_md_names_every_option_and_every_deprecated_spelling():
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "cli.md").read_text(encoding="utf-8")
    missing = sorted({s for _, s, _ in option_spellings(build_parser()) if f"`{s}" not in text})
    assert missing == [], "regenerate the table of docs/cli.md with: python tools/cli_vocabulary.py --markdown"
