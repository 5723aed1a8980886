"""Generate a test set (questions, answers, evidence) from chunks with an LLM.

Sample chunks, ask an OpenAI-compatible LLM for literal, paraphrase, scenario, multi-hop or unanswerable questions
with verbatim evidence quotes, and write one case a line (JSONL) with the relevant chunk ids. Re-running with the same --output resumes;
--cache-dir makes a re-run free.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, TextIO

from ._budget import add_budget_options, print_estimate
from ._errors import CLIError
from ._io import add_cache_options, cache_file, cache_output, check_count, check_outputs
from ._models import add_llm_options, embedder_from_args, llm_from_args
from ._progress import progress_enabled
from ._vocabulary import add_deprecated


def add_arguments(gp: argparse.ArgumentParser) -> None:
    """The options of ``rag-eval generate``."""
    gp.add_argument("--documents", dest="corpus", metavar="PATH",
                    help="a JSONL of chunks (chunk_id, text[, doc_id, start]) or of documents (doc_id, text), or a "
                         "folder of .txt, .md, .rst, .html files (and .pdf, .docx... with llama-index-readers-file "
                         "installed), chunked with LlamaIndex's SentenceSplitter; the files read and skipped are "
                         "counted (required)")
    add_deprecated(gp, "--corpus", "--documents", dest="corpus", metavar="PATH")
    gp.add_argument("--samples", type=int, default=30, metavar="N", help="cases to generate (default 30)")
    gp.add_argument("--types", default="literal,paraphrase,scenario", metavar="LIST",
                    help="question types, comma-separated, among literal, paraphrase, scenario, multi_hop (two chunks "
                         "needed) and unanswerable (no answer in the corpus) (default literal,paraphrase,scenario)")
    gp.add_argument("--check-embedder", default="e5", metavar="NAME",
                    help="the embedder that, beside BM25, checks unanswerable questions against the corpus (e5, "
                         "openai:MODEL, or none; default e5; used only with --types ...unanswerable)")
    gp.add_argument("--per-chunk", type=int, default=1, metavar="N", help="questions per chunk and type (default 1)")
    gp.add_argument("--seed", type=int, default=0, help="seed of the chunk sampling (default 0)")
    add_llm_options(gp, required=True, model_help="the model writing the questions, e.g. gpt-4o-mini")
    gp.add_argument("--temperature", type=float, default=0.0, help="sampling temperature (default 0)")
    gp.add_argument("--chunk-size", type=int, default=512, metavar="TOKENS", help="chunk size for documents (512)")
    gp.add_argument("--chunk-overlap", type=int, default=64, metavar="TOKENS", help="chunk overlap (64)")
    gp.add_argument("--min-chunk-chars", type=int, default=80, metavar="N",
                    help="skip chunks with fewer non-blank characters, a CJK character counting as 4 (default 80)")
    gp.add_argument("--max-concurrency", type=int, default=8, metavar="N", help="requests in flight (default 8)")
    gp.add_argument("--timeout", type=float, default=120.0, metavar="S", help="seconds per request (default 120)")
    gp.add_argument("--price-input", type=float, metavar="P", help="price per million input tokens, for the cost")
    gp.add_argument("--price-output", type=float, default=0.0, metavar="P", help="price per million output tokens")
    add_cache_options(gp, what="the model's replies, in DIR/generate.sqlite (a re-run costs nothing)",
                      default="none; a re-run with the same --output resumes")
    gp.add_argument("--dry-run", action="store_true", help="estimate calls, tokens and cost; call nothing")
    gp.add_argument("--output", "-o", metavar="FILE", help="the test set JSONL (required unless --dry-run)")
    gp.set_defaults(func=cmd_generate)
    add_budget_options(gp)  # --max-cost, --max-calls: after func, which it runs under the limits


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

    chunks: list[dict] = []
    documents: dict[str, str] = {}
    for number, row in read_jsonl_objects(path):
        where = f"{path}:{number}"
        if not isinstance(row.get("text"), str):
            raise CLIError(f"{where}: expected an object with a 'text' string")
        if "chunk_id" in row:
            chunks.append(row)
        elif isinstance(doc_id := row.get("doc_id", row.get("id")), str):
            documents[doc_id] = row["text"]
        else:
            raise CLIError(f"{where}: give 'chunk_id' (a chunk) or 'doc_id' (a document)")
        if chunks and documents:
            raise CLIError(f"{where}: the file mixes chunks and documents; use one kind")
    return chunks, documents


def _read_folder(path: Path) -> tuple[dict[str, str], dict[str, Any]]:
    from ..bench import read_document_folder

    read = read_document_folder(path)
    if not read.documents:
        raise CLIError(f"folder {str(path)!r} holds no document to read ({read.describe()}; read are .txt, .md, "
                       ".rst, .html and, with llama-index-readers-file installed, .pdf, .docx, .pptx, .epub, .ipynb)")
    return read.documents, {**read.counts(), "skipped_files": read.skipped, "line": read.describe()}


def load_corpus(path: str, chunk_size: int, chunk_overlap: int) -> tuple[list[dict], dict[str, Any] | None]:
    """The chunks of ``--documents`` (documents are chunked with LlamaIndex's SentenceSplitter) and, for a
    folder, what was read and skipped (:meth:`~rag_eval_adapters.textfiles.FolderRead.counts`)."""
    source = Path(path)
    reading = None
    if source.is_dir():
        documents, reading = _read_folder(source)
        chunks: list[dict] = []
    elif source.is_file():
        chunks, documents = _read_jsonl(source)
    else:
        raise CLIError(f"corpus {path!r} not found (a JSONL file or a folder of text files)")
    if documents:
        from ..llamaindex.chunking import chunk_documents

        chunks = chunk_documents(documents, chunk_size, chunk_overlap)
    if not chunks:
        raise CLIError(f"corpus {path!r} holds no chunks")
    return chunks, reading


def cmd_generate(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    from ..modelcalls import Prices
    from ..testsets import describe_shortfall, generate_testset

    _check_numbers(args)
    if not args.corpus:
        raise CLIError("give --documents PATH: the chunks or documents to write questions about")
    if not args.output and not args.dry_run:
        raise CLIError("give --output FILE for the test set (or --dry-run to estimate only)")
    if args.output and Path(args.output).resolve() == Path(args.corpus).resolve():
        raise CLIError(f"--output {args.output!r} is the corpus; choose another file")
    check_outputs([args.corpus], output=args.output, **cache_output(args, "generate.sqlite"))
    # the key is checked before the corpus is read (a large corpus is not read for nothing)
    llm = llm_from_args(args, require_key=not args.dry_run, temperature=args.temperature, timeout=args.timeout)
    chunks, reading = load_corpus(args.corpus, args.chunk_size, args.chunk_overlap)
    line = reading.pop("line") if reading is not None else None
    if reading is not None and reading["skipped"]:  # files not read are never silent
        print(f"rag-eval: documents: {line}", file=stderr)
    prices = Prices(args.price_input, args.price_output) if args.price_input is not None else None
    options = dict(samples=args.samples, types=args.types, per_chunk=args.per_chunk, seed=args.seed,
                   max_concurrency=args.max_concurrency, cache=cache_file(args, "generate.sqlite"), output=args.output,
                   prices=prices, timeout=args.timeout, min_chunk_chars=args.min_chunk_chars)
    if "unanswerable" in args.types and args.check_embedder != "none" and not args.dry_run:
        options["embedder"] = embedder_from_args(args.check_embedder, args.llm_base_url
                                                 if args.check_embedder.startswith("openai:") else None)
    if not args.dry_run:  # what it will cost, said before anything is sent
        print_estimate(f"generate ({llm.name})", generate_testset(chunks, llm, dry_run=True, **options).summary,
                       stderr)
    testset = generate_testset(chunks, llm, dry_run=args.dry_run, progress=progress_enabled(stderr), **options)
    summary = testset.summary
    if reading is not None:
        summary["documents"] = reading
    print(json.dumps(summary, indent=2, ensure_ascii=False), file=stdout)
    if not args.dry_run:
        shortfall = describe_shortfall(summary)
        if shortfall:
            print(f"rag-eval: {shortfall}", file=stderr)
        _report_failures(summary, stderr)
    return 0


def _report_failures(summary: dict[str, Any], stderr: TextIO) -> None:
    """Say on stderr how many model calls failed; no case generated at all is an error (exit 2)."""
    failed = summary.get("failed_calls", 0)
    counts = ", ".join(f"{reason}: {n}" for reason, n in summary["dropped"].items())
    if not summary["generated"]:
        raise CLIError(f"no test case was generated (requested: {summary['requested']}, generated: 0"
                       f"{', ' + counts if counts else ''}; failed model calls: {failed})")
    if failed:
        print(f"rag-eval: warning: {failed} model call(s) failed after their retries; "
              f"{summary['dropped'].get('call_failed', 0)} of {summary['requested']} requested cases were dropped as "
              "call_failed (re-run with the same --output to ask for them again)", file=stderr)
