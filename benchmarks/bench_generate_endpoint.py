"""Run the whole test-set generator, harder types included, against a real OpenAI-compatible endpoint.

The verifiers are measured offline by ``bench_harder_checks.py``; this script shows what a real model's replies
become: how many questions of each type are kept, and why the others are dropped (the summary's ``dropped``),
which checks confirmed each unanswerable question, and a few kept cases to read. The corpus defaults to the
installed numpy's docstrings (one chunk a function, as in ``bench_harder_checks.py``); ``--corpus`` takes a JSONL
of chunks (``chunk_id``, ``text``).

    python benchmarks/bench_generate_endpoint.py --model gpt-4o-mini                     # OPENAI_API_KEY
    python benchmarks/bench_generate_endpoint.py --model qwen2.5:7b-instruct --base-url http://localhost:11434/v1
    python benchmarks/bench_generate_endpoint.py --model M --base-url URL --judge-model M --samples 40 --e5

Nothing is sent before the dry-run estimate is printed; ``--max-calls`` bounds the run.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from rag_eval_adapters.modelcalls import Budget, BudgetedChatLLM, resolve_embedder, resolve_llm
from rag_eval_adapters.testsets import QUESTION_TYPES, Chunk, generate_testset


def corpus(path: str | None, limit: int) -> list[Chunk]:
    """The chunks of ``path`` (JSONL), or of numpy's docstrings."""
    if path:
        rows = [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]
        return [Chunk(r["chunk_id"], text=r["text"]) for r in rows]
    from bench_harder_checks import read_numpy_docs

    return [Chunk(d.name, text=d.text) for d in read_numpy_docs(limit)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", required=True)
    parser.add_argument("--base-url")
    parser.add_argument("--judge-model", help="a judge for the single-chunk and unanswerable checks")
    parser.add_argument("--e5", action="store_true", help="the E5 check of unanswerable questions")
    parser.add_argument("--corpus", help="a JSONL of chunks (default: numpy docstrings)")
    parser.add_argument("--limit", type=int, default=200, help="numpy docstrings read (default 200)")
    parser.add_argument("--samples", type=int, default=25)
    parser.add_argument("--types", default=",".join(QUESTION_TYPES))
    parser.add_argument("--max-calls", type=int, default=200)
    parser.add_argument("--cache", default="generate_endpoint.sqlite")
    args = parser.parse_args()
    chunks = corpus(args.corpus, args.limit)
    llm = resolve_llm(args.model, base_url=args.base_url)
    options = dict(samples=args.samples, types=args.types, cache=args.cache, min_chunk_chars=80, max_concurrency=4,
                   judge=resolve_llm(args.judge_model, base_url=args.base_url) if args.judge_model else None,
                   embedder=resolve_embedder("e5") if args.e5 else None)
    print("estimate:", json.dumps(generate_testset(chunks, llm, dry_run=True, **options).summary))
    testset = generate_testset(chunks, BudgetedChatLLM(llm, Budget(max_calls=args.max_calls)), **options)
    summary = testset.summary
    print(json.dumps({k: summary[k] for k in ("requested", "generated", "dropped", "calls", "input_tokens",
                                              "output_tokens")}, indent=2))
    print("kept by type:", dict(Counter(c.query_type for c in testset)))
    print("unanswerable confirmed by:", dict(Counter("+".join(c.confirmed_by) for c in testset if not c.answerable)))
    for qtype in ("multi_hop", "unanswerable"):
        for case in [c for c in testset if c.query_type == qtype][:3]:
            print(f"\n[{qtype}{'/' + case.hop_type if case.hop_type else ''}] {case.query}\n  answer: {case.answer!r}"
                  f"\n  evidence: {case.texts}")


if __name__ == "__main__":
    main()
