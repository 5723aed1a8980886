"""``TestSet`` and :func:`read_testset`: a test set (generated or written by hand), read from a file, records or
a ``TestSet``, and what it turns into (qrels, ``evaluate_dataset`` rows, LangSmith examples)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from ..jsonl import read_jsonl_objects
from .case import QUESTION_TYPES, EvidenceSpan, TestCase, case_from_record, check_case

__all__ = ["TestCase", "TestSet", "EvidenceSpan", "QUESTION_TYPES", "read_testset", "TestSetSource", "evaluate_dataset_rows",
           "langsmith_examples"]

TestSetSource = str | os.PathLike | Iterable[Any]
"""What :func:`read_testset` reads: a JSONL path (``"-"``: standard input), a :class:`TestSet`, or records."""


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
        """Read a test set written by :meth:`to_jsonl`, by ``generate_testset(output=...)`` or by hand (see
        :func:`read_testset`); a bad line raises ValueError naming the file and line number."""
        return read_testset(path)

    # ---------------------------------------------------------------- uses
    def to_qrels(self) -> dict[str, dict[str, int]]:
        """``{query_id: {chunk_id: 1}}`` for every relevant chunk: the judgments every metric reads."""
        return {c.query_id: dict.fromkeys(c.relevant_chunk_ids, 1) for c in self.cases}

    def queries(self) -> dict[str, str]:
        """``{query_id: query}``."""
        return {c.query_id: c.query for c in self.cases}

    def to_rows(self) -> list[dict[str, Any]]:
        """Rows for ``rag_eval_adapters.llamaindex.evaluate_dataset``: ``query``, ``expected_ids`` and
        ``query_id`` (and ``expected_texts``, the evidence texts, for a case without chunk ids)."""
        return [{"query_id": c.query_id, "query": c.query, "expected_ids": c.expected_ids}
                | ({} if c.relevant_chunk_ids else {"expected_texts": c.texts}) for c in self.cases]

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


def read_testset(source: TestSetSource) -> TestSet:
    """The test set in ``source``: the one reader of test cases (generator, bench, ``rag-eval bench``,
    ``evaluate_dataset`` rows, LangSmith examples).

    Parameters
    ----------
    source
        A test-set JSONL path (gzip allowed, ``"-"`` standard input), a :class:`TestSet` (returned as it is),
        or an iterable of :class:`TestCase` objects and mappings shaped like test-set lines.

    Returns
    -------
    TestSet
        The cases in input order (a file's or records' set has an empty ``summary``).

    Raises
    ------
    ValueError
        A malformed line or record (naming ``file:line`` or ``testset[i]`` and the field), no case at all, or a
        query id given twice.
    TypeError
        ``source`` is none of the three.
    """
    if isinstance(source, TestSet):
        return source
    if isinstance(source, (str, os.PathLike)):
        name = "<stdin>" if str(source) == "-" else str(source)
        try:
            rows = read_jsonl_objects(source if isinstance(source, str) else Path(source))
            cases = [case_from_record(row, f"{name}:{number}", number) for number, row in rows]
        except ValueError as exc:
            if name != "<stdin>" and _starts_with_array(source):
                raise ValueError(f"{name} is one JSON array, but a test set is JSON Lines: one test case (a JSON "
                                 f"object) per line; convert it with: jq -c '.[]' {name} > testset.jsonl") from exc
            raise
    elif isinstance(source, (bytes, Mapping)) or not isinstance(source, Iterable):
        raise TypeError("a test set is a JSONL path, a TestSet or an iterable of TestCase objects or records, got "
                        f"{type(source).__name__}")
    else:
        name = "the test set"
        cases = [check_case(r, f"testset[{i}]") if isinstance(r, TestCase) else case_from_record(r, f"testset[{i}]")
                 for i, r in enumerate(source)]
    if not cases:
        raise ValueError(f"{name} holds no test case")
    seen: dict[str, TestCase] = {}
    for i, case in enumerate(cases):
        if case.query_id in seen:
            first, where = seen[case.query_id], f"line {case.line}" if case.line else f"testset[{i}]"
            raise ValueError(f"{name}: query_id {case.query_id!r} appears twice ({where} repeats "
                             f"{'line ' + str(first.line) if first.line else 'an earlier case'})")
        seen[case.query_id] = case
    return TestSet(cases)


def _starts_with_array(path: str | os.PathLike[str]) -> bool:
    """Whether the file (gzip or not) starts, after white space, with ``[``: a JSON array, not JSON Lines."""
    import gzip

    try:
        with open(path, "rb") as raw:
            head = raw.read(2)
        opener = gzip.open if head == b"\x1f\x8b" else open
        with opener(path, "rb") as handle:
            start = handle.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    except OSError:
        return False
    return start.startswith(b"[")


def evaluate_dataset_rows(source: TestSetSource) -> list[dict[str, Any]]:
    """``evaluate_dataset`` rows (:meth:`TestSet.to_rows`) of a test-set path, records or ``TestSet``."""
    return read_testset(source).to_rows()


def langsmith_examples(source: TestSetSource) -> list[dict[str, Any]]:
    """LangSmith examples (:meth:`TestSet.to_langsmith_examples`) of a test-set path, records or ``TestSet``."""
    return read_testset(source).to_langsmith_examples()
