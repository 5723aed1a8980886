"""What the generators of documented demo output share (``gen_bench_docs.py``, ``gen_agreement_docs.py``).

A development tool, not part of the package. A page holds a block between two markers; the block is made from a
file of a small ``rag-eval demo`` run (the run the end-to-end tests share, ``tests/demo_support.py``); :func:`main`
runs the demo (or takes the file given with ``--report``) and rewrites the block, or with ``--check`` only says
whether the page is up to date (exit status 1 when not).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PERMUTATIONS = 500  # what the tests' run uses


def documented(page: str, start: str, end: str) -> str:
    """The text between the markers ``start`` and ``end`` of ``page``."""
    first, last = page.index(start) + len(start), page.index(end)
    return page[first:last].strip("\n") + "\n"


def replaced(page: str, start: str, end: str, block: str) -> str:
    """``page`` with the text between its markers replaced by ``block``."""
    first, last = page.index(start) + len(start), page.index(end)
    return page[:first] + "\n" + block + page[last:]


def run_small_demo(folder: Path, name: str) -> str:
    """``rag-eval demo --permutations 500`` on the two-document cut the tests use; the text of its file ``name``."""
    sys.path.insert(0, str(ROOT / "tests"))
    try:
        from demo_support import run_demo_cli, write_small_demo_data
    finally:
        sys.path.remove(str(ROOT / "tests"))
    data = write_small_demo_data(folder / "data")
    code, _, err = run_demo_cli(["--output", folder / "report", "--permutations", PERMUTATIONS], data)
    if code != 0:
        raise SystemExit(f"the demo failed:\n{err}")
    return (folder / "report" / name).read_text(encoding="utf-8")


def main(argv: list[str] | None, *, description: str, page_path: Path, markers: tuple[str, str], report_name: str,
         block: Callable[[str], str]) -> int:
    """Rewrite (or ``--check``) the block of ``page_path`` between ``markers`` as ``block(text of report_name)``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--report", type=Path, help=f"take this {report_name} instead of running the demo")
    parser.add_argument("--check", action="store_true", help="only report whether the page is up to date")
    args = parser.parse_args(argv)
    if args.report is not None:
        text = args.report.read_text(encoding="utf-8")
    else:
        with tempfile.TemporaryDirectory() as tmp:
            text = run_small_demo(Path(tmp), report_name)
    page = page_path.read_text(encoding="utf-8")
    new = replaced(page, *markers, block(text))
    name = page_path.relative_to(ROOT).as_posix()
    if args.check:
        print(f"{name}: up to date" if new == page else f"{name}: differs from the demo's report")
        return 0 if new == page else 1
    page_path.write_text(new, encoding="utf-8")
    print(f"{name}: rewritten" if new != page else f"{name}: up to date")
    return 0
