"""docs/agreement.md's corrected-tests example is the output of tools/gen_agreement_docs.py on the demo run the
tests share (issue 30, item 24: the page had said 4 of 66 pairs and an adjusted p of 0.486 long after the demo
changed)."""

import json
from pathlib import Path

from demo_support import load_tool

ROOT = Path(__file__).resolve().parents[1]


def test_the_corrected_tests_example_is_what_the_demo_run_writes(demo_run):
    code, _, err, folder = demo_run
    assert code == 0, err
    generator = load_tool("gen_agreement_docs")
    report = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    page = (ROOT / "docs" / "agreement.md").read_text(encoding="utf-8")
    assert generator.documented(page) == generator.block(report), "regenerate with: python tools/gen_agreement_docs.py"
    tests = [t for t in report["comparison"]["tests"] if t["metric"] == "ndcg@10"]
    assert f"{len(tests)} pairs on nDCG@10" in page
    assert all(f"- {sentence}" in page for sentence in report["verdict"])


def test_the_generator_counts_pairs_before_and_after_the_correction():
    generator = load_tool("gen_agreement_docs")
    tests = [{"metric": "ndcg@10", "p_value": p, "adjusted_p_value": a}
             for p, a in ((0.001, 0.01), (0.02, 0.06), (0.3, 0.6))] + [{"metric": "mrr", "p_value": 0.0,
                                                                       "adjusted_p_value": 0.0}]
    report = {"comparison": {"tests": tests, "counts": {"queries": 40, "runs": 3},
                             "correction": {"alpha": 0.05, "method": "holm"}},
              "provenance": {"settings": {"permutations": 2000}}, "verdict": ["One sentence."]}
    text = generator.block(report)
    assert "3 pairs on nDCG@10), 2 of the 3 pairs are significant at 0.05 unadjusted and 1 after Holm's" in text
    assert "No pair could be" not in text and text.endswith("- One sentence.\n")
    report["provenance"]["settings"]["permutations"] = 50
    assert "No pair could be: with 50 permutations the smallest p-value is 1/51" in generator.block(report)
