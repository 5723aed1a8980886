"""Model objects and caches as context managers: ``with OpenAICompatibleLLM(...) as llm:`` closes it at the
end of the block, as ``llm.close()`` does."""

from __future__ import annotations

from typing import Any, TypeVar

__all__ = ["Closeable"]

_Self = TypeVar("_Self", bound="Closeable")


class Closeable:
    """A base giving ``close()`` (here nothing to release; a subclass overrides it) and the context manager
    that calls it: ``with obj:`` returns ``obj`` and closes it on leaving the block, even on an error."""

    def close(self) -> None:
        """Release what the object holds (connections, files); nothing here."""

    def __enter__(self: _Self) -> _Self:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
