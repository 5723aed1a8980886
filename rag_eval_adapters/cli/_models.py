"""The model options every command shares (``--llm-model``, ``--llm-base-url``, ``--llm-api-key-env``,
``--embedder``) and the one way they become models: :func:`rag_eval_adapters.modelcalls.resolve_llm` and
:func:`~rag_eval_adapters.modelcalls.resolve_embedder`, with their errors as one-line CLI errors."""

from __future__ import annotations

import argparse
from typing import Any

from ..modelcalls import EMBEDDERS, LLM_PROVIDERS, resolve_embedder, resolve_llm
from ._errors import CLIError, one_line

_SHAPES = ", ".join(name + (":MODEL" if b.model else "") for name, b in EMBEDDERS.items())


def add_llm_options(parser: argparse.ArgumentParser, *, required: bool = False, model_help: str) -> None:
    """Add ``--llm-model`` (``required`` or not), ``--llm-base-url`` and ``--llm-api-key-env``."""
    providers = ", ".join(f"{name}:MODEL" for name in LLM_PROVIDERS)
    parser.add_argument("--llm-model", required=required, metavar="M",
                        help=f"{model_help} (a model name, or {providers})")
    parser.add_argument("--llm-base-url", metavar="URL",
                        help="an OpenAI-compatible endpoint (vLLM, Ollama, llama.cpp); default OpenAI")
    parser.add_argument("--llm-api-key-env", metavar="NAME",
                        help="environment variable holding the API key (default the provider's: OPENAI_API_KEY)")


def llm_from_args(args: argparse.Namespace, *, require_key: bool = True, **options: Any) -> Any:
    """The chat LLM the ``--llm-*`` options name; a bad name or a missing key is a :class:`CLIError`."""
    try:
        return resolve_llm(args.llm_model, base_url=args.llm_base_url, api_key_env=args.llm_api_key_env,
                           require_key=require_key, **options)
    except ValueError as exc:
        raise CLIError(one_line(str(exc))) from None


def add_judge_options(parser: argparse.ArgumentParser, *, required: bool = False, model_help: str,
                      api_key_env: bool = True) -> None:
    """Add ``--judge-model`` (``required`` or not), ``--judge-base-url`` and (``api_key_env``) ``--judge-api-key-env``."""
    parser.add_argument("--judge-model", required=required, metavar="M", help=model_help)
    parser.add_argument("--judge-base-url", metavar="URL",
                        help="the judge's OpenAI-compatible endpoint (vLLM, Ollama, llama.cpp); default OpenAI")
    if api_key_env:
        parser.add_argument("--judge-api-key-env", metavar="NAME",
                            help="environment variable holding the judge's key (default the provider's: "
                                 "OPENAI_API_KEY)")


def judge_llm(model: str, base_url: str | None, api_key_env: str | None = None, **options: Any) -> Any:
    """The judge's chat LLM (:func:`~rag_eval_adapters.modelcalls.resolve_llm`); a bad name or a missing key is a
    :class:`CLIError` starting ``the judge:``."""
    try:
        return resolve_llm(model, base_url=base_url, api_key_env=api_key_env, **options)
    except ValueError as exc:
        raise CLIError(f"the judge: {one_line(str(exc))}") from None


def add_embedder_options(parser: argparse.ArgumentParser, *, what: str) -> None:
    """Add ``--embedder NAME`` and ``--base-url`` (for a remote embedder)."""
    parser.add_argument("--embedder", default="e5", metavar="NAME",
                        help=f"the embedder for {what}: {_SHAPES} (default e5)")
    parser.add_argument("--base-url", metavar="URL", help="the OpenAI-compatible endpoint for --embedder openai:MODEL")


def embedder_from_args(spec: str, base_url: str | None) -> Any:
    """The embedder ``--embedder`` names; a bad name or a missing key is a :class:`CLIError`."""
    try:
        return resolve_embedder(spec, base_url=base_url)
    except (ValueError, ImportError) as exc:
        raise CLIError(f"--embedder: {one_line(str(exc))}") from None
