"""``rag-eval generate``: a test set of typed questions with answers and evidence, from a corpus, by an
OpenAI-compatible LLM."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, TextIO

from ._errors import CLIError, one_line
from ._io import check_count
from ._models import add_llm_options, llm_from_args
from ._progress import progress_enabled


def add_parser(sub: Any) -> None:
    """Register the command on the ``rag-eval`` subparsers."""
    gp = sub.add_parser(
        "generate", help="generate a test set (questions, answers, evidence) from chunks with an LLM",
        description="Sample chunks, ask an OpenAI-compatible LLM for literal, paraphrase and scenario questions "
                    "with a verbatim evidence quote, and write one case a line (JSONL) with the relevant chunk ids. "
                    "Re-running with the same --output resumes; --cache makes a re-run free.",
    )
    gp.add_argument("--corpus", required=True, metavar="PATH",
                    help="a JSONL of chunks (chunk_id, text[, doc_id, start]) or of documents (doc_id, text), or a "
                         "folder of .txt/.md files (chunked with LlamaIndex's SentenceSplitter)")
    gp.add_argument("--samples", type=int, default=30, metavar="N", help="cases to generate (default 30)")
    gp.add_argument("--types", default="literal,paraphrase,scenario", metavar="LIST",
                    help="question types, comma-separated (default literal,paraphrase,scenario)")
    gp.add_argument("--per-chunk", type=int, default=1, metavar="N", help="questions per chunk and type (default 1)")
    gp.add_argument("--seed", type=int, default=0, help="seed of the chunk sampling (default 0)")
    add_llm_options(gp, required=True, model_help="the model writing the questions, e.g. gpt-4o-mini")
    gp.add_argument("--temperature", type=float, default=0.0, help="sampling temperature (default 0)")
    gp.add_argument("--chunk-size", type=int, default=512, metavar="TOKENS", help="chunk size for documents (512)")
    gp.add_argument("--chunk-overlap", type=int, default=64, metavar="TOKENS", help="chunk overlap (64)")
    gp.add_argument("--min-chunk-chars", type=int, default=80, metavar="N",
                    help="skip chunks with fewer non-blank characters (default 80)")
    gp.add_argument("--max-concurrency", type=int, default=8, metavar="N", help="requests in flight (default 8)")
    gp.add_argument("--timeout", type=float, default=120.0, metavar="S", help="seconds per request (default 120)")
    gp.add_argument("--price-input", type=float, metavar="P", help="price per million input tokens, for the cost")
    gp.add_argument("--price-output", type=float, default=0.0, metavar="P", help="price per million output tokens")
    gp.add_argument("--cache", metavar="FILE", help="SQLite cache of model replies (a re-run costs nothing)")
    gp.add_argument("--dry-run", action="store_true", help="estimate calls, tokens and cost; call nothing")
    gp.add_argument("--output", metavar="FILE", help="the test set JSONL (required unless --dry-run)")
    gp.set_defaults(func=cmd_generate)


def _check_numbers(args: argparse.Namespace) -> None:
    for name in ("samples", "per_chunk", "max_concurrency", "chunk_size"):
        check_count(getattr(args, name), f"--{name.replace('_', '-')}")
    for name in ("chunk_overlap", "min_chunk_chars", "seed"):
        check_count(getattr(args, name), f"--{name.replace('_', '-')}", minimum=0)
    if not args.timeout > 0:
        raise CLIError(f"--timeout must be positive, got {args.timeout}")
    if not 0 <= args.temperature <= 2:
        raise CLIError(f"--temperature must be in [0, 2], got {args.temperature}")


def _read_jsonl(path: Path) -> tuple[list[dict], dict[str, str]]:
    from ..jsonl import read_jsonl_objects

    chunks, documents = [], {}
    try:
        for number, row in read_jsonl_objects(path):
            where = f"{path}:{number}"
            if not isinstance(row.get("text"), str):
                raise CLIError(f"{where}: expected an object with a 'text' string")
            if "chunk_id" in row:
                chunks.append(row)
            elif isinstance(row.get("doc_id", row.get("id")), str):
                documents[row.get("doc_id", row.get("id"))] = row["text"]
            else:
                raise CLIError(f"{where}: give 'chunk_id' (a chunk) or 'doc_id' (a document)")
            if chunks and documents:
                raise CLIError(f"{where}: the file mixes chunks and documents; use one kind")
    except ValueError as exc:
        raise CLIError(one_line(str(exc))) from None
    return chunks, documents


def _read_folder(path: Path) -> dict[str, str]:
    files = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in (".txt", ".md"))
    if not files:
        raise CLIError(f"folder {str(path)!r} holds no .txt or .md files")
    documents = {}
    for file in files:
        try:
            documents[file.relative_to(path).as_posix()] = file.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise CLIError(f"{file}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    return documents


def load_corpus(path: str, chunk_size: int, chunk_overlap: int) -> list[dict]:
    """The chunks of ``--corpus`` (documents are chunked with LlamaIndex's SentenceSplitter)."""
    source = Path(path)
    if source.is_dir():
        chunks, documents = [], _read_folder(source)
    elif source.is_file():
        chunks, documents = _read_jsonl(source)
    else:
        raise CLIError(f"corpus {path!r} not found (a JSONL file or a folder of .txt/.md files)")
    if documents:
        from ..llamaindex.chunking import chunk_documents

        chunks = chunk_documents(documents, chunk_size, chunk_overlap)
    if not chunks:
        raise CLIError(f"corpus {path!r} holds no chunks")
    return chunks


def cmd_generate(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    from ..modelcalls import CacheError, ModelCallError, Prices
    from ..testsets import generate_testset

    _check_numbers(args)
    if not args.output and not args.dry_run:
        raise CLIError("give --output FILE for the test set (or --dry-run to estimate only)")
    if args.output and Path(args.output).resolve() == Path(args.corpus).resolve():
        raise CLIError(f"--output {args.output!r} is the corpus; choose another file")
    chunks = load_corpus(args.corpus, args.chunk_size, args.chunk_overlap)
    llm = llm_from_args(args, require_key=not args.dry_run, temperature=args.temperature, timeout=args.timeout)
    try:
        prices = Prices(args.price_input, args.price_output) if args.price_input is not None else None
        testset = generate_testset(
            chunks, llm, samples=args.samples, types=args.types, per_chunk=args.per_chunk, seed=args.seed,
            max_concurrency=args.max_concurrency, cache=args.cache, output=args.output, dry_run=args.dry_run,
            prices=prices, timeout=args.timeout, min_chunk_chars=args.min_chunk_chars,
            progress=progress_enabled(stderr),
        )
    except (ValueError, TypeError, CacheError, ModelCallError) as exc:
        raise CLIError(one_line(str(exc))) from None
    print(json.dumps(testset.summary, indent=2, ensure_ascii=False), file=stdout)
    return 0
