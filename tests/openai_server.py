"""A local stand-in for OpenAI's API, for tests that drive the real SDKs (``openai``, LlamaIndex's and
LangChain's OpenAI classes) without the network.

Start it with the ``openai_server`` fixture of ``conftest.py`` (or ``with FakeOpenAIServer() as server:``)
and give the SDK ``base_url=server.base_url`` (``http://127.0.0.1:PORT/v1``) and ``api_key=server.api_key``.
It listens on 127.0.0.1 on a random port and answers each request in its own thread.

Routes
------
``POST /v1/chat/completions``
    Checks the bearer token and that ``model`` and ``messages`` are given, then answers a chat completion
    ``{"id", "object": "chat.completion", "created", "model", "choices": [{"index": 0, "message":
    {"role": "assistant", "content", "refusal"}, "finish_reason": "stop"}], "usage": {"prompt_tokens",
    "completion_tokens", "total_tokens"}}``. Tokens are counted as whitespace-separated words (prompt: all
    message contents; completion: the answer), so tests can predict usage sums exactly.
``POST /v1/embeddings``
    ``input`` a string or list of strings; each gets a deterministic unit vector of ``embedding_dim`` floats
    from the sha256 of its text (:func:`fake_embedding`), with ``usage`` {prompt_tokens, total_tokens}.

The content of a chat answer
----------------------------
By default :func:`default_chat_content` answers a test-set generation prompt: it finds the chunk between
``<chunk>`` and ``</chunk>`` in the last message that has one and the requested ``Question type:``, and
answers ``{"questions": [{"question", "answer", "evidence"}]}`` with a sentence of the chunk as evidence and
a question made of the chunk's own words (so the language matches the chunk). ``server.handler = fn`` replaces
it: ``fn(body) -> str`` gets the JSON request body and returns the message content.

Scripting and fault injection
-----------------------------
Actions are dicts made by the helper functions below. :meth:`FakeOpenAIServer.queue` gives the next chat
requests (arrival order) these actions; :meth:`FakeOpenAIServer.on_prompt` gives the next requests whose
prompt contains a substring these actions (checked first: concurrency makes arrival order arbitrary).

* :func:`reply` ``(content)``: answer exactly this content.
* :func:`malformed` ``()``: content that is not JSON.
* :func:`preamble` ``()``: a preamble line ("Here is a question based on the text:") given as the question.
* :func:`preamble_line` ``()``: a chatty line ("Sure! Here is the JSON you asked for:") before a valid answer.
* :func:`refusal` ``()``: "I'm sorry, but I can't help with that." (also in ``message.refusal``).
* :func:`duplicate` ``()``: repeat the question of the previous default answer, with this chunk's evidence.
* :func:`bad_quote` ``()``: evidence that is not in the chunk.
* :func:`empty_answer` ``()``: a valid question whose answer is empty.
* :func:`fail` ``(status, retry_after=None, retry_after_ms=None)``: an HTTP error (e.g. 429 with
  ``retry-after: 0``, or 500).
* :func:`slow` ``(seconds)``: the default answer after a delay.
* ``server.usage_override = {"prompt_tokens": ..., "completion_tokens": ...}``: the ``usage`` every chat answer
  reports instead of the word counts (a server misreporting usage).

``server.reject_response_format = True`` answers 400 to every request that has a ``response_format`` (a
server without structured output).

Inspection: ``server.requests`` (every :class:`RecordedRequest`: path, body, status, action),
``server.chat_requests`` / ``server.embedding_requests``, ``server.max_in_flight``, and
``server.usage_sent`` (the summed ``usage`` the server reported on 200 chat answers).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import struct
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from loopback_server import LoopbackServer

__all__ = [
    "FakeOpenAIServer", "RecordedRequest", "default_chat_content", "fake_embedding",
    "reply", "malformed", "preamble", "preamble_line", "refusal", "duplicate", "bad_quote", "empty_answer", "fail", "slow",
    "chunk_of", "word_count",
]

REFUSAL_TEXT = "I'm sorry, but I can't help with that."
PREAMBLE_TEXT = "Here is a question based on the text:"
_CHUNK = re.compile(r"<chunk>\n?(.*?)\n?</chunk>", re.S)
_TYPE = re.compile(r"Question type:\s*(\w+)")
_SENTENCE = re.compile(r"[^.!?。！？\n]+[.!?。！？]?")


def reply(content: str) -> dict[str, Any]:
    """Answer 200 with exactly ``content``."""
    return {"kind": "reply", "content": content}


def malformed() -> dict[str, Any]:
    """Answer 200 with content that is not JSON."""
    return {"kind": "malformed"}


def preamble() -> dict[str, Any]:
    """Answer with a preamble line as the question."""
    return {"kind": "preamble"}


def preamble_line() -> dict[str, Any]:
    """Answer with a chatty line before the (valid) JSON."""
    return {"kind": "preamble_line"}


def refusal() -> dict[str, Any]:
    """Answer with a refusal (content and ``message.refusal``)."""
    return {"kind": "refusal"}


def duplicate() -> dict[str, Any]:
    """Answer with the previous default question again (the evidence from this chunk)."""
    return {"kind": "duplicate"}


def bad_quote() -> dict[str, Any]:
    """Answer with evidence that is not in the chunk."""
    return {"kind": "bad_quote"}


def empty_answer() -> dict[str, Any]:
    """Answer with a question whose answer is empty."""
    return {"kind": "empty_answer"}


def fail(status: int, *, retry_after: str | None = None, retry_after_ms: int | None = None) -> dict[str, Any]:
    """Answer HTTP ``status`` with an OpenAI error body and optional retry headers."""
    headers = {}
    if retry_after is not None:
        headers["retry-after"] = str(retry_after)
    if retry_after_ms is not None:
        headers["retry-after-ms"] = str(retry_after_ms)
    return {"kind": "fail", "status": status, "headers": headers}


def slow(seconds: float) -> dict[str, Any]:
    """Answer normally after ``seconds``."""
    return {"kind": "slow", "seconds": seconds}


def word_count(text: str) -> int:
    """Tokens as the server counts them: whitespace-separated words (a CJK text without spaces is 1 per char)."""
    words = text.split()
    return sum(len(w) if re.search(r"[\u4e00-\u9fff]", w) else 1 for w in words)


def fake_embedding(text: str, dim: int = 16) -> list[float]:
    """The server's deterministic unit vector for ``text``."""
    raw = b""
    counter = 0
    while len(raw) < 4 * dim:
        raw += hashlib.sha256(f"{counter}:{text}".encode()).digest()
        counter += 1
    values = [struct.unpack("<i", raw[4 * i : 4 * i + 4])[0] / 2**31 for i in range(dim)]
    norm = math.sqrt(sum(v * v for v in values)) or 1.0
    return [v / norm for v in values]


