"""Writes the sample report of ``docs/bench.md`` from a run of ``rag-eval demo``.

A development tool, not part of the package. The sample is an excerpt of the ``report.md`` that ``rag-eval demo
--permutations 500`` writes on two of the demo's eight documents (astronomy and cooking, with the questions whose
evidence lies in them): the run the end-to-end tests share (``tests/demo_support.py``). :func:`excerpt` turns that
``report.md`` into the text between the ``<!-- sample report: start -->`` and ``<!-- sample report: end -->``
markers of ``docs/bench.md``; ``tests/test_demo.py`` checks the page holds the excerpt of the tests' own run, so
the documented numbers are the code's.

Run ``python tools/gen_bench_docs.py`` from the repository to run the demo on that cut and rewrite the block
(``--report FILE`` to take an existing ``report.md`` instead), ``--check`` to only report (exit status 1) when
the page differs.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "bench.md"
START, END = "<!-- sample report: start -->", "<!-- sample report: end -->"
PERMUTATIONS = 500  # what the tests' run uses
PAIRED_ROWS, WORST_ROWS = 8, 3


def _sections(report_md: str) -> tuple[list[str], dict[str, list[str]]]:
    """The lines before the first ``## `` heading, and each section's lines by its heading."""
    head: list[str] = []
    sections: dict[str, list[str]] = {}
    current = head
    for line in report_md.splitlines():
        if line.startswith("## "):
            current = sections.setdefault(line[3:], [])
        else:
            current.append(line)
    return head, sections


def _table(lines: list[str]) -> tuple[list[str], list[str]]:
    """A section's Markdown table: its two header lines and its rows."""
    rows = [line for line in lines if line.startswith("|")]
    return rows[:2], rows[2:]


def _find(sections: dict[str, list[str]], prefix: str) -> tuple[str, list[str]]:
    for title, lines in sections.items():
        if title.startswith(prefix):
            return title, lines
    raise ValueError(f"report.md has no section starting {prefix!r}; its sections: {list(sections)}")


def excerpt(report_md: str) -> str:
    """The documented excerpt of a benchmark's ``report.md``.

    The summary line (without the run time), the verdict, nDCG@10 by query type, before and after reranking in
    full; the first rows of the paired tests and of the worst queries; the overall rows of the answers.
    """
    head, sections = _sections(report_md)
    summary = next(line for line in head if line.startswith("rag-eval-adapters "))
    out = ["> " + re.sub(r", [\d.]+ s\.$", ".", summary), ""]
    for prefix in ("Verdict", "ndcg@10 by query type", "Before and after reranking"):
        title, lines = _find(sections, prefix)
        body = [line for line in lines if line.strip()]
        out += [f"### {title}", "", *body, ""]
    title, lines = _find(sections, "Paired tests")
    header, rows = _table(lines)
    out += [f"### {title[:-1]}; the first {min(PAIRED_ROWS, len(rows))} rows)", "", *header, *rows[:PAIRED_ROWS], ""]
    title, lines = _find(sections, "Answers")
    header, rows = _table(lines)
    overall = [row for row in rows if row.split("|")[2].strip() == "all"]
    out += [f"### {title[:-1]}; the overall rows)", "", *header, *overall, ""]
    title, lines = _find(sections, "Worst queries")
    header, rows = _table(lines)
    out += [f"### {title.split(' (')[0]} (first rows)", "", *header, *rows[:WORST_ROWS]]
    return "\n".join(out) + "\n"


def documented(page: str) -> str:
    """The text between the markers of ``docs/bench.md``."""
    start, end = page.index(START) + len(START), page.index(END)
    return page[start:end].strip("\n") + "\n"


def rendered(page: str, report_md: str) -> str:
    """``page`` with its block replaced by the excerpt of ``report_md``."""
    start, end = page.index(START) + len(START), page.index(END)
    return page[:start] + "\n" + excerpt(report_md) + page[end:]


def run_small_demo(folder: Path) -> str:
    """``rag-eval demo --permutations 500`` on the two-document cut the tests use; its ``report.md``."""
    sys.path.insert(0, str(ROOT / "tests"))
    try:
        from demo_support import run_demo_cli, write_small_demo_data
    finally:
        sys.path.remove(str(ROOT / "tests"))
    data = write_small_demo_data(folder / "data")
    code, _, err = run_demo_cli(["--output-dir", folder / "report", "--permutations", PERMUTATIONS], data)
    if code != 0:
        raise SystemExit(f"the demo failed:\n{err}")
    return (folder / "report" / "report.md").read_text(encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--report", type=Path, help="take this report.md instead of running the demo")
    parser.add_argument("--check", action="store_true", help="only report whether the page is up to date")
    args = parser.parse_args(argv)
    if args.report is not None:
        report_md = args.report.read_text(encoding="utf-8")
    else:
        with tempfile.TemporaryDirectory() as tmp:
            report_md = run_small_demo(Path(tmp))
    page = PAGE.read_text(encoding="utf-8")
    new = rendered(page, report_md)
    if args.check:
        print("docs/bench.md: up to date" if new == page else "docs/bench.md: differs from the demo's report")
        return 0 if new == page else 1
    PAGE.write_text(new, encoding="utf-8")
    print("docs/bench.md: rewritten" if new != page else "docs/bench.md: up to date")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
