"""Where a benchmark's numbers came from: package version, content hashes, settings, model usage."""

from __future__ import annotations

import dataclasses
import hashlib
import platform
from pathlib import Path
from typing import Any

from .. import __version__
from .inputs import read_document_folder, sha256_text

__all__ = ["provenance", "usage_of"]


def _file_hash(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def provenance(result: Any, documents: Any, testset: Any, origin: str) -> dict[str, Any]:
    """Version, hashes of every document (and of all of them), of the test set, and every setting."""
    per_doc = {d.doc_id: sha256_text(d.text) for d in result.documents}
    combined = hashlib.sha256("\n".join(f"{k}\t{v}" for k, v in sorted(per_doc.items())).encode()).hexdigest()
    testset_hash = _file_hash(Path(testset)) if isinstance(testset, (str, Path)) else \
        sha256_text("\n".join(repr(c) for c in result.cases))
    docs_entry: dict[str, Any] = {"source": str(documents) if isinstance(documents, (str, Path)) else "records",
                                  "count": len(result.documents), "sha256": combined, "per_document_sha256": per_doc}
    if isinstance(documents, (str, Path)) and Path(documents).is_dir():  # the files not read, by reason
        docs_entry["skipped"] = read_document_folder(documents).skipped
    return {
        "package": "rag-eval-adapters",
        "version": __version__,
        "python": platform.python_version(),
        "documents": docs_entry,
        "testset": {"source": origin, "sha256": testset_hash, "cases": len(result.cases)},
        "settings": dataclasses.asdict(result.settings),
        "chunkings": {name: len(chunks) for name, chunks in result.chunks.items()},
        "configurations": [r.name for r in result.results],
    }


def usage_of(scorers: list, answerer: Any, vectors: Any) -> dict[str, Any]:
    """Model usage: reranker calls and cost (when the scorer reports them), answerer tokens, embeddings."""
    usage: dict[str, Any] = {}
    for scorer, label in scorers:
        found = getattr(scorer, "usage", None)
        if found is not None:
            usage[f"reranker:{label}"] = found.to_dict() if hasattr(found, "to_dict") else \
                (dataclasses.asdict(found) if dataclasses.is_dataclass(found) and not isinstance(found, type)
                 else str(found))
    if answerer is not None:
        usage["answerer"] = {"name": getattr(answerer, "name", type(answerer).__name__),
                             **(getattr(answerer, "usage", None) or {})}
    if vectors is not None:
        usage["embeddings"] = {"model": vectors.name, "computed": vectors.computed, "from_cache": vectors.reused}
    return usage