def _messages_text(body: dict[str, Any]) -> list[str]:
    out = []
    for message in body.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):  # content parts
            content = " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
        if isinstance(content, str):
            out.append(content)
    return out


def chunk_of(body: dict[str, Any]) -> tuple[str, str]:
    """``(chunk text, question type)`` of a generation prompt (``("", "literal")`` when absent)."""
    for text in reversed(_messages_text(body)):
        found = _CHUNK.search(text)
        if found:
            kind = _TYPE.search(text)
            return found.group(1), kind.group(1) if kind else "literal"
    return "", "literal"


def _default_case(chunk: str, kind: str) -> dict[str, str]:
    sentences = [s.strip() for s in _SENTENCE.findall(chunk) if len(s.strip()) > 3]
    evidence = sentences[0] if sentences else chunk.strip()
    cjk = bool(re.search(r"[\u4e00-\u9fff]", evidence))
    if cjk:
        core = re.sub(r"[。！？.!?]", "", evidence)
        question = {"literal": core[:12], "paraphrase": core[-12:], "scenario": core[2:14]}.get(kind, core[:12]) + "？"
    else:
        words = re.findall(r"\w+", evidence)
        pick = {"literal": words[:8], "paraphrase": words[-6:], "scenario": words[1:7]}.get(kind, words[:8])
        question = " ".join(pick) + "?"
    return {"question": question, "answer": evidence, "evidence": evidence}


