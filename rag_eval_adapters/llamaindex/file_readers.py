"""LlamaIndex's file readers (``llama-index-readers-file``: PDF, Word, PowerPoint, EPUB, notebooks) as readers
of :func:`rag_eval_adapters.textfiles.read_folder`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["READER_CLASSES", "file_readers"]

#: the suffixes read through ``llama_index.readers.file`` and the reader class of each
READER_CLASSES = {".pdf": "PDFReader", ".docx": "DocxReader", ".pptx": "PptxReader", ".epub": "EpubReader",
                  ".ipynb": "IPYNBReader"}


def _reader(cls: Any) -> Callable[[Path], str]:
    def read(path: Path) -> str:
        return "\n\n".join(doc.get_content() for doc in cls().load_data(file=Path(path)))

    return read


def file_readers() -> dict[str, Callable[[Path], str]]:
    """``{suffix: function(path) -> text}`` for the formats of :data:`READER_CLASSES` whose reader is
    installed (``pip install llama-index-readers-file``); ``{}`` when the package is not installed."""
    try:
        import llama_index.readers.file as files
    except ImportError:
        return {}
    return {suffix: _reader(getattr(files, name)) for suffix, name in READER_CLASSES.items() if hasattr(files, name)}
