"""The command line's vocabulary: one spelling per concept, and the old spellings kept as deprecated aliases.

:data:`CONCEPTS` names the spelling of every concept that several commands share or that once had several
spellings; :data:`SYNONYMS` maps every other spelling of such a concept (old or merely likely) to it, and
:func:`concept_of` reads any option string into its concept (a spelling the tables do not name is its own concept,
its ``-dir``/``-file``/``-path`` suffix and plural ``s`` left out, so ``--output-dir`` and ``--outputs`` both read
as ``output``). ``tests/test_cli_vocabulary.py`` walks every subcommand's parser and fails when one concept has two
live spellings. :func:`add_deprecated` declares an old spelling: it still works, and says once on stderr which
spelling replaces it.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from typing import Any, NamedTuple

__all__ = ["Concept", "CONCEPTS", "SYNONYMS", "concept_of", "add_deprecated", "DeprecatedAlias", "subparsers",
           "option_spellings"]


class Concept(NamedTuple):
    """A concept of the command line: its one spelling and what it means."""

    spelling: str
    meaning: str


CONCEPTS: dict[str, Concept] = {
    "output": Concept("--output", "where the report goes: a file (evaluate, compare, answers, judge, meta-eval, "
                                  "generate) or a folder (bench, demo); -o for short"),
    "cache": Concept("--cache-dir", "the folder of every cache (embeddings, judge and LLM replies); default the "
                                    "shared user cache folder for embeddings"),
    "judge model": Concept("--judge-model", "the LLM judge's model"),
    "judge endpoint": Concept("--judge-base-url", "the LLM judge's OpenAI-compatible server"),
    "judge key": Concept("--judge-api-key-env", "the variable holding the judge's API key"),
    "llm model": Concept("--llm-model", "the chat model that writes (questions, answers)"),
    "llm endpoint": Concept("--llm-base-url", "the chat model's OpenAI-compatible server"),
    "llm key": Concept("--llm-api-key-env", "the variable holding the chat model's API key"),
    "embedder": Concept("--embedder", "the embedding model (semantic similarity)"),
    "embedder endpoint": Concept("--embedder-base-url", "the embedder's OpenAI-compatible server"),
    "metric": Concept("--metric", "a metric to compute or measure, -m for short (judged metrics too)"),
    "human labels": Concept("--human-labels", "a JSONL file of human labels ({query_id, <name>: value})"),
    "documents": Concept("--documents", "the documents: a folder of text files or a JSONL"),
    "judge": Concept("--judge", "bench: also judge the answers with the LLM judge (a flag)"),
    "candidate": Concept("--candidate", "gate: the candidate's report.json or run, gated against --baseline"),
    "rerank candidates": Concept("--candidates", "bench: how many candidates are retrieved for reranking"),
}
"""concept -> its spelling and meaning."""

SYNONYMS: dict[str, str] = {
    "--output-dir": "output", "--out": "output", "--out-dir": "output", "--output-file": "output",
    "--report": "output", "--report-dir": "output",
    "--cache": "cache", "--cache-file": "cache", "--cache-path": "cache", "--cache-folder": "cache",
    "--judge-base": "judge endpoint", "--judge-url": "judge endpoint", "--judge-key-env": "judge key",
    "--judge-api-key": "judge key", "--llm-url": "llm endpoint", "--llm-key-env": "llm key",
    "--model": "llm model", "--base-url": "embedder endpoint", "--embedding-model": "embedder",
    "--embed-model": "embedder", "--embedder-url": "embedder endpoint", "--metrics": "metric",
    "--labels": "human labels", "--labels-file": "human labels", "--corpus": "documents", "--docs": "documents",
    "--by": "group by", "--group": "group by",
}
"""another spelling -> the concept it would mean (old spellings and likely drift)."""

_SUFFIXES = ("-dir", "-file", "-path", "-folder")


def concept_of(option: str) -> str:
    """The concept an option string means: :data:`SYNONYMS` or :data:`CONCEPTS` when they name it, else the
    option without ``--``, a ``-dir``/``-file``/``-path``/``-folder`` suffix and a plural ``s``."""
    if option in SYNONYMS:
        return SYNONYMS[option]
    for concept, known in CONCEPTS.items():
        if known.spelling == option:
            return concept
    stem = option.lstrip("-")
    for suffix in _SUFFIXES:
        if stem.endswith(suffix) and len(stem) > len(suffix):
            stem = stem[: -len(suffix)]
            break
    if stem.endswith("s") and not stem.endswith("ss") and len(stem) > 3:
        stem = stem[:-1]
    stem = stem.replace("-", " ")
    for concept, known in CONCEPTS.items():  # "--outputs", "--output-dirs": the concept of --output
        if known.spelling.lstrip("-").replace("-", " ") == stem:
            return concept
    return stem


class DeprecatedAlias(argparse.Action):
    """The base of every deprecated spelling's action: the first use prints ``rag-eval: warning: OLD is
    deprecated; use NEW`` on stderr (once per run, however often it is given), then the action does what the new
    spelling does."""

    replacement = ""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        warned: set[str] = namespace.__dict__.setdefault("deprecated_options", set())
        if option_string not in warned:
            warned.add(str(option_string))
            import sys

            print(f"rag-eval: warning: {option_string} is deprecated; use {self.replacement}", file=sys.stderr)
        super().__call__(parser, namespace, values, option_string)  # type: ignore[misc]


_ACTIONS: dict[str, type[argparse.Action]] = {
    "store": argparse._StoreAction, "append": argparse._AppendAction, "store_true": argparse._StoreTrueAction,
}


def add_deprecated(parser: argparse.ArgumentParser, old: str, new: str, *, dest: str, action: str = "store",
                   default: Any = argparse.SUPPRESS, **kwargs: Any) -> argparse.Action:
    """Declare ``old`` as a deprecated spelling of ``new`` storing into ``dest`` (``action``: store, append or
    store_true, as the new spelling's; ``default`` only where no live option shares ``dest``); hidden from
    ``--help``, listed in docs/cli.md."""
    base = _ACTIONS[action]
    cls = type(f"Deprecated{base.__name__.strip('_')}", (DeprecatedAlias, base), {"replacement": new})
    return parser.add_argument(old, action=cls, dest=dest, default=default, help=argparse.SUPPRESS, **kwargs)


def subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """``{command: its parser}`` of ``rag-eval``'s parser."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def option_spellings(parser: argparse.ArgumentParser) -> Iterator[tuple[str, str, argparse.Action]]:
    """``(command, long spelling, action)`` of every option of every command (``--help`` left out)."""
    for command, sub in subparsers(parser).items():
        for action in sub._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            for spelling in action.option_strings:
                if spelling.startswith("--"):
                    yield command, spelling, action
