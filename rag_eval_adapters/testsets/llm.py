"""The LLM protocol the generator calls and :class:`OpenAICompatibleLLM` (their home is
:mod:`rag_eval_adapters.modelcalls`; re-exported here, where they were first)."""

from __future__ import annotations

from ..modelcalls.chat import ChatLLM, Completion, as_chat_llm
from ..modelcalls.openai_chat import OpenAICompatibleLLM

__all__ = ["ChatLLM", "Completion", "OpenAICompatibleLLM", "as_chat_llm"]
