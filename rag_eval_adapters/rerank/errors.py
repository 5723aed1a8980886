"""Errors raised by the rerank package."""

from __future__ import annotations


def short_query(query: object, limit: int = 80) -> str:
    """``repr`` of a query cut to ``limit`` characters, for error messages."""
    text = repr(query)
    return text if len(text) <= limit else text[: limit - 4] + "...'"


class RerankError(RuntimeError):
    """A reranker could not score a query (after its retries, if any).

    Attributes: ``query`` (the query text), ``status_code`` (HTTP status of the last attempt, or None for a
    transport error / timeout) and ``attempts`` (HTTP attempts made).
    """

    def __init__(self, message: str, *, query: str, status_code: int | None = None, attempts: int = 0) -> None:
        super().__init__(message)
        self.query = query
        self.status_code = status_code
        self.attempts = attempts


class RerankResponseError(RerankError):
    """The endpoint answered, but with a body that is not a valid rerank response (missing/duplicate index,
    non-finite or out-of-range score, not JSON). Not retried: the request was already served (and billed)."""
