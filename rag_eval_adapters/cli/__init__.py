"""The ``rag-eval`` command: score retrieval runs against judgments, compare runs, run the demo.

``rag-eval evaluate``  scores one run (TREC or JSONL) against qrels (TREC or JSONL).
``rag-eval compare``   scores several runs and tests every pair for significant differences.
``rag-eval generate``  writes a test set (questions, answers, evidence, relevant chunk ids) from a
                       corpus with an OpenAI-compatible LLM.
``rag-eval answers``   scores generated answers against reference answers (EM, F1, ROUGE-L, similarity).
``rag-eval judge``     judges answers with an LLM (faithfulness, answer correctness, context relevance),
                       a score or an unmeasured reason for every answer.
``rag-eval bench``     benchmarks chunkings x retrievers (x rerankers) on a test set, by query type,
                       with answers, significance tests and a report folder.
``rag-eval demo``      the same benchmark, offline, on documents and a typed test set shipped with
                       the package.
``rag-eval meta-eval`` measures how far answer scorers agree with human labels (RAGChecker's 560 shipped
                       with the package), beside trivial baselines and the annotator-vs-annotator ceiling.

Every expected failure (missing file, malformed line, unknown metric, no overlap between run and
qrels) prints one line ``rag-eval: error: ...`` on stderr and exits with status 2: the commands raise, and
:func:`main` alone turns an exception into its message and exit status (``_errors.error_message``). Option
spellings follow one vocabulary (``_vocabulary.CONCEPTS``); an old spelling still works and warns once.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from .. import __version__
from ._errors import CLIError, error_message
from ._progress import progress_enabled

__all__ = ["main", "build_parser", "CLIError", "progress_enabled", "COMMANDS"]

COMMANDS = ("evaluate", "compare", "generate", "answers", "judge", "bench", "demo", "meta-eval", "gate", "traces")
"""The subcommands, each a module of this package (``-`` read as ``_``): its docstring's first line is the
command's help, the rest its description, and ``add_arguments(parser)`` declares its options (and the function
that runs it, as ``func``)."""


def add_command(sub: Any, name: str) -> argparse.ArgumentParser:
    """The subparser of command ``name``, with the help and description of its module's docstring and the options
    its ``add_arguments`` declares."""
    module = importlib.import_module(f"{__name__}.{name.replace('-', '_')}")
    summary, _, details = inspect.cleandoc(module.__doc__ or "").partition("\n\n")
    summary = summary.rstrip(".")
    if summary[:2].istitle():  # "Score ..." reads "score ..." in the list of commands; "LLM-judged ..." stays
        summary = summary[0].lower() + summary[1:]
    parser = sub.add_parser(name, help=summary, description=" ".join(details.split()) or None)
    module.add_arguments(parser)
    return parser


def build_parser() -> argparse.ArgumentParser:
    """The ``rag-eval`` argument parser, one subcommand per module named in :data:`COMMANDS`."""
    parser = argparse.ArgumentParser(
        prog="rag-eval",
        description="Score retrieval runs against relevance judgments, with trec_eval-exact metrics.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMANDS:
        add_command(sub, name)
    return parser


def main(argv: Sequence[str] | None = None, *, stdout: TextIO | None = None,
         stderr: TextIO | None = None) -> int:
    """Run ``rag-eval`` with ``argv`` (default ``sys.argv[1:]``); returns the exit status."""
    stdout = stdout if stdout is not None else sys.stdout
    stderr = stderr if stderr is not None else sys.stderr
    parser = build_parser()
    try:
        old_out, old_err = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = stdout, stderr  # argparse prints usage/errors to sys.*
        try:
            args = parser.parse_args(list(argv) if argv is not None else None)
        finally:
            sys.stdout, sys.stderr = old_out, old_err
    except SystemExit as exc:
        return int(exc.code or 0) if not isinstance(exc.code, str) else 2
    try:
        return args.func(args, stdout, stderr)
    except (Exception, KeyboardInterrupt) as exc:  # one mapping from exceptions to messages: _errors.error_message
        handled = error_message(exc)
        if handled is None:
            raise
        message, status = handled
        if message is not None:
            print(message, file=stderr)
        return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
