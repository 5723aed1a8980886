"""A framework's retriever as a benchmark retriever: built by a factory over each chunking's chunks.

:class:`FactoryRetriever` holds what the LlamaIndex and LangChain benchmark retrievers
(``llamaindex/chunk_retrievers.py``, ``langchain/chunk_retrievers.py``) share: the factory check, building the
retriever over a chunking's chunks, the check of what the factory returned, and the ranking rule of
:func:`ranked_hits`. A framework's subclass says only how a chunk becomes the framework's item and how a
query's results become ``(id, score)`` pairs. This module imports no framework.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

__all__ = ["FactoryRetriever", "FactorySearch", "ranked_hits"]


def ranked_hits(pairs: Sequence[tuple[Any, Any]], k: int) -> list[tuple[str, float]]:
    """The first ``k`` of a retriever's ``(id, score)`` results, in the retriever's order, as ``(str id, score)``.

    The scores are kept when every one is a finite number; otherwise each result scores ``1 / rank`` (1, 1/2,
    1/3, ...), so the order is the retriever's either way.

    >>> ranked_hits([("a", 0.9), (2, 0.4)], 5)
    [('a', 0.9), ('2', 0.4)]
    >>> ranked_hits([("a", None), ("b", 0.4), ("c", 0.1)], 2)
    [('a', 1.0), ('b', 0.5)]
    """
    if all(isinstance(s, (int, float)) and math.isfinite(s) for _, s in pairs):
        return [(str(i), float(s)) for i, s in pairs][:k]
    return [(str(i), 1.0 / rank) for rank, (i, _) in enumerate(pairs, start=1)][:k]


class FactorySearch:
    """A built retriever, searched one query at a time (the object :meth:`FactoryRetriever.index` returns)."""

    def __init__(self, retriever: Any, hits: Callable[[Any, str], Sequence[tuple[Any, Any]]]) -> None:
        self.retriever = retriever
        self._hits = hits

    def search(self, queries: Sequence[str], k: int) -> list[list[tuple[str, float]]]:
        """For each query, its first ``k`` results as ``(chunk id, score)`` (:func:`ranked_hits`)."""
        return [ranked_hits(self._hits(self.retriever, q), k) for q in queries]


class FactoryRetriever:
    """A framework retriever built by ``factory(items)`` over each chunking's chunks (the benchmark's protocol).

    Subclasses set :attr:`framework` (its name in messages), :attr:`items` (what the factory is given) and
    :attr:`method` (the method a retriever of the framework has), and implement :meth:`chunk_items` and
    :meth:`hits`.

    Parameters
    ----------
    factory : callable
        ``factory(items) -> retriever``, called once a chunking with that chunking's items.
    name : str
        The retriever's name in the benchmark's results.

    Raises
    ------
    TypeError
        ``factory`` is not callable; from :meth:`index`, the factory returned no retriever of the framework.
    """

    framework: ClassVar[str] = ""
    items: ClassVar[str] = ""
    method: ClassVar[str] = ""

    def __init__(self, factory: Callable[[list[Any]], Any], name: str) -> None:
        if not callable(factory):
            raise TypeError(
                f"factory must be a function {self.items} -> {self.framework} retriever, got {type(factory).__name__}"
            )
        self.factory, self.name = factory, name

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"

    def chunk_items(self, chunks: Sequence[Any]) -> list[Any]:
        """The framework's items for ``chunks`` (objects with ``chunk_id``, ``text`` and ``doc_id``)."""
        raise NotImplementedError

    def hits(self, retriever: Any, query: str) -> list[tuple[Any, Any]]:
        """``(chunk id, score or None)`` of each result of ``query``, in the retriever's order."""
        raise NotImplementedError

    def index(self, chunks: Sequence[Any]) -> FactorySearch:
        """Build the retriever over ``chunks`` (objects with ``chunk_id``, ``text`` and ``doc_id``)."""
        retriever = self.factory(self.chunk_items(chunks))
        if not hasattr(retriever, self.method):
            raise TypeError(
                f"{self.name}: the factory returned {type(retriever).__name__}, not a {self.framework} retriever"
            )
        return FactorySearch(retriever, self.hits)
