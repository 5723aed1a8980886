"""Benchmark: where the package is the cost of LLM judging.

1. **Wall time against the ideal.** ``--n`` relevance judgments through the real ``openai`` SDK against the
   local OpenAI-compatible test server (started in its own process, playing a judge) that waits ``--latency``
   seconds before each answer, with ``--concurrency`` calls in flight. Prints wall time over the ideal
   ``N * L / C`` (goal <= 1.25 at N = 2,000, L = 200 ms, C = 16).
2. **The package's own CPU time per judgment.** The same judges over a chat model that answers instantly with
   canned replies (no HTTP), through an SQLite cache: what remains is the package (messages, cache keys and
   writes, structured-output parsing with pydantic, quote location, threads). CPU seconds of the process per
   judgment, for relevance (one call) and faithfulness (two calls, three claims located in the context)
   (goal <= 2 ms).

    python benchmarks/bench_judges.py                       # N = 2,000, L = 200 ms, C = 16
    python benchmarks/bench_judges.py --n 400 --latency 0.05  # a quick look
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rag_eval_adapters.judges import CLAIMS_PROMPT, LLMJudge  # noqa: E402
from rag_eval_adapters.testsets import Completion, OpenAICompatibleLLM  # noqa: E402

SERVER = f"""
import sys
sys.path.insert(0, {str(ROOT / 'tests')!r})
from openai_server import FakeOpenAIServer
from judge_server import judge_content
server = FakeOpenAIServer(handler=judge_content, latency={{latency}}).start()
print(server.base_url, flush=True)
sys.stdin.read()
"""
CONTEXT = ("The Amazon river flows through Brazil, Peru and Colombia. It carries more water than any other river. "
           "Its basin covers about seven million square kilometres.")
ANSWER = ("The Amazon river flows through Brazil, Peru and Colombia. It carries more water than any other river. "
          "Its basin covers about seven million square kilometres.")
CLAIMS = json.dumps({"claims": ["The Amazon river flows through Brazil, Peru and Colombia.",
                                "It carries more water than any other river.",
                                "Its basin covers about seven million square kilometres."]})
VERDICTS = json.dumps({"verdicts": [
    {"claim": 1, "verdict": "supported", "chunk_id": "1", "quote": "flows through Brazil, Peru and Colombia"},
    {"claim": 2, "verdict": "supported", "chunk_id": "1", "quote": "more water than  any other river"},
    {"claim": 3, "verdict": "not_found", "chunk_id": None, "quote": None}]})
GRADE = json.dumps({"reasoning": "The passage answers the query.", "grade": 3})


class Instant:
    """A chat model answering at once with canned judge replies (no network, no SDK)."""

    name, temperature = "instant-judge", 0.0

    def chat(self, messages, *, response_format=None, seed=None, temperature=None) -> Completion:
        system = messages[0]["content"]
        text = CLAIMS if system == CLAIMS_PROMPT else VERDICTS if "verdicts" in system else GRADE
        return Completion(text=text, input_tokens=100, output_tokens=20)


def wall_ratios(n: int, latency: float, concurrency: int) -> tuple[float, float, float]:
    """``(wall seconds, wall / ideal, the same ratio for the bare SDK)``: the bare SDK (the same requests from
    ``concurrency`` threads, no judge) shows what the SDK, the server and the machine cost by themselves."""
    server = subprocess.Popen([sys.executable, "-c", SERVER.format(latency=latency)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        base_url = server.stdout.readline().strip()
        llm = OpenAICompatibleLLM("judge", base_url=base_url, api_key="test-openai-key")
        judge = LLMJudge(llm, max_concurrency=concurrency, progress=False)
        items = [{"query": f"river number {i} of the Amazon basin", "passage": CONTEXT} for i in range(n)]
        judge.judge_many("relevance", items[:concurrency])  # connections opened, modules imported
        start = time.perf_counter()
        results = judge.judge_many("relevance", items)
        wall = time.perf_counter() - start
        assert all(r.measured for r in results), "every judgment must be measured"
        bare = OpenAICompatibleLLM("judge", base_url=base_url, api_key="test-openai-key")
        messages = [[{"role": "user", "content": f"<query>\nriver {i}\n</query>\n<passage>\n{CONTEXT}\n</passage>"}]
                    for i in range(n)]
        with ThreadPoolExecutor(concurrency) as pool:
            start = time.perf_counter()
            list(pool.map(bare.chat, messages))
            bare_wall = time.perf_counter() - start
    finally:
        server.stdin.close()
        server.wait(timeout=10)
    ideal = n * latency / concurrency
    return wall, wall / ideal, bare_wall / ideal


def cpu_per_judgment(metric: str, n: int) -> float:
    with tempfile.TemporaryDirectory() as folder:
        judge = LLMJudge(Instant(), cache=Path(folder) / "cache.sqlite", max_concurrency=16, progress=False)
        if metric == "relevance":
            items = [{"query": f"Amazon river {i}", "passage": CONTEXT} for i in range(n)]
        else:
            items = [{"question": f"Tell me about the Amazon ({i})", "answer": ANSWER, "contexts": [CONTEXT]}
                     for i in range(n)]
        judge.judge_many(metric, items[:50])
        start = time.process_time()
        results = judge.judge_many(metric, items)
        cpu = time.process_time() - start
        assert all(r.measured for r in results)
    return cpu / n * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--cpu-n", type=int, default=2000, help="judgments for the CPU measurement")
    args = parser.parse_args()
    wall, ratio, bare = wall_ratios(args.n, args.latency, args.concurrency)
    print(f"wall: {args.n} judgments, L = {args.latency * 1000:.0f} ms, C = {args.concurrency}: {wall:.2f} s; "
          f"ideal {args.n * args.latency / args.concurrency:.2f} s; ratio {ratio:.3f} (goal <= 1.25); the bare "
          f"SDK, same requests: {bare:.3f}")
    ok = ratio <= 1.25
    for metric in ("relevance", "faithfulness"):
        ms = cpu_per_judgment(metric, args.cpu_n)
        print(f"package CPU per {metric} judgment: {ms:.3f} ms (goal <= 2 ms)")
        ok = ok and ms <= 2.0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
