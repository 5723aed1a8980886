"""Writes the corrected-tests example of ``docs/agreement.md`` from a run of ``rag-eval demo``.

A development tool, not part of the package. The example counts the demo's pairs of configurations on nDCG@10
that are significant before and after Holm's correction, says whether the permutations could reach the level
after it, and quotes the verdict sentences (each with its raw and adjusted p-value) of ``report.json``. The run is
the one the end-to-end tests share (``tests/demo_support.py``: ``rag-eval demo --permutations 500`` on two of the
demo's eight documents), so ``tests/test_agreement_docs.py`` checks the block between the ``<!-- demo corrected
tests: start -->`` and ``<!-- demo corrected tests: end -->`` markers is :func:`block` of the tests' own run:
the documented numbers are the code's.

Run ``python tools/gen_agreement_docs.py`` from the repository to run the demo on that cut and rewrite the block
(``--report FILE`` to take an existing ``report.json`` instead), ``--check`` to only report (exit status 1) when
the page differs.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "agreement.md"
START, END = "<!-- demo corrected tests: start -->", "<!-- demo corrected tests: end -->"
PERMUTATIONS = 500  # what the tests' run uses
METRIC = "ndcg@10"
DEFAULT_PERMUTATIONS = 2000  # rag-eval demo's default


def block(report: dict[str, Any]) -> str:
    """The documented example, from a demo's ``report.json`` (as a dict)."""
    comparison, settings = report["comparison"], report["provenance"]["settings"]
    correction = comparison["correction"]
    tests = [t for t in comparison["tests"] if t["metric"] == METRIC]
    alpha, family = correction["alpha"], len(tests)
    raw = sum(t["p_value"] < alpha for t in tests)
    adjusted = sum(t["adjusted_p_value"] < alpha for t in tests)
    permutations = settings["permutations"]
    floor = 1 / (permutations + 1)
    out = [f"On the demo run the tests share (`rag-eval demo --permutations {permutations}` on two of its eight "
           f"documents: {comparison['counts']['queries']} questions, {comparison['counts']['runs']} configurations, "
           f"{family} pairs on nDCG@10), {raw} of the {family} pairs are significant at {alpha:g} unadjusted and "
           f"{adjusted} after Holm's correction."]
    if family * floor >= alpha:
        out.append(f"No pair could be: with {permutations} permutations the smallest p-value is 1/{permutations + 1}, "
                   f"and {family} of them adjusted together reach {family * floor:.2g}, above {alpha:g} (the report "
                   f"says so; the demo's default of {DEFAULT_PERMUTATIONS} permutations lowers that floor to "
                   f"{family / (DEFAULT_PERMUTATIONS + 1):.2g}).")
    out += ["Its verdict, each difference with its raw and its adjusted p-value:", ""]
    out += [f"- {sentence}" for sentence in report["verdict"]]
    return "\n".join(out) + "\n"


def documented(page: str) -> str:
    """The text between the markers of ``docs/agreement.md``."""
    start, end = page.index(START) + len(START), page.index(END)
    return page[start:end].strip("\n") + "\n"


def rendered(page: str, report: dict[str, Any]) -> str:
    """``page`` with its block replaced by :func:`block` of ``report``."""
    start, end = page.index(START) + len(START), page.index(END)
    return page[:start] + "\n" + block(report) + page[end:]


def run_small_demo(folder: Path) -> dict[str, Any]:
    """``rag-eval demo --permutations 500`` on the two-document cut the tests use; its ``report.json``."""
    sys.path.insert(0, str(ROOT / "tests"))
    try:
        from demo_support import run_demo_cli, write_small_demo_data
    finally:
        sys.path.remove(str(ROOT / "tests"))
    data = write_small_demo_data(folder / "data")
    code, _, err = run_demo_cli(["--output-dir", folder / "report", "--permutations", PERMUTATIONS], data)
    if code != 0:
        raise SystemExit(f"the demo failed:\n{err}")
    return json.loads((folder / "report" / "report.json").read_text(encoding="utf-8"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--report", type=Path, help="take this report.json instead of running the demo")
    parser.add_argument("--check", action="store_true", help="only report whether the page is up to date")
    args = parser.parse_args(argv)
    if args.report is not None:
        report = json.loads(args.report.read_text(encoding="utf-8"))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            report = run_small_demo(Path(tmp))
    page = PAGE.read_text(encoding="utf-8")
    new = rendered(page, report)
    if args.check:
        print("docs/agreement.md: up to date" if new == page else "docs/agreement.md: differs from the demo's report")
        return 0 if new == page else 1
    PAGE.write_text(new, encoding="utf-8")
    print("docs/agreement.md: rewritten" if new != page else "docs/agreement.md: up to date")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
