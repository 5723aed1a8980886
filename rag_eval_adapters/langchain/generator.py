"""A LangChain chat model as the chat model of :func:`rag_eval_adapters.testsets.generate_testset`."""

from __future__ import annotations

from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from ..modelcalls.chat import FrameworkChatLLM
from ..testsets import Completion

__all__ = ["LangChainChatLLM"]

_MESSAGES = {"system": SystemMessage, "user": HumanMessage, "assistant": AIMessage}


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content blocks
        return "".join(b if isinstance(b, str) else str(b.get("text", "")) for b in content if isinstance(b, (str, dict)))
    return ""


class LangChainChatLLM(FrameworkChatLLM):
    """Wrap a LangChain chat model (e.g. ``langchain_openai.ChatOpenAI``) as a test-set generator's chat
    model: messages go through ``model.invoke``; token usage is read from ``usage_metadata``. Build the model
    with ``max_retries=0`` so the generator's retries, which honour ``retry-after``, are the only ones."""

    def __init__(self, model: BaseChatModel) -> None:
        if not isinstance(model, BaseChatModel):
            raise TypeError(f"model must be a LangChain chat model (BaseChatModel), got {type(model).__name__}")
        self.model = model
        super().__init__(model, getattr(model, "model_name", None))

    def chat(self, messages: list[dict[str, str]], **request: Any) -> Completion:
        """One chat answer for OpenAI-style ``messages``; ``request`` (the judges' ``response_format``, ``seed``,
        ``temperature``) goes to ``model.invoke`` as keyword arguments, which ``ChatOpenAI`` sends with the
        request (a model that refuses them makes the judges ask again without)."""
        reply = self.model.invoke([_MESSAGES[m["role"]](content=m["content"]) for m in messages], **request)
        usage = getattr(reply, "usage_metadata", None) or {}
        refusal = (getattr(reply, "additional_kwargs", None) or {}).get("refusal")
        return Completion(text=_text(getattr(reply, "content", "")), input_tokens=int(usage.get("input_tokens") or 0),
                          output_tokens=int(usage.get("output_tokens") or 0), refusal=refusal)
