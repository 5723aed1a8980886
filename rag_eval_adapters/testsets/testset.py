"""``TestCase`` and ``TestSet``: a generated test set, its JSONL form and what it turns into (qrels,
``evaluate_dataset`` rows, LangSmith examples)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["TestCase", "TestSet", "EvidenceSpan"]

_REQUIRED = ("query_id", "query", "query_type", "answer", "evidence", "relevant_chunk_ids", "source_chunk_id")


@dataclass(frozen=True)
class EvidenceSpan:
    """Where the evidence lies in a document: ``doc_id`` and character offsets ``start``..``end`` (end
    exclusive), so ``document_text[start:end] == evidence`` up to white space."""

    doc_id: str
    start: int
    end: int


@dataclass
class TestCase:
    """One generated question with its answer and evidence (the fields of one JSONL line).

    ``relevant_chunk_ids`` lists every chunk whose text contains the evidence (the source chunk first);
    ``expected_ids`` repeats it so the line is also a qrels / ``evaluate_dataset`` row. ``lexical_overlap``
    is the share of the query's content words found in the source chunk; ``flags`` holds
    ``"high_overlap"`` for a paraphrase or scenario as lexical as a literal question and ``"fuzzy_evidence"``
    when the quote was matched fuzzily; ``retriever_rank`` the 1-based rank of the source chunk for the query
    when a retriever was given (None: not retrieved or no retriever).
    """

    __test__ = False  # not a pytest class

    query_id: str
    query: str
    query_type: str
    answer: str
    evidence: str
    relevant_chunk_ids: list[str]
    source_chunk_id: str
    evidence_spans: list[EvidenceSpan] = field(default_factory=list)
    language: str = "und"
    lexical_overlap: float = 0.0
    model: str = ""
    prompt_version: str = ""
    temperature: float | None = None
    flags: list[str] = field(default_factory=list)
    retriever_rank: int | None = None

    @property
    def expected_ids(self) -> list[str]:
        """The relevant chunk ids (the name qrels readers and ``evaluate_dataset`` use)."""
        return list(self.relevant_chunk_ids)

    def to_dict(self) -> dict[str, Any]:
        """The JSONL record (with ``expected_ids``)."""
        out = asdict(self)
        out["expected_ids"] = self.expected_ids
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any], where: str = "record") -> TestCase:
        """A case from its JSONL record; a missing or mistyped field raises ValueError naming ``where``."""
        if not isinstance(data, dict):
            raise ValueError(f"{where}: expected a JSON object, got {type(data).__name__}")
        missing = [k for k in _REQUIRED if k not in data]
        if missing:
            raise ValueError(f"{where}: missing field(s) {', '.join(missing)}")
        for key in ("query_id", "query", "query_type", "answer", "evidence", "source_chunk_id"):
            if not isinstance(data[key], str):
                raise ValueError(f"{where}: field {key!r} must be a string, got {type(data[key]).__name__}")
        ids = data["relevant_chunk_ids"]
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            raise ValueError(f"{where}: field 'relevant_chunk_ids' must be a list of strings")
        spans = []
        for i, span in enumerate(data.get("evidence_spans") or []):
            try:
                spans.append(EvidenceSpan(str(span["doc_id"]), int(span["start"]), int(span["end"])))
            except (KeyError, TypeError, ValueError) as exc:
                raise ValueError(f"{where}: evidence_spans[{i}] must be {{doc_id, start, end}} ({exc})") from exc
        known = {f for f in cls.__dataclass_fields__}
        values = {k: v for k, v in data.items() if k in known}
        values["evidence_spans"] = spans
        values["relevant_chunk_ids"] = list(ids)
        values["flags"] = list(values.get("flags") or [])
        return cls(**values)


class TestSet:
    """Generated test cases and the run's ``summary`` (requested, generated, dropped by reason, tokens, cost).

    Iterating yields the :class:`TestCase` objects in generation order.
    """

    __test__ = False

    def __init__(self, cases: list[TestCase] | None = None, summary: dict[str, Any] | None = None) -> None:
        self.cases: list[TestCase] = list(cases or [])
        self.summary: dict[str, Any] = dict(summary or {})

    def __repr__(self) -> str:
        dropped = sum((self.summary.get("dropped") or {}).values())
        return f"TestSet(cases={len(self.cases)}, dropped={dropped})"

    def __len__(self) -> int:
        return len(self.cases)

    def __iter__(self) -> Iterator[TestCase]:
        return iter(self.cases)

    def __getitem__(self, index: int) -> TestCase:
        return self.cases[index]

    # ---------------------------------------------------------------- files
    def to_jsonl(self, path: str | os.PathLike[str], *, overwrite: bool = False) -> Path:
        """Write one case per line (UTF-8). An existing file is refused unless ``overwrite=True``."""
        target = Path(path)
        if target.exists() and not overwrite:
            raise FileExistsError(f"{str(target)!r} exists; pass overwrite=True or choose another path")
        with open(target, "w", encoding="utf-8") as handle:
            for case in self.cases:
                handle.write(json.dumps(case.to_dict(), ensure_ascii=False) + "\n")
        return target

    @classmethod
    def from_jsonl(cls, path: str | os.PathLike[str]) -> TestSet:
        """Read a test set written by :meth:`to_jsonl` or by ``generate_testset(output=...)``; a bad line
        raises ValueError naming the file and line number."""
        source = Path(path)
        cases = []
        with open(source, encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                where = f"{source.name} line {number}"
                try:
                    data = json.loads(line)
                except ValueError as exc:
                    raise ValueError(f"{where}: invalid JSON ({exc})") from exc
                cases.append(TestCase.from_dict(data, where))
        return cls(cases)

    # ---------------------------------------------------------------- uses
    def to_qrels(self) -> dict[str, dict[str, int]]:
        """``{query_id: {chunk_id: 1}}`` for every relevant chunk: the judgments every metric reads."""
        return {c.query_id: dict.fromkeys(c.relevant_chunk_ids, 1) for c in self.cases}

    def queries(self) -> dict[str, str]:
        """``{query_id: query}``."""
        return {c.query_id: c.query for c in self.cases}

    def to_rows(self) -> list[dict[str, Any]]:
        """Rows for ``rag_eval_adapters.llamaindex.evaluate_dataset``: ``query``, ``expected_ids`` and
        ``query_id``."""
        return [{"query_id": c.query_id, "query": c.query, "expected_ids": c.expected_ids} for c in self.cases]

    def to_langsmith_examples(self) -> list[dict[str, Any]]:
        """Examples for ``langsmith.Client().create_examples(dataset_id=..., examples=...)``: ``inputs``
        ``{"question"}``, ``outputs`` ``{"expected_ids", "answer", "evidence"}`` (``expected_ids`` is what the
        LangChain evaluators of this package read; ``outputs`` is the key every langsmith version accepts, newer
        ones also name it ``reference_outputs``) and ``metadata`` (query id, type, source chunk, language)."""
        return [
            {
                "inputs": {"question": c.query},
                "outputs": {"expected_ids": c.expected_ids, "answer": c.answer, "evidence": c.evidence},
                "metadata": {"query_id": c.query_id, "query_type": c.query_type, "source_chunk_id": c.source_chunk_id,
                             "language": c.language},
            }
            for c in self.cases
        ]
