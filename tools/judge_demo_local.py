"""Judge the shipped demo's extractive answers against the local OpenAI-compatible server playing a judge.

A development tool (it uses the tests' local server, ``tests/judge_server.py``): run from the repository,
``python tools/judge_demo_local.py OUT_DIR``. It prints the bench's table, the count of chat requests and each
configuration's judged means, measured counts and unmeasured reasons. Malformed replies are injected into the first calls:
each malformed form twice in a row (the reply and its one repair call), so that item becomes unmeasured, and
once followed by a good reply (the repair succeeds).
"""
import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, "tests")
from judge_server import judge_content  # noqa: E402
from openai_server import FakeOpenAIServer  # noqa: E402

from rag_eval_adapters.demo import data_path  # noqa: E402

out = Path(sys.argv[1])
MALFORMED = [
    "I think the answer is well supported by the context.",                 # prose
    '```json\n{"claims": ["a", \n```',                                        # fenced, truncated
    '{"claims": 7}',                                                          # wrong type
    '{"verdicts": [{"claim": 1, "verdict": "maybe"}]}',                       # wrong keys / values
    '{"grade": "three", "reasoning": 5}',                                     # wrong types
    "I'm sorry, but I can't help with that.",                                 # refusal as text
]
with FakeOpenAIServer(handler=judge_content) as server:
    actions = []
    for content in MALFORMED:
        actions += [{"kind": "reply", "content": content}, {"kind": "reply", "content": content}]  # reply + repair
    for content in MALFORMED:
        actions += [{"kind": "reply", "content": content}]  # repaired by the next, good reply
    server.queue(*actions)
    docs, testset = data_path("documents.jsonl"), data_path("testset.jsonl")
    cmd = ["rag-eval", "bench", "--documents", str(docs), "--testset", str(testset), "--chunking", "256:32",
           "--retriever", "bm25", "--retriever", "hybrid", "--judge", "--judge-model", "judge-model",
           "--judge-base-url", server.base_url, "--output", str(out), "--force"]
    env = {**os.environ, "OPENAI_API_KEY": server.api_key}
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    print(done.stdout[-6000:])
    print(done.stderr[-3000:], file=sys.stderr)
    print("chat requests:", len(server.chat_requests), "exit:", done.returncode)
report = json.loads((out / "report.json").read_text())
for name, config in report["configurations"].items():
    answers = config["answers"]
    reasons = {metric: sorted(set(cells.values())) for metric, cells in answers["unmeasured"].items()}
    print(name, json.dumps({"mean": answers["mean"], "measured": answers["measured"], "unmeasured": reasons}))
