"""What the ``rag-eval`` commands read and write, and the checks made before any work.

* inputs: TREC, JSONL, CSV/TSV (BEIR qrels) or Parquet, maybe gzip-compressed, or ``-`` for standard
  input (:mod:`rag_eval_adapters.readers`);
* outputs: ``--output``, ``--plot``, ``--details`` and every cache file (``--cache-dir``, the deprecated
  ``--cache FILE``, or the default) never name an input file (nor each other), their folder must exist, and the
  report's format follows the ``--output`` extension unless ``--format`` is given: :func:`check_outputs`, the one
  check of every command;
* option values (counts, seeds, cutoffs, the confidence level) are checked first, naming the option;
* queries that could not be scored make the command fail unless ``--allow-errors``.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ._errors import CLIError, one_line
from ._vocabulary import add_deprecated

STDIN = "-"
FORMAT_BY_SUFFIX = {".json": "json", ".csv": "csv", ".md": "markdown", ".markdown": "markdown", ".html": "html",
                    ".htm": "html", ".txt": "table", "": "table"}
MAX_RESAMPLES = 10_000_000
MAX_K = 1_000_000_000


def check_inputs(inputs: Sequence[tuple[str, str]]) -> None:
    """Every ``(path, what)`` names a file or ``-`` (standard input, for one input at most)."""
    if sum(path == STDIN for path, _ in inputs) > 1:
        raise CLIError("standard input (-) can be read once: give '-' for one input only")
    for path, what in inputs:
        if path == STDIN:
            continue
        p = Path(path)
        if not p.exists():
            raise CLIError(f"{what} file not found: {path}")
        if p.is_dir():
            raise CLIError(f"{what} path is a folder, not a file: {path}")


def check_outputs(inputs: Iterable[str], **outputs: str | None) -> None:
    """Refuse an output (``output=PATH, plot=PATH, cache=PATH``, the keyword the option's name) that is an input,
    another output or a folder, or (not a cache) whose folder does not exist."""
    named = {option: path for option, path in outputs.items() if path}
    inputs = list(inputs)
    if named.get("cache_dir"):
        check_cache_dir(inputs, str(Path(str(named["cache_dir"])).parent))
    seen: dict[str, str] = {}
    for option, path in named.items():
        flag = f"--{option.replace('_', '-')}"
        if path == STDIN:
            continue
        target = Path(path)
        for source in inputs:
            if source != STDIN and _same_file(target, Path(source)):
                raise CLIError(f"{flag} {path} is an input file; it would be overwritten: write elsewhere")
        key = os.path.normcase(os.path.abspath(target))
        if key in seen:
            raise CLIError(f"{seen[key]} and {flag} both name {path}: give each its own file")
        seen[key] = flag
        if target.is_dir():
            raise CLIError(f"{flag} {path} is a folder: give a file name")
        parent = target.parent
        if not parent.is_dir() and not option.startswith("cache"):  # a cache's folder is made when it opens
            raise CLIError(f"{flag} {path}: the folder {parent} does not exist; create it first")


def check_cache_dir(inputs: Iterable[str | None], cache_dir: str | None) -> None:
    """Refuse a ``--cache-dir`` that is a file, or an input folder or a folder inside one (the caches would be
    written into an input)."""
    if not cache_dir:
        return
    target = Path(cache_dir)
    if target.exists() and not target.is_dir():
        raise CLIError(f"--cache-dir {cache_dir} is a file, not a folder: give a folder for the caches")
    resolved = target.resolve()
    for given in inputs:
        if not given or given == STDIN:
            continue
        source = Path(given).resolve()
        if source.is_dir() and (resolved == source or source in resolved.parents):
            raise CLIError(f"--cache-dir {cache_dir} is inside the input folder {given}; the caches would be written "
                           "into it: give another folder")


def add_cache_options(parser: argparse.ArgumentParser, *, what: str, default: str, no_cache: bool = False) -> None:
    """Add ``--cache-dir DIR`` (where ``what`` is cached; ``default`` says where without it), ``--cache FILE``
    (its deprecated spelling: that one file) and, with ``no_cache``, ``--no-cache``."""
    parser.add_argument("--cache-dir", metavar="DIR", help=f"the folder of every cache: {what} (default {default})")
    add_deprecated(parser, "--cache", "--cache-dir", dest="cache", default=None, metavar="FILE")
    if no_cache:
        parser.add_argument("--no-cache", action="store_true", help="keep no cache (a re-run pays again)")


def cache_file(args: Any, name: str, default: str | os.PathLike[str] | None = None) -> str | None:
    """The cache file a command uses: none with ``--no-cache``; the deprecated ``--cache FILE``; ``name`` in
    ``--cache-dir``; else ``default`` (None: no file, an in-memory cache)."""
    if getattr(args, "no_cache", False):
        return None
    if getattr(args, "cache", None):
        return str(args.cache)
    if getattr(args, "cache_dir", None):
        return str(Path(args.cache_dir) / name)
    return str(default) if default else None


def cache_output(args: Any, name: str, default: str | os.PathLike[str] | None = None) -> dict[str, str | None]:
    """``{option: cache file}`` for :func:`check_outputs`, the option the one the user gave (``cache_dir`` or
    ``cache``), so a refusal names it."""
    option = "cache_dir" if getattr(args, "cache_dir", None) and not getattr(args, "cache", None) else "cache"
    return {option: cache_file(args, name, default)}


def _same_file(a: Path, b: Path) -> bool:
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
    except OSError:
        pass
    return os.path.normcase(os.path.abspath(a)) == os.path.normcase(os.path.abspath(b))


def output_format(fmt: str | None, output: str | None) -> str:
    """``--format`` when given, else the one of ``--output``'s extension (``.json``, ``.csv``, ``.md``, ``.html``;
    ``.txt`` or none: the text table); any other extension (``out.xlsx``) is refused, never written as a text table."""
    if fmt:
        return fmt
    if output and output != STDIN:
        suffix = Path(output).suffix.lower()
        if suffix not in FORMAT_BY_SUFFIX:
            known = ", ".join(s for s in FORMAT_BY_SUFFIX if s)
            raise CLIError(f"--output {output}: unknown extension {suffix!r}; write {known} (or none, for the "
                           "text table), or give --format")
        return FORMAT_BY_SUFFIX[suffix]
    return "table"


def check_count(value: int | None, option: str, *, minimum: int = 1, maximum: int | None = None) -> None:
    """An integer option within ``[minimum, maximum]`` (:func:`~rag_eval_adapters.validation.check_count`'s
    rule and message); CLIError naming the option."""
    from ..validation import check_count as check

    if value is None:
        return
    try:
        check(value, option, minimum=minimum, maximum=maximum)
    except (TypeError, ValueError) as exc:
        raise CLIError(str(exc)) from None


def check_confidence(value: float | None, option: str = "--confidence") -> None:
    """A confidence strictly between 0 and 1 (:func:`~rag_eval_adapters.validation.check_fraction`'s rule and
    message); CLIError naming the option."""
    from ..validation import check_fraction

    if value is None:
        return
    try:
        check_fraction(value, option)
    except (TypeError, ValueError) as exc:
        raise CLIError(str(exc)) from None


def check_resampling(args: Any) -> None:
    """The options of the paired tests, before any file is read."""
    check_count(getattr(args, "permutations", None), "--permutations", maximum=MAX_RESAMPLES)
    check_count(getattr(args, "bootstrap", None), "--bootstrap", maximum=MAX_RESAMPLES)
    check_confidence(getattr(args, "confidence", None))
    check_count(getattr(args, "seed", None), "--seed", minimum=0)


def fail_on_errors(reports: dict, allow_errors: bool) -> None:
    """CLIError when any query of any report could not be scored, unless ``allow_errors``."""
    if allow_errors:
        return
    failed = [(name, qid, error) for name, report in reports.items() for qid, error in dict(report.errors).items()]
    if not failed:
        return
    name, qid, error = failed[0]
    where = f"{name}: " if len(reports) > 1 else ""
    n = len(failed)
    raise CLIError(
        f"{n} {'query' if n == 1 else 'queries'} could not be scored (first: {where}{qid}: {one_line(str(error))}); "
        "their errors are in the report; pass --allow-errors to accept a report without them"
    )


def read_input(path: str, kind: str) -> Any:
    """Qrels (``kind="qrels"``) or a run from ``path`` in any supported format; CLIError on bad input."""
    from ..readers import read_qrels, read_run

    reader = read_qrels if kind == "qrels" else read_run
    try:
        return reader(path)
    except FileNotFoundError:
        raise CLIError(f"{kind} file not found: {path}") from None
    except (ValueError, TypeError, UnicodeDecodeError) as exc:
        message = one_line(str(exc))
        name = "<stdin>" if path == STDIN else path
        if name not in message and Path(path).name not in message:
            message = f"{name}: {message}"
        raise CLIError(message) from None
    except OSError as exc:
        raise CLIError(f"cannot read {path}: {exc.strerror or exc}") from None
