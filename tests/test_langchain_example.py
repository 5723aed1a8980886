"""examples/langchain_retriever_eval.py runs offline and prints scores that equal the core's."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "langchain_retriever_eval.py"


def test_example_runs_offline_and_prints_scores(capsys):
    runpy.run_path(str(EXAMPLE), run_name="__main__")  # the example itself asserts equality with the core
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith("question"))
    assert header.split()[-6:] == ["hit_rate@1", "mrr", "hit_rate@3", "recall@3", "ap", "ndcg@3"]
    mean = next(line for line in out.splitlines() if line.startswith("mean"))
    values = [float(v) for v in re.findall(r"\d\.\d{4}", mean)]
    assert len(values) == 6 and all(0.0 <= v <= 1.0 for v in values)
    assert "equals rag_eval_adapters.evaluate()" in out
