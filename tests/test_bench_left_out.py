"""Questions left out of a chunking's scores are said up front: stderr, every report, report.json's left_out."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from bench_helpers import TOPICS, case_records, documents  # noqa: E402

from rag_eval_adapters.cli import main  # noqa: E402

pytest.importorskip("bm25s")


def _testset(path: Path) -> Path:
    records = case_records()
    straddling = {"volcano": "through the crust. The eruption", "bread": "carbon dioxide. Kneading"}
    for record, topic in zip(records[:3], ("volcano", "volcano", "bread"), strict=True):
        assert straddling[topic] in TOPICS[topic]
        record.pop("evidence_spans")
        record["evidence"] = straddling[topic]  # across two sentences: no 16-token chunk holds it
    records.append({"query_id": "q9", "query": "what is the capital of mars", "query_type": "unanswerable",
                    "answer": "", "answerable": False})
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_left_out_questions_are_said_on_stderr_and_above_every_table(tmp_path):
    docs = tmp_path / "docs.jsonl"
    docs.write_text("".join(json.dumps(d) + "\n" for d in documents()), encoding="utf-8")
    testset, out = _testset(tmp_path / "testset.jsonl"), tmp_path / "report"
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main(["bench", "--documents", str(docs), "--testset", str(testset), "--chunking", "16:0", "--chunking",
                 "64:8", "--retriever", "bm25", "--rerank", "lexical", "--k", "1,3", "--skip-e2e",
                 "--permutations", "50", "--output", str(out)], stdout=stdout, stderr=stderr)
    assert code == 0, stderr.getvalue()
    cut = "3 of 9 questions have no relevant chunk in s16o0 and are left out: q1, q2, q3"
    apart = ("1 of 9 questions is marked unanswerable (answerable: false) and is left out of the retrieval "
             "scores: q9")
    assert cut in stderr.getvalue() and apart in stderr.getvalue()
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["left_out"] == [
        {"chunking": "s16o0", "reason": "no_relevant_chunk", "query_ids": ["q1", "q2", "q3"], "questions": 9,
         "message": cut},
        {"chunking": None, "reason": "unanswerable", "query_ids": ["q9"], "questions": 9, "message": apart}]
    assert not any(e["chunking"] == "s64o8" for e in report["left_out"])  # 64-token chunks hold both sentences
    for name in ("report.txt", "report.md"):
        text = (out / name).read_text(encoding="utf-8")
        first_table = min(text.index("Verdict"), text.index("Retrieval, all evaluated queries"))
        assert -1 < text.find("have no relevant chunk in s16o0") < first_table, name
        assert -1 < text.find("marked unanswerable") < first_table, name
    printed = stdout.getvalue()
    assert printed.index("no relevant chunk in s16o0") < printed.index("Retrieval by configuration")
    assert len(report["configurations"]["s16o0/bm25"]["per_query"]) == 5  # 9 - 3 - q9
