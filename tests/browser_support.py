"""Headless Chromium for the report.html tests: Playwright's Python API driving the system browser.

Playwright's own browser download cannot be reached from the test machines, so the tests use Debian's
``chromium`` (``.ci/run`` installs it) and skip, saying why, where it or the ``playwright`` package is missing.
Playwright talks to the browser over a pipe, so the tests' socket guard (loopback only) stays in force.
"""

from __future__ import annotations

import importlib.util
import os
from contextlib import contextmanager
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def missing() -> str | None:
    """What the browser tests lack here (the package or the browser), or None."""
    if importlib.util.find_spec("playwright") is None:
        return "the playwright package is not installed (pip install playwright; it is in the test extra)"
    if not CHROMIUM.is_file():
        return f"no system Chromium at {CHROMIUM} (apt-get install chromium; .ci/run installs it)"
    return None


def skip_reason() -> str | None:
    """Why the browser tests are skipped here, or None. Never under CI (``CI`` set), which installs the browser:
    there a missing browser fails the tests instead of hiding them."""
    return None if os.environ.get("CI") else missing()


def require_browser() -> None:
    """Skip the calling test when the browser cannot run (fail under CI, which installs it)."""
    reason = missing()
    if reason and os.environ.get("CI"):
        pytest.fail(f"CI runs the browser tests, but {reason}")
    if reason:
        pytest.skip(reason)


@contextmanager
def chromium():
    """A headless system Chromium launched through Playwright (closed on exit)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield browser
        finally:
            browser.close()


class WatchedPage:
    """A page that records console messages, page errors and every request it makes."""

    def __init__(self, browser, path: Path, width: int = 1300, height: int = 1000) -> None:
        self.page = browser.new_page(viewport={"width": width, "height": height})
        self.console: list[tuple[str, str]] = []
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page.on("console", lambda m: self.console.append((m.type, m.text)))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.url = Path(path).resolve().as_uri()
        self.page.goto(self.url)
        self.page.wait_for_selector("html[data-ready]", timeout=20_000)

    def console_errors(self) -> list[str]:
        """Console errors and warnings (a CSP violation is reported as an error) and uncaught exceptions."""
        return [text for kind, text in self.console if kind in ("error", "warning")] + self.errors

    def foreign_requests(self) -> list[str]:
        """Every request but the page itself: nothing else is ever fetched, on disk or off it."""
        return [url for url in self.requests if url != self.url and not url.startswith(("data:", "about:"))]

    def close(self) -> None:
        self.page.close()


def screenshot(target, name: str) -> Path | None:
    """Save a PNG of ``target`` (a page: its viewport; a locator: that element) into the folder named by
    ``RAG_EVAL_SCREENSHOTS`` (when set)."""
    folder = os.environ.get("RAG_EVAL_SCREENSHOTS")
    if not folder:
        return None
    Path(folder).mkdir(parents=True, exist_ok=True)
    path = Path(folder) / name
    target.screenshot(path=str(path))
    return path