def default_chat_content(body: dict[str, Any]) -> str:
    """The default answer to a generation prompt (see the module docstring); "OK" to any other prompt."""
    chunk, kind = chunk_of(body)
    if not chunk:
        return "OK"
    return json.dumps({"questions": [_default_case(chunk, kind)]}, ensure_ascii=False)


@dataclass
class RecordedRequest:
    """One request the server received and what it answered."""

    path: str
    body: Any
    authorization: str | None
    status: int = 0
    action: str = "ok"

    @property
    def prompt(self) -> str:
        """All message contents of a chat request, joined by newlines."""
        return "\n".join(_messages_text(self.body)) if isinstance(self.body, dict) else ""


@dataclass
class FakeOpenAIServer(LoopbackServer):
    """The fake OpenAI endpoint (see the module docstring)."""

    api_key: str = "test-openai-key"
    embedding_dim: int = 16
    latency: float = 0.0
    handler: Callable[[dict[str, Any]], str] = default_chat_content
    requests: list[RecordedRequest] = field(default_factory=list)
    max_in_flight: int = 0
    reject_response_format: bool = False  # answer 400 to a request with response_format (servers without it)
    usage_override: dict[str, int] | None = None

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._queue: deque[dict[str, Any]] = deque()
        self._by_prompt: list[tuple[str, deque[dict[str, Any]]]] = []
        self._in_flight = 0
        self._counter = 0
        self._last_question: str | None = None
        self.usage_sent = {"prompt_tokens": 0, "completion_tokens": 0}

    @property
    def base_url(self) -> str:
        """The ``base_url`` to give an OpenAI SDK (ends in ``/v1``)."""
        return self.origin + '/v1'

    # ------------------------------------------------------------ scripting
    def queue(self, *actions: dict[str, Any]) -> None:
        """The next chat requests (arrival order) get these actions."""
        with self._lock:
            self._queue.extend(actions)

    def on_prompt(self, substring: str, *actions: dict[str, Any]) -> None:
        """The next chat requests whose prompt contains ``substring`` get these actions, in order."""
        with self._lock:
            self._by_prompt.append((substring, deque(actions)))

    def _next_action(self, prompt: str) -> dict[str, Any] | None:
        with self._lock:
            for substring, actions in self._by_prompt:
                if actions and substring in prompt:
                    return actions.popleft()
            return self._queue.popleft() if self._queue else None

    # ------------------------------------------------------------ inspection
    @property
    def chat_requests(self) -> list[RecordedRequest]:
        """Requests to ``/v1/chat/completions`` (any outcome)."""
        with self._lock:
            return [r for r in self.requests if r.path.endswith("/chat/completions")]

    @property
    def embedding_requests(self) -> list[RecordedRequest]:
        """Requests to ``/v1/embeddings`` (any outcome)."""
        with self._lock:
            return [r for r in self.requests if r.path.endswith("/embeddings")]

    # ------------------------------------------------------------ answering
    def _content(self, body: dict[str, Any], action: dict[str, Any] | None) -> tuple[str, str | None]:
        kind = action["kind"] if action else "ok"
        chunk, qtype = chunk_of(body)
        if kind == "reply":
            return action["content"], None
        if kind == "malformed":
            return '{"questions": [{"question": "unterminated', None
        if kind == "refusal":
            return REFUSAL_TEXT, REFUSAL_TEXT
        if kind in ("ok", "slow") or not chunk:
            content = self.handler(body)
            try:
                first = json.loads(content)["questions"][0]["question"]
                with self._lock:
                    self._last_question = first
            except (ValueError, KeyError, IndexError, TypeError):
                pass
            return content, None
        case = _default_case(chunk, qtype)
        if kind == "preamble_line":
            return "Sure! Here is the JSON you asked for:\n" + json.dumps({"questions": [case]}, ensure_ascii=False), None
        if kind == "preamble":
            case["question"] = PREAMBLE_TEXT
        elif kind == "duplicate":
            with self._lock:
                case["question"] = self._last_question or case["question"]
        elif kind == "bad_quote":
            case["evidence"] = "This sentence was never written in the chunk at all."
        elif kind == "empty_answer":
            case["answer"] = ""
        return json.dumps({"questions": [case]}, ensure_ascii=False), None

    def chat(self, body: dict[str, Any], action: dict[str, Any] | None) -> dict[str, Any]:
        content, refused = self._content(body, action)
        prompt_tokens = sum(word_count(t) for t in _messages_text(body))
        completion_tokens = word_count(content)
        if self.usage_override is not None:  # a server misreporting usage
            prompt_tokens, completion_tokens = self.usage_override["prompt_tokens"], self.usage_override["completion_tokens"]
        with self._lock:
            self._counter += 1
            rid = self._counter
            self.usage_sent["prompt_tokens"] += prompt_tokens
            self.usage_sent["completion_tokens"] += completion_tokens
        return {
            "id": f"chatcmpl-fake{rid:06d}",
            "object": "chat.completion",
            "created": 1_700_000_000 + rid,
            "model": body.get("model", ""),
            "choices": [{
                "index": 0,
                "message": {"role": "assistant", "content": content, "refusal": refused},
                "logprobs": None,
                "finish_reason": "stop",
            }],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens + completion_tokens},
        }

    def embed(self, body: dict[str, Any]) -> dict[str, Any]:
        inputs = body.get("input")
        texts = [inputs] if isinstance(inputs, str) else list(inputs)
        tokens = sum(word_count(t) for t in texts)
        return {
            "object": "list",
            "model": body.get("model", ""),
            "data": [{"object": "embedding", "index": i, "embedding": fake_embedding(t, self.embedding_dim)}
                     for i, t in enumerate(texts)],
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }


