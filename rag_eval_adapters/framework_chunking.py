"""A framework's text splitter as a benchmark chunking: the part every framework shares.

:class:`FrameworkChunking` holds what the LlamaIndex and LangChain benchmark chunkings
(``llamaindex/chunking.py``, ``langchain/chunking.py``) share: the check that the splitter is one of the
framework, the default name, the ``repr``, and the rule of :meth:`~FrameworkChunking.pieces` (the splitter's
chunks in order, blank ones dropped). A framework's subclass says only how one document is split. This module
imports no framework.
"""

from __future__ import annotations

from typing import Any, ClassVar

__all__ = ["FrameworkChunking"]


class FrameworkChunking:
    """A framework's splitter as a benchmark chunking: ``name`` and ``pieces(doc_id, text)``
    (:class:`rag_eval_adapters.bench.chunking.PieceChunking` turns the pieces into chunks).

    Subclasses set :attr:`method` (the method every splitter of the framework has), :attr:`kind` (what the
    splitter is called in messages) and :attr:`role` (its name in the ``repr``), and implement :meth:`chunks`.

    Parameters
    ----------
    splitter : object
        The framework's splitter; it must have the method :attr:`method`.
    name : str, optional
        The chunking's name in chunk ids and reports; default the splitter's class name.

    Raises
    ------
    TypeError
        ``splitter`` has no method :attr:`method`.
    """

    method: ClassVar[str] = ""
    kind: ClassVar[str] = ""
    role: ClassVar[str] = "splitter"

    def __init__(self, splitter: Any, name: str | None = None) -> None:
        if not hasattr(splitter, self.method):
            raise TypeError(f"expected {self.kind}, got {type(splitter).__name__}")
        self.splitter = splitter
        self.name = name or type(splitter).__name__

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, {self.role}={type(self.splitter).__name__})"

    def chunks(self, doc_id: str, text: str) -> list[tuple[str, int | None]]:
        """``[(chunk text, start offset or None)]`` of every chunk the splitter makes of one document."""
        raise NotImplementedError

    def pieces(self, doc_id: str, text: str) -> list[tuple[str, int | None]]:
        """``[(chunk text, start offset or None)]`` of one document, in order, blank chunks left out."""
        return [(chunk, start) for chunk, start in self.chunks(doc_id, text) if chunk.strip()]
