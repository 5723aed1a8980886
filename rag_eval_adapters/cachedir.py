"""Where the package keeps its caches by default: one folder shared by every run, and what a cache file holds.

The rule, in order: the variable ``RAG_EVAL_CACHE_DIR`` (the package's own); else ``$XDG_CACHE_HOME/rag-eval-adapters``
(an absolute ``XDG_CACHE_HOME`` only, as the XDG specification says); else ``~/.cache/rag-eval-adapters``. An
explicit folder (``--cache-dir DIR``, ``cache_dir=``) always wins. The caches in it are keyed by model (each entry's
key holds the model's name and the text), so one folder serves every model, run and experiment: a text embedded once
is never embedded again. Standard library only; used by the command line, the benchmark and the demo.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["CACHE_DIR_ENV", "APP_NAME", "default_cache_dir", "resolve_cache_dir", "disk_size", "describe_size"]

CACHE_DIR_ENV = "RAG_EVAL_CACHE_DIR"
"""The environment variable naming the default cache folder (it overrides ``XDG_CACHE_HOME``)."""

APP_NAME = "rag-eval-adapters"
"""The folder's name under the user's cache directory."""


def default_cache_dir(environ: dict[str, str] | None = None) -> Path:
    """The default cache folder (not created).

    Parameters
    ----------
    environ : mapping, optional
        The environment to read (default ``os.environ``).

    Returns
    -------
    Path
        ``$RAG_EVAL_CACHE_DIR`` when set and not empty, else ``$XDG_CACHE_HOME/rag-eval-adapters`` when
        ``XDG_CACHE_HOME`` is an absolute path, else ``~/.cache/rag-eval-adapters``.
    """
    env = os.environ if environ is None else environ
    own = env.get(CACHE_DIR_ENV, "")
    if own.strip():
        return Path(own).expanduser()
    xdg = env.get("XDG_CACHE_HOME", "")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return base / APP_NAME


def resolve_cache_dir(given: str | os.PathLike[str] | None) -> Path:
    """``given`` when there is one (``--cache-dir``, ``cache_dir=``), else :func:`default_cache_dir`."""
    return Path(given).expanduser() if given else default_cache_dir()


def disk_size(path: str | os.PathLike[str]) -> int:
    """Bytes on disk of a cache file with its SQLite companions (``-wal``, ``-shm``); 0 when it does not exist."""
    total = 0
    for suffix in ("", "-wal", "-shm"):
        try:
            total += os.path.getsize(f"{os.fspath(path)}{suffix}")
        except OSError:
            continue
    return total


def describe_size(n_bytes: int) -> str:
    """``n_bytes`` for people: ``"512 B"``, ``"3.4 kB"``, ``"12.0 MB"``, ``"1.2 GB"`` (powers of 1000)."""
    if n_bytes < 1000:
        return f"{n_bytes} B"
    value = float(n_bytes)
    for unit in ("kB", "MB", "GB", "TB"):
        value /= 1000
        if value < 1000 or unit == "TB":
            break
    return f"{value:.1f} {unit}"
