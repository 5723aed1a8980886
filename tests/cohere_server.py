"""A local HTTP server that speaks Cohere's rerank API, so tests run the real cohere SDK without the network.

Usage in a test module (the ``cohere_server`` fixture lives in ``conftest.py``)::

    from cohere_server import fail, malformed, slow

    def test_x(cohere_server):
        reranker = CohereReranker(api_key=cohere_server.api_key, base_url=cohere_server.url, retry_base_delay=0.001)
        cohere_server.queue(fail(429, retry_after_ms=5))  # the next request gets a 429
        ...
        assert len(cohere_server.rerank_requests) == 2

It serves ``POST /v2/rerank`` (and the legacy ``POST /v1/rerank`` that LlamaIndex's own class uses): checks the
bearer token and the JSON body (``model``, ``query``, ``documents``, optional ``top_n``), scores every document
with :func:`overlap_score` (or ``score_fn``), and answers ``{"id", "results": [{"index", "relevance_score"}],
"meta": {"billed_units": {"search_units"}}}`` with results sorted by score (ties by index), cut to ``top_n``.
Search units are billed as ceil(documents / 100) per request. Faults are injected with :meth:`queue` (next
requests in arrival order) or :meth:`on_query` (next requests for one query): :func:`fail` (any status, with
``retry-after-ms`` / ``retry-after``), :func:`slow` (answer after a delay) and :func:`malformed` (a body that is
not a valid rerank response).
"""

from __future__ import annotations

import json
import math
import re
import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from loopback_server import LoopbackServer

__all__ = ["FakeCohereServer", "RecordedRequest", "fail", "slow", "malformed", "overlap_score"]

_WORD = re.compile(r"\w+")

MALFORMED_KINDS = (
    "not-json",  # 200 with a body that is not JSON
    "no-results",  # 200 with {"id": ...} only
    "missing-index",  # the last result dropped
    "duplicate-index",  # the last result repeats the first index
    "bad-index",  # an index equal to len(documents)
    "nan-score",  # a NaN relevance score (Python's json emits NaN)
    "out-of-range",  # a relevance score of 1.5
    "string-score",  # a relevance score given as a string
)


def overlap_score(query: str, document: str) -> float:
    """Deterministic relevance in [0, 1]: Jaccard similarity of the lower-cased word sets."""
    q = set(_WORD.findall(query.lower()))
    d = set(_WORD.findall(document.lower()))
    if not q or not d:
        return 0.0
    return len(q & d) / len(q | d)


def fail(status: int, *, retry_after_ms: int | None = None, retry_after: str | None = None,
         message: str | None = None) -> dict[str, Any]:
    """Answer with HTTP ``status`` (and optional retry headers) instead of a ranking."""
    headers = {}
    if retry_after_ms is not None:
        headers["retry-after-ms"] = str(retry_after_ms)
    if retry_after is not None:
        headers["retry-after"] = str(retry_after)
    return {"kind": "fail", "status": status, "headers": headers, "message": message or f"injected {status}"}


def slow(seconds: float) -> dict[str, Any]:
    """Answer normally, but only after ``seconds``."""
    return {"kind": "slow", "seconds": seconds}


def malformed(kind: str) -> dict[str, Any]:
    """Answer 200 with a broken body; ``kind`` is one of :data:`MALFORMED_KINDS`."""
    if kind not in MALFORMED_KINDS:
        raise ValueError(f"unknown malformed kind {kind!r}; one of {MALFORMED_KINDS}")
    return {"kind": "malformed", "what": kind}


@dataclass
class RecordedRequest:
    """One request the server received, and what it answered."""

    path: str
    authorization: str | None
    body: Any
    status: int = 0
    action: str = "ok"

    @property
    def query(self) -> str | None:
        return self.body.get("query") if isinstance(self.body, dict) else None

    @property
    def documents(self) -> list:
        return list(self.body.get("documents", [])) if isinstance(self.body, dict) else []