class _Handler(BaseHTTPRequestHandler):
    fake: FakeOpenAIServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, record: RecordedRequest, status: int, payload: Any, headers: dict | None = None,
              action: str = "ok") -> None:
        record.status, record.action = status, action
        data = json.dumps(payload, ensure_ascii=False).encode()
        try:
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def do_POST(self) -> None:  # noqa: N802 - http.server API
        fake = self.fake
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        try:
            body: Any = json.loads(raw)
        except ValueError:
            body = raw.decode("utf-8", "replace")
        path = self.path.split("?")[0]
        record = RecordedRequest(path=path, body=body, authorization=self.headers.get("authorization"))
        with fake._lock:
            fake.requests.append(record)
            fake._in_flight += 1
            fake.max_in_flight = max(fake.max_in_flight, fake._in_flight)
        try:
            self._answer(fake, record, path)
        finally:
            with fake._lock:
                fake._in_flight -= 1

    def _answer(self, fake: FakeOpenAIServer, record: RecordedRequest, path: str) -> None:
        if fake.latency:
            time.sleep(fake.latency)
        if record.authorization != f"Bearer {fake.api_key}":
            return self._send(record, 401, {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error",
                                                      "code": "invalid_api_key"}})
        body = record.body
        if not isinstance(body, dict) or not isinstance(body.get("model"), str):
            return self._send(record, 400, {"error": {"message": "model is required", "type": "invalid_request_error"}})
        if path.endswith("/embeddings"):
            if not isinstance(body.get("input"), (str, list)):
                return self._send(record, 400, {"error": {"message": "input is required"}})
            return self._send(record, 200, fake.embed(body))
        if not path.endswith("/chat/completions"):
            return self._send(record, 404, {"error": {"message": f"no route for POST {path}"}})
        if not isinstance(body.get("messages"), list) or not body["messages"]:
            return self._send(record, 400, {"error": {"message": "messages is required"}})
        if fake.reject_response_format and "response_format" in body:
            return self._send(record, 400, {"error": {"message": "response_format is not supported",
                                                      "type": "invalid_request_error"}}, action="fail 400")
        action = fake._next_action(record.prompt)
        if action is not None and action["kind"] == "fail":
            status = action["status"]
            return self._send(record, status, {"error": {"message": f"injected {status}", "type": "server_error"}},
                              headers=action["headers"], action=f"fail {status}")
        if action is not None and action["kind"] == "slow":
            time.sleep(action["seconds"])
        return self._send(record, 200, fake.chat(body, action), action=action["kind"] if action else "ok")


FakeOpenAIServer.request_handler = _Handler
