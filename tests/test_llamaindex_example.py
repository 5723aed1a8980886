"""The LlamaIndex example runs offline and prints a per-query table and the means."""

from __future__ import annotations

import runpy
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "llamaindex_retriever_eval.py"


def test_example_prints_per_query_table_and_means(capsys):
    runpy.run_path(str(EXAMPLE), run_name="__main__")
    lines = capsys.readouterr().out.splitlines()
    header = lines[0].split()
    assert header[:2] == ["query", "hit_rate"] and "recall@3" in header
    mean_line = next(line for line in lines if line.startswith("mean "))
    rows = lines[1:lines.index(mean_line)]
    assert len(rows) == 8 and rows[0].startswith("What is the capital of Germany?")
    means = [float(v) for v in mean_line.split()[1:]]
    assert len(means) == len(header) - 2 and all(0.0 <= v <= 1.0 for v in means)
    assert "DatasetEvaluation(scored=8, errors=0, total=8" in lines[-1]
