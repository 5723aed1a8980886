"""The model options every command shares and the one way they become models.

Three roles, each spelled ``--ROLE-model`` (``--embedder`` for the embedder), ``--ROLE-base-url`` and (for the chat
models) ``--ROLE-api-key-env``: the LLM that writes (``--llm-*``), the LLM judge (``--judge-*``, from
:func:`add_judge_options` wherever a judge is used) and the embedder (``--embedder``, ``--embedder-base-url``).
They become models through :func:`rag_eval_adapters.modelcalls.resolve_llm` and
:func:`~rag_eval_adapters.modelcalls.resolve_embedder`, with their errors as one-line CLI errors."""

from __future__ import annotations

import argparse
from typing import Any

from ..modelcalls import EMBEDDERS, LLM_PROVIDERS, resolve_embedder, resolve_llm
from ._errors import CLIError, one_line
from ._vocabulary import add_deprecated

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
    """The chat LLM the ``--llm-*`` options name; a bad name or a missing key is a ``ValueError`` (one line, by
    ``main``)."""
    return resolve_llm(args.llm_model, base_url=args.llm_base_url, api_key_env=args.llm_api_key_env,
                       require_key=require_key, **options)


def add_judge_options(parser: argparse.ArgumentParser, *, required: bool = False, model_help: str,
                      api_key_env: bool = True, llm_fallback: bool = False) -> None:
    """Add ``--judge-model`` (``required`` or not), ``--judge-base-url`` and ``--judge-api-key-env``: the judge
    options of every command that uses a judge (``llm_fallback``: each defaults to its ``--llm-*`` option, as in
    ``bench``). ``api_key_env`` is kept for callers of earlier versions; the key option is always declared."""
    del api_key_env  # every judge can name its key's variable
    fallback = " (default --llm-base-url)" if llm_fallback else "; default OpenAI"
    parser.add_argument("--judge-model", required=required, metavar="M", help=model_help)
    parser.add_argument("--judge-base-url", metavar="URL",
                        help=f"the judge's OpenAI-compatible endpoint (vLLM, Ollama, llama.cpp){fallback}")
    parser.add_argument("--judge-api-key-env", metavar="NAME",
                        help="environment variable holding the judge's key (default "
                             + ("--llm-api-key-env's, else " if llm_fallback else "") + "the provider's: "
                             "OPENAI_API_KEY)")


def judge_from_args(args: argparse.Namespace, **options: Any) -> Any:
    """The judge's chat LLM that ``--judge-model``, ``--judge-base-url`` and ``--judge-api-key-env`` name, each
    falling back to its ``--llm-*`` option where the command has one (:func:`judge_llm`)."""
    model = args.judge_model or getattr(args, "llm_model", None)
    base_url = args.judge_base_url or getattr(args, "llm_base_url", None)
    key = args.judge_api_key_env or getattr(args, "llm_api_key_env", None)
    return judge_llm(model, base_url, key, **options)


def judge_llm(model: str | None, base_url: str | None, api_key_env: str | None = None, **options: Any) -> Any:
    """The judge's chat LLM (:func:`~rag_eval_adapters.modelcalls.resolve_llm`); a bad name or a missing key is a
    :class:`CLIError` starting ``the judge:``."""
    if not model:
        raise CLIError("the judge needs a model: give --judge-model (and --judge-base-url for a local server)")
    try:
        return resolve_llm(model, base_url=base_url, api_key_env=api_key_env, **options)
    except ValueError as exc:
        raise CLIError(f"the judge: {one_line(str(exc))}") from None


def add_embedder_options(parser: argparse.ArgumentParser, *, what: str) -> None:
    """Add ``--embedder NAME`` and ``--embedder-base-url`` (for a remote embedder; ``--base-url`` its deprecated
    spelling), both read into ``args.embedder`` and ``args.base_url``."""
    parser.add_argument("--embedder", default="e5", metavar="NAME",
                        help=f"the embedder for {what}: {_SHAPES} (default e5)")
    parser.add_argument("--embedder-base-url", dest="base_url", metavar="URL",
                        help="the OpenAI-compatible endpoint for --embedder openai:MODEL")
    add_deprecated(parser, "--base-url", "--embedder-base-url", dest="base_url")


def embedder_from_args(spec: str, base_url: str | None) -> Any:
    """The embedder ``--embedder`` names; a bad name or a missing key is a :class:`CLIError`."""
    try:
        return resolve_embedder(spec, base_url=base_url)
    except (ValueError, ImportError) as exc:
        raise CLIError(f"--embedder: {one_line(str(exc))}") from None
