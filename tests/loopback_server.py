"""The lifecycle shared by the local HTTP servers the tests run (Cohere's and OpenAI's APIs).

A subclass sets ``request_handler`` (a ``BaseHTTPRequestHandler`` subclass that reads the server as ``self.fake``) and
holds its own scripting state; this base starts it on 127.0.0.1 at a free port in a daemon thread, stops it,
and gives its origin ``http://127.0.0.1:PORT``.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar, TypeVar

Self = TypeVar("Self", bound="LoopbackServer")


class LoopbackServer:
    """A threaded HTTP server on the loopback address; use as a context manager or ``start()``/``stop()``."""

    request_handler: ClassVar[type[BaseHTTPRequestHandler]]
    _httpd: ThreadingHTTPServer | None = None

    def start(self: Self) -> Self:
        handler = type("_Handler", (self.request_handler,), {"fake": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self: Self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def origin(self) -> str:
        """``http://127.0.0.1:PORT`` of the running server."""
        assert self._httpd is not None, "server not started"
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"
