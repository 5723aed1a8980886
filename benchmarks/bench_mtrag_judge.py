"""Benchmark: an LLM judge's agreement with MTRAG's human faithfulness ratings, on any endpoint it is pointed at.

Runs ``rag-eval meta-eval --builtin mtrag`` with ``--judge`` for the judged metrics given (default
``faithfulness``: the answer's claims checked against its passages, the whole conversation as the question),
beside the offline grounding metrics, the benchmark's own scores (RAGAS's faithfulness judge ``rl_f``...) and the
annotators' agreement. Every reply is cached (``--cache``), so a re-run, or a run stopped half-way and resumed,
pays nothing twice; ``--limit N`` measures the answers of the first N tasks only (three answers a task).

No endpoint is reachable where the test suite runs, so the suite tests the judges against its local server and sets
them no agreement threshold; this script is how a real model is measured:

    python benchmarks/bench_mtrag_judge.py --model gpt-4o-mini                       # OPENAI_API_KEY
    python benchmarks/bench_mtrag_judge.py --model qwen2.5 --base-url http://localhost:8000/v1 --limit 50
    python benchmarks/bench_mtrag_judge.py --model M --judge faithfulness,answer_correctness -o judge.md

Exit status: the command's (0 on success).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rag_eval_adapters.cli import main as rag_eval  # noqa: E402


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", required=True, help="the judge model (a name, or openai:MODEL)")
    p.add_argument("--base-url", help="an OpenAI-compatible endpoint (default: OpenAI's)")
    p.add_argument("--api-key-env", help="the environment variable holding the key (default OPENAI_API_KEY)")
    p.add_argument("--judge", default="faithfulness", help="judged metrics, comma-separated (default faithfulness)")
    p.add_argument("--metric", default="grounding_lexical", help="offline metrics beside it (comma-separated)")
    p.add_argument("--limit", type=int, help="only the answers of the first N tasks")
    p.add_argument("--label", default="faithfulness", help="human labels, comma-separated (default faithfulness)")
    p.add_argument("--cache", default="mtrag.judge-cache.sqlite", help="SQLite file of the judge's replies")
    p.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples (default 1000)")
    p.add_argument("-o", "--output", help="write the Markdown table here instead of stdout")
    return p.parse_args(argv)


def command(args: argparse.Namespace) -> list[str]:
    """The ``rag-eval`` arguments the options stand for."""
    out = ["meta-eval", "--builtin", "mtrag", "--judge", args.judge, "--judge-model", args.model,
           "-m", args.metric, "--label", args.label, "--cache", args.cache, "--bootstrap", str(args.bootstrap),
           "--format", "markdown", "--group-by", "passages"]
    out += ["--judge-base-url", args.base_url] if args.base_url else []
    out += ["--judge-api-key-env", args.api_key_env] if args.api_key_env else []
    out += ["--limit", str(args.limit)] if args.limit is not None else []
    out += ["--output", args.output] if args.output else []
    return out


if __name__ == "__main__":
    sys.exit(rag_eval(command(arguments())))
