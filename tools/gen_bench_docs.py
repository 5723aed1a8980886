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

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the tools' shared module, also when loaded by path
import demo_docs  # noqa: E402

ROOT = demo_docs.ROOT
PAGE = ROOT / "docs" / "bench.md"
START, END = "<!-- sample report: start -->", "<!-- sample report: end -->"
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
    return demo_docs.documented(page, START, END)


def rendered(page: str, report_md: str) -> str:
    """``page`` with its block replaced by the excerpt of ``report_md``."""
    return demo_docs.replaced(page, START, END, excerpt(report_md))


def main(argv: list[str] | None = None) -> int:
    return demo_docs.main(argv, description=__doc__.splitlines()[0], page_path=PAGE, markers=(START, END),
                          report_name="report.md", block=excerpt)


if __name__ == "__main__":
    raise SystemExit(main())
