"""Shared by the rag-eval command tests (not a test module): in-process runs and small input files."""

from __future__ import annotations

import io
import json
from pathlib import Path

from rag_eval_adapters.cli import main


def run_cli(*args: str) -> tuple[int, str, str]:
    """Run ``rag-eval ARGS`` in-process; returns (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    code = main([str(a) for a in args], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def write_trec_qrels(path: Path, qrels: dict[str, dict[str, int]]) -> Path:
    path.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    return path


def write_trec_run(path: Path, run: dict[str, list[str]], tag: str = "test") -> Path:
    lines = []
    for q, docs in run.items():
        for rank, d in enumerate(docs, start=1):
            lines.append(f"{q} Q0 {d} {rank} {100 - rank} {tag}\n")
    path.write_text("".join(lines))
    return path


def write_files(root: Path, files: dict[str, str]) -> Path:
    """Write ``{relative path: text}`` under the folder ``root`` (UTF-8, sub-folders made); returns ``root``."""
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


# A tiny judged collection with hand-checked scores.
#   q1: relevant d1 (grade 1), d2 (grade 2); run d3 d1 d4 d2  -> first relevant at rank 2
#   q2: relevant d5 (grade 1);               run d5 d6        -> first relevant at rank 1
#   q3: relevant d7 (grade 2);               run d8 d9        -> nothing relevant retrieved
TINY_QRELS = {
    "q1": {"d1": 1, "d2": 2, "d9": 0},
    "q2": {"d5": 1},
    "q3": {"d7": 2},
}
TINY_RUN = {
    "q1": ["d3", "d1", "d4", "d2"],
    "q2": ["d5", "d6"],
    "q3": ["d8", "d9"],
}


def tiny_files(tmp_path: Path) -> tuple[Path, Path]:
    return (
        write_trec_qrels(tmp_path / "tiny.qrels", TINY_QRELS),
        write_trec_run(tmp_path / "tiny.run", TINY_RUN),
    )


def paired_collection(n_queries: int = 40, degraded: int = 34) -> tuple[dict, dict, dict]:
    """Qrels, a good run and a degraded copy of it (relevant documents pushed down in most queries)."""
    qrels, good, bad = {}, {}, {}
    for i in range(n_queries):
        q = f"q{i:02d}"
        rel = [f"{q}-r{j}" for j in range(3)]
        non = [f"{q}-n{j}" for j in range(6)]
        qrels[q] = {rel[0]: 2, rel[1]: 1, rel[2]: 1, non[0]: 0}
        good[q] = [rel[0], non[0], rel[1], non[1], rel[2], non[2], non[3]]
        bad[q] = ([non[0], non[1], non[2], rel[0], non[3], non[4], rel[1]] if i < degraded else list(good[q]))
    return qrels, good, bad


def differences_per_query(columns: dict) -> dict:
    """``compare_per_query`` input: run A scores 0, run B scores the given per-query differences of each metric."""
    n = len(next(iter(columns.values())))
    return {
        "A": {f"q{i:05d}": {m: 0.0 for m in columns} for i in range(n)},
        "B": {f"q{i:05d}": {m: float(v[i]) for m, v in columns.items()} for i in range(n)},
    }
