"""The benchmark's inputs: documents (not yet chunked) and test cases, read and checked.

Documents come from a JSONL file (one ``{"doc_id" | "id", "text"}`` object a line) or a folder of
``.txt``, ``.md``, ``.rst`` and ``.html`` files (more formats through LlamaIndex's file readers when installed;
the file's path relative to the folder is its id; see :mod:`rag_eval_adapters.textfiles`). Test cases are
:class:`~rag_eval_adapters.testsets.TestCase` objects, read by :func:`~rag_eval_adapters.testsets.read_testset`
from a test-set JSONL (as ``rag-eval generate`` writes it, or written by hand), a ``TestSet`` or records; their
relevance is evidence spans (the best: they survive any re-chunking), evidence texts, or chunk ids.

Every malformed line is a ``ValueError`` naming the file, the line number and the field.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from ..jsonl import read_jsonl_objects
from ..testsets import QUESTION_TYPES, EvidenceSpan, TestCase, read_testset
from ..textfiles import FolderRead, read_folder

__all__ = ["Document", "Span", "Case", "load_documents", "load_cases", "cases_from_records", "sha256_text",
           "check_output_location", "document_readers", "read_document_folder"]

QUERY_TYPES = QUESTION_TYPES  # the old name; the types are defined once, in testsets
Span = EvidenceSpan  # the old name of a piece of evidence: characters [start, end) of document doc_id
PathLike = str | Path


def sha256_text(text: str) -> str:
    """The SHA-256 hex digest of ``text`` encoded as UTF-8."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Document:
    """One source document: its id and its full text."""

    doc_id: str
    text: str

    def __repr__(self) -> str:
        return f"Document(doc_id={self.doc_id!r}, chars={len(self.text)})"


# ------------------------------------------------------------------------------------------ documents


def load_documents(source: PathLike | Iterable[Any]) -> list[Document]:
    """Documents from a JSONL file, a folder of text files (see :func:`read_document_folder`), or an iterable
    of records.

    Records are :class:`Document` objects or mappings with ``doc_id`` (or ``id``) and ``text``.
    Raises ``ValueError`` on a missing or duplicate id, an empty text, or a malformed line.
    """
    if isinstance(source, (str, Path)):
        path = Path(source)
        if path.is_dir():
            docs = _folder_documents(path)
        elif path.is_file():
            docs = [_document(row, f"{path}:{n}") for n, row in read_jsonl_objects(path)]
        else:
            raise ValueError(f"documents not found: {path} is neither a JSONL file nor a folder")
    else:
        docs = [d if isinstance(d, Document) else _document(d, f"documents[{i}]") for i, d in enumerate(source)]
    seen: set[str] = set()
    for doc in docs:
        if doc.doc_id in seen:
            raise ValueError(f"document id {doc.doc_id!r} appears twice; every document needs its own id")
        seen.add(doc.doc_id)
    if not docs:
        raise ValueError(f"no documents found in {source}")
    return docs


def check_output_location(documents: Any, output_dir: Any) -> None:
    """Refuse (``ValueError``) a report folder inside (or equal to) a documents folder: a second run would
    read the first run's ``report.md`` and ``report.txt`` as documents."""
    if output_dir is None or not isinstance(documents, (str, Path)) or not Path(documents).is_dir():
        return
    folder, out = Path(documents).resolve(), Path(output_dir).resolve()
    if out == folder or folder in out.parents:
        raise ValueError(f"the report folder {output_dir} is inside the documents folder {documents}: a later run "
                         "would read the reports as documents; write the report elsewhere")


def document_readers() -> dict[str, Callable[[Path], str]]:
    """Readers of further document formats (PDF, Word, ...) by suffix: LlamaIndex's file readers when
    ``llama-index-readers-file`` is installed, else none (LlamaIndex itself is imported only then)."""
    try:
        if find_spec("llama_index.readers.file") is None:
            return {}
    except (ImportError, ValueError):
        return {}
    from ..llamaindex.file_readers import file_readers

    return file_readers()


def read_document_folder(path: PathLike) -> FolderRead:
    """The documents of a folder (:func:`~rag_eval_adapters.textfiles.read_folder` with
    :func:`document_readers`) and the files skipped, by reason."""
    return read_folder(path, document_readers())


def _folder_documents(path: Path) -> list[Document]:
    """The folder's documents; a text file that is not UTF-8 is refused with its name (a benchmark never runs on
    part of its corpus without saying so; other skipped files are reported by the caller)."""
    folder = read_document_folder(path)
    for name in folder.skipped.get("not_utf8", []):
        try:
            (path / name).read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(f"document {path / name}: not UTF-8 text ({exc.reason} at byte {exc.start}, "
                             f"{exc.object[exc.start:exc.start + 1]!r}); save it as UTF-8") from None
    return [Document(doc_id, text) for doc_id, text in folder.documents.items()]


def _document(row: Any, where: str) -> Document:
    if not isinstance(row, Mapping):
        raise ValueError(f"{where}: a document is an object with \"doc_id\" and \"text\", got {type(row).__name__}")
    doc_id = row.get("doc_id", row.get("id"))
    if not isinstance(doc_id, str) or not doc_id.strip():
        raise ValueError(f"{where}: field \"doc_id\" (or \"id\") must be a non-empty string, got {doc_id!r}")
    text = row.get("text")
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"{where}: field \"text\" of document {doc_id!r} must be a non-empty string")
    return Document(doc_id, text)


# ------------------------------------------------------------------------------------------ test cases


def Case(query_id: str, query: str, query_type: str = "literal", answer: str | None = None,  # noqa: N802
         spans: Iterable[EvidenceSpan] = (), expected_texts: Iterable[str] = (), chunk_ids: Iterable[str] = (),
         line: int | None = None, extra: Mapping[str, Any] | None = None) -> TestCase:
    """A :class:`~rag_eval_adapters.testsets.TestCase` from the benchmark's former field names (kept for old
    callers: ``spans`` are ``evidence_spans``, ``chunk_ids`` are ``relevant_chunk_ids``)."""
    return TestCase(query_id, query, query_type, answer or "", relevant_chunk_ids=list(chunk_ids),
                    evidence_spans=list(spans), expected_texts=list(expected_texts), line=line, extra=dict(extra or {}))


def load_cases(path: PathLike) -> list[TestCase]:
    """The test cases of a test-set JSONL file (:func:`~rag_eval_adapters.testsets.read_testset`)."""
    return list(read_testset(path))


def cases_from_records(records: Iterable[Any]) -> list[TestCase]:
    """Test cases from a ``TestSet``, ``TestCase`` objects or mappings shaped like test-set lines."""
    return list(read_testset(records))


def check_spans(cases: Sequence[TestCase], documents: Sequence[Document]) -> None:
    """Raise ``ValueError`` when a span names an unknown document or runs past its end."""
    lengths = {d.doc_id: len(d.text) for d in documents}
    for case in cases:
        where = f"line {case.line}: " if case.line else ""
        for i, span in enumerate(case.evidence_spans):
            if span.doc_id not in lengths:
                raise ValueError(f"{where}query {case.query_id!r}: evidence_spans[{i}] names document "
                                 f"{span.doc_id!r}, which is not among the documents")
            if span.end > lengths[span.doc_id]:
                raise ValueError(f"{where}query {case.query_id!r}: evidence_spans[{i}] ends at {span.end}, past "
                                 f"the end of document {span.doc_id!r} ({lengths[span.doc_id]} characters)")