@dataclass
class FakeCohereServer(LoopbackServer):
    """The fake Cohere endpoint (see the module docstring). ``latency`` delays every answer (to make
    concurrency observable); ``max_in_flight`` is the most requests ever handled at once."""

    api_key: str = "test-cohere-key"
    max_documents: int = 1000
    latency: float = 0.0
    score_fn: Callable[[str, str], float] = overlap_score
    requests: list[RecordedRequest] = field(default_factory=list)
    max_in_flight: int = 0

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._queue: deque[dict[str, Any]] = deque()
        self._by_query: dict[str, deque[dict[str, Any]]] = defaultdict(deque)
        self._in_flight = 0
        self._counter = 0

    @property
    def url(self) -> str:
        """Base URL to give the SDK (``base_url=``); requests go to ``{url}/v2/rerank``."""
        return self.origin

    # ---------------------------------------------------------------- fault injection
    def queue(self, *actions: dict[str, Any]) -> None:
        """The next ``len(actions)`` rerank requests (any query) get these actions, in order."""
        with self._lock:
            self._queue.extend(actions)

    def on_query(self, query: str, *actions: dict[str, Any]) -> None:
        """The next requests for ``query`` get these actions, in order (before anything queued)."""
        with self._lock:
            self._by_query[query].extend(actions)

    def _next_action(self, query: Any) -> dict[str, Any] | None:
        with self._lock:
            per_query = self._by_query.get(query) if isinstance(query, str) else None
            if per_query:
                return per_query.popleft()
            return self._queue.popleft() if self._queue else None

    # ---------------------------------------------------------------- inspection
    @property
    def rerank_requests(self) -> list[RecordedRequest]:
        """Requests that reached a rerank path (any outcome)."""
        with self._lock:
            return [r for r in self.requests if r.path in ("/v2/rerank", "/v1/rerank")]

    def expected_scores(self, query: str, documents: list[str]) -> list[float]:
        """The scores the server gives ``documents`` for ``query``, in input order."""
        return [self.score_fn(query, d) for d in documents]

    # ---------------------------------------------------------------- answering
    def _rank(self, body: dict[str, Any], texts: list[str]) -> dict[str, Any]:
        scores = [float(self.score_fn(body["query"], t)) for t in texts]
        order = sorted(range(len(texts)), key=lambda i: (-scores[i], i))
        top_n = body.get("top_n")
        if isinstance(top_n, int):
            order = order[:top_n]
        with self._lock:
            self._counter += 1
            rid = f"fake-rerank-{self._counter:06d}"
        return {
            "id": rid,
            "results": [{"index": i, "relevance_score": scores[i]} for i in order],
            "meta": {"api_version": {"version": "2"}, "billed_units": {"search_units": math.ceil(len(texts) / 100)}},
        }

    def _validate(self, path: str, body: Any) -> tuple[str | None, list[str]]:
        if not isinstance(body, dict):
            return "body must be a JSON object", []
        if path == "/v2/rerank" and (not isinstance(body.get("model"), str) or not body["model"]):
            return "model is required", []
        if not isinstance(body.get("query"), str) or not body["query"]:
            return "query must be a non-empty string", []
        docs = body.get("documents")
        if not isinstance(docs, list) or not docs:
            return "documents must be a non-empty list", []
        texts = []
        for d in docs:
            if isinstance(d, str):
                texts.append(d)
            elif path == "/v1/rerank" and isinstance(d, dict) and isinstance(d.get("text"), str):
                texts.append(d["text"])
            else:
                return "documents must be strings", []
        if len(texts) > self.max_documents:
            return f"too many documents: {len(texts)} > {self.max_documents}", []
        top_n = body.get("top_n")
        if top_n is not None and (not isinstance(top_n, int) or top_n < 1):
            return "top_n must be a positive integer", []
        return None, texts


def _broken(what: str, ranked: dict[str, Any]) -> tuple[bytes, dict[str, Any] | None]:
    results = ranked["results"]
    if what == "not-json":
        return b'{"id": "x", "results": [', None
    if what == "no-results":
        return b"", {"id": ranked["id"], "meta": ranked["meta"]}
    if what == "missing-index":
        ranked["results"] = results[:-1]
    elif what == "duplicate-index":
        results[-1] = {**results[-1], "index": results[0]["index"]}
    elif what == "bad-index":
        results[-1] = {**results[-1], "index": len(results)}
    elif what == "nan-score":
        results[0] = {**results[0], "relevance_score": float("nan")}
    elif what == "out-of-range":
        results[0] = {**results[0], "relevance_score": 1.5}
    elif what == "string-score":
        results[0] = {**results[0], "relevance_score": "high"}
    return b"", ranked


class _Handler(BaseHTTPRequestHandler):
    fake: FakeCohereServer

    def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
        pass

    def _send(self, status: int, payload: Any = None, raw: bytes | None = None, headers: dict | None = None) -> None:
        data = raw if raw is not None else json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
            pass

    def do_POST(self) -> None:  # noqa: N802 - http.server API
        fake = self.fake
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length)
        try:
            body: Any = json.loads(raw)
        except ValueError:
            body = raw.decode("utf-8", "replace")
        record = RecordedRequest(path=self.path, authorization=self.headers.get("authorization"), body=body)
        with fake._lock:
            fake.requests.append(record)
            fake._in_flight += 1
            fake.max_in_flight = max(fake.max_in_flight, fake._in_flight)
        try:
            self._answer(fake, record)
        finally:
            with fake._lock:
                fake._in_flight -= 1

    def _answer(self, fake: FakeCohereServer, record: RecordedRequest) -> None:
        def send(status: int, payload: Any = None, raw: bytes | None = None, headers: dict | None = None,
                 action: str = "ok") -> None:
            record.status, record.action = status, action
            self._send(status, payload, raw, headers)

        if fake.latency:
            time.sleep(fake.latency)
        if self.path not in ("/v2/rerank", "/v1/rerank"):
            return send(404, {"message": f"no route for POST {self.path}"})
        if record.authorization != f"Bearer {fake.api_key}":
            return send(401, {"message": "invalid api token"})
        problem, texts = fake._validate(self.path, record.body)
        if problem:
            return send(400, {"message": problem})
        action = fake._next_action(record.body.get("query"))
        if action is not None and action["kind"] == "fail":
            return send(action["status"], {"message": action["message"]}, headers=action["headers"],
                        action=f"fail {action['status']}")
        if action is not None and action["kind"] == "slow":
            time.sleep(action["seconds"])
        ranked = fake._rank(record.body, texts)
        if action is not None and action["kind"] == "malformed":
            raw, payload = _broken(action["what"], ranked)
            return send(200, payload, raw=raw or None, action=f"malformed {action['what']}")
        return send(200, ranked, action="slow" if action is not None else "ok")


FakeCohereServer.request_handler = _Handler
