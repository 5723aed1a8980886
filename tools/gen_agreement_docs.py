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

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the tools' shared module, also when loaded by path
import demo_docs  # noqa: E402

ROOT = demo_docs.ROOT
PAGE = ROOT / "docs" / "agreement.md"
START, END = "<!-- demo corrected tests: start -->", "<!-- demo corrected tests: end -->"
PERMUTATIONS = demo_docs.PERMUTATIONS  # what the tests' run uses
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
    return demo_docs.documented(page, START, END)


def rendered(page: str, report: dict[str, Any]) -> str:
    """``page`` with its block replaced by :func:`block` of ``report``."""
    return demo_docs.replaced(page, START, END, block(report))


def main(argv: list[str] | None = None) -> int:
    return demo_docs.main(argv, description=__doc__.splitlines()[0], page_path=PAGE, markers=(START, END),
                          report_name="report.json", block=lambda text: block(json.loads(text)))


if __name__ == "__main__":
    raise SystemExit(main())
