"""A cache of model-call results keyed by (namespace/model, input, parameters), in memory or in SQLite.

Keys are :func:`cache_key`: sha256 over a canonical JSON encoding of ``[namespace, input, params]``, so two
different calls can never share a key (no separator to collide with). Values are anything JSON can hold
(a score, a generated text, an embedding vector, a parsed record). Each stored value carries a digest of
its key and its encoding: a row edited by hand no longer matches and is treated as missing (recomputed,
never returned). Callers validate what they read too (a score in range, a vector of the right size).

The SQLite store runs in WAL mode with a busy timeout, so threads and processes can share one file; a
file that is not an SQLite database, or cannot be opened, raises :class:`CacheError` naming the path. A
write that fails is reported by :func:`store_quietly` as a :class:`CacheWriteWarning`, never by losing the
result that was just paid for.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import sqlite3
import threading
import time
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from .closing import Closeable

__all__ = [
    "CacheError",
    "CacheWriteWarning",
    "CallCache",
    "InMemoryCache",
    "cached_map",
    "SqliteCache",
    "cache_key",
    "canonical_json",
    "open_cache",
    "lookup_quietly",
    "store_quietly",
    "finite_score",
    "finite_vector",
]


class CacheError(RuntimeError):
    """A cache file cannot be opened or used (the message names the path and how to fix it)."""


class CacheWriteWarning(RuntimeWarning):
    """A result could not be written to the cache; the result itself was kept and returned."""


def canonical_json(value: Any) -> str:
    """One JSON text per value: sorted keys, no spaces, ASCII only (lone surrogates escaped), no NaN."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)


def cache_key(namespace: str, payload: Any, params: Mapping[str, Any] | None = None) -> str:
    """The cache key of one call: hex sha256 of the canonical JSON of ``[namespace, payload, params]``.

    ``namespace`` names the model (and endpoint); ``payload`` is the input (a prompt, a list of messages,
    ``{"query": ..., "text": ...}``); ``params`` the settings that change the output (temperature, ...).
    """
    if not isinstance(namespace, str):
        raise TypeError(f"namespace must be a str (the model name), got {type(namespace).__name__}")
    try:
        text = canonical_json([namespace, payload, dict(params or {})])
    except (TypeError, ValueError) as exc:
        raise TypeError(f"cache key parts must be JSON values (str, number, list, dict): {exc}") from exc
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def _digest(key: str, encoded: str) -> str:
    return hashlib.sha256(f"{key}\n{encoded}".encode("ascii")).hexdigest()[:32]


@runtime_checkable
class CallCache(Protocol):
    """Storage for call results by :func:`cache_key`: ``get_many`` returns the keys it holds."""

    def get_many(self, keys: Iterable[str]) -> dict[str, Any]: ...

    def set_many(self, items: Mapping[str, Any]) -> None: ...


class InMemoryCache(Closeable):
    """A process-local, thread-safe cache (values are stored as canonical JSON and decoded on read); a context
    manager like every cache here (``close`` keeps the entries: there is nothing to release)."""

    def __init__(self) -> None:
        self._data: dict[str, str] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(entries={len(self)})"

    def __len__(self) -> int:
        return len(self._data)

    def get_many(self, keys: Iterable[str]) -> dict[str, Any]:
        with self._lock:
            return {k: json.loads(self._data[k]) for k in keys if k in self._data}

    def set_many(self, items: Mapping[str, Any]) -> None:
        encoded = {k: canonical_json(v) for k, v in items.items()}
        with self._lock:
            self._data.update(encoded)


class SqliteCache(Closeable):
    """A persistent cache in one SQLite file (created if missing), shared safely by threads and processes;
    ``with SqliteCache(path) as cache:`` closes the connection at the end of the block (as :meth:`close`).

    Parameters
    ----------
    path : str or os.PathLike
        The database file. Its folder is created when missing.
    busy_timeout : float
        Seconds a reader or writer waits for another process's lock before giving up (default 30).

    Raises
    ------
    CacheError
        The file cannot be created or opened, or is not an SQLite database (the message names the path).
    """

    def __init__(self, path: str | os.PathLike[str], *, busy_timeout: float = 30.0) -> None:
        self.path = Path(path)
        self.busy_timeout = float(busy_timeout)
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = sqlite3.connect(str(self.path), timeout=self.busy_timeout, check_same_thread=False)
        except (OSError, sqlite3.Error) as exc:
            raise CacheError(f"cannot open the cache file {str(self.path)!r}: {exc}. Pass a writable path.") from exc
        deadline = time.monotonic() + self.busy_timeout
        while True:
            try:
                self._set_up()
                break
            except sqlite3.OperationalError as exc:
                # processes opening a new file at once: switching it to WAL can answer "locked" at once, without
                # waiting for the busy timeout; the switch is tried again until the timeout is spent
                if "locked" in str(exc) and time.monotonic() < deadline:
                    time.sleep(0.01)
                    continue
                self._unusable(exc)
            except sqlite3.Error as exc:
                self._unusable(exc)

    def _set_up(self) -> None:
        """The connection's busy timeout and WAL journal, and the table (created when missing)."""
        self._conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout * 1000)}")
        self._conn.execute("PRAGMA journal_mode=WAL")
        with self._conn:
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS calls (key TEXT PRIMARY KEY, value TEXT NOT NULL, digest TEXT NOT NULL)"
            )
        self._conn.execute("SELECT COUNT(*) FROM calls").fetchone()

    def _unusable(self, exc: sqlite3.Error) -> None:
        self._conn.close()
        raise CacheError(
            f"the cache file {str(self.path)!r} is not a usable SQLite database ({exc}); delete it or pass "
            "another cache path."
        ) from exc

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self.path)!r})"

    def __len__(self) -> int:
        with self._lock:
            return int(self._run(lambda c: c.execute("SELECT COUNT(*) FROM calls").fetchone()[0]))

    def _run(self, action: Callable[[sqlite3.Connection], Any]) -> Any:
        try:
            return action(self._conn)
        except sqlite3.Error as exc:
            raise CacheError(f"cache file {str(self.path)!r}: {type(exc).__name__}: {exc}") from exc

    def get_many(self, keys: Iterable[str]) -> dict[str, Any]:
        """The stored values of ``keys``; rows whose digest does not match (edited by hand) are left out."""
        keys = list(dict.fromkeys(keys))
        out: dict[str, Any] = {}
        with self._lock:
            for start in range(0, len(keys), 500):
                part = keys[start : start + 500]
                marks = ",".join("?" * len(part))
                sql = f"SELECT key, value, digest FROM calls WHERE key IN ({marks})"
                for key, value, digest in self._run(functools.partial(_select, sql=sql, keys=part)):
                    if isinstance(value, str) and digest == _digest(key, value):
                        try:
                            out[key] = json.loads(value)
                        except ValueError:
                            continue
        return out

    def set_many(self, items: Mapping[str, Any]) -> None:
        """Store ``items`` (one transaction). Raises :class:`CacheError` when the file cannot be written."""
        rows = []
        for key, value in items.items():
            encoded = canonical_json(value)
            rows.append((key, encoded, _digest(key, encoded)))
        if not rows:
            return

        def write(conn: sqlite3.Connection) -> None:
            with conn:
                conn.executemany("INSERT OR REPLACE INTO calls (key, value, digest) VALUES (?, ?, ?)", rows)

        with self._lock:
            self._run(write)

    def close(self) -> None:
        """Close the database connection."""
        with self._lock:
            self._conn.close()


def _select(conn: sqlite3.Connection, sql: str, keys: list[str]) -> list[Any]:
    """The rows ``sql`` selects for ``keys``."""
    return conn.execute(sql, keys).fetchall()


def open_cache(cache: CallCache | str | os.PathLike[str] | None) -> CallCache | None:
    """``None`` -> None, a path -> :class:`SqliteCache`, a cache object (``get_many``/``set_many``) -> itself."""
    if cache is None:
        return None
    if isinstance(cache, (str, os.PathLike)):
        return SqliteCache(cache)
    if isinstance(cache, CallCache):
        return cache
    raise TypeError(f"cache must be a path, a cache object (get_many/set_many) or None; got {type(cache).__name__}")


def lookup_quietly(cache: CallCache, keys: Iterable[str], validate: Callable[[Any], Any] | None = None) -> dict[str, Any]:
    """Valid cached values of ``keys``: a value ``validate`` rejects (raises or returns None) is left out,
    so it is recomputed; a cache that cannot be read warns (:class:`CacheWriteWarning`) and counts as empty."""
    try:
        found = cache.get_many(keys)
    except Exception as exc:  # noqa: BLE001 - a cache problem must not stop the calls
        warnings.warn(f"cache {cache!r} could not be read ({exc}); calling the model instead", CacheWriteWarning,
                      stacklevel=2)
        return {}
    if validate is None:
        return dict(found)
    out = {}
    for key, value in found.items():
        try:
            checked = validate(value)
        except (TypeError, ValueError):
            continue
        if checked is not None:
            out[key] = checked
    return out


def store_quietly(cache: CallCache, items: Mapping[str, Any]) -> bool:
    """Write ``items``; on failure warn with :class:`CacheWriteWarning` (naming the cache) and return False.
    The caller keeps the results either way."""
    if not items:
        return True
    try:
        cache.set_many(items)
    except Exception as exc:  # noqa: BLE001 - the results are already paid for; keep them
        warnings.warn(
            f"{len(items)} result(s) could not be written to the cache {cache!r} ({exc}); they are returned but "
            "a re-run will pay for them again.", CacheWriteWarning, stacklevel=2,
        )
        return False
    return True


def finite_score(calibrated: bool) -> Callable[[Any], float]:
    """A validator for cached scores: a finite real number (in [0, 1] when ``calibrated``)."""

    def check(value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ValueError(f"not a finite score: {value!r}")
        if calibrated and not 0.0 <= value <= 1.0:
            raise ValueError(f"score {value!r} outside [0, 1]")
        return float(value)

    return check


def finite_vector(dim: int | None = None) -> Callable[[Any], list[float]]:
    """A validator for cached embeddings: a non-empty list of finite numbers (of length ``dim`` when given)."""

    def check(value: Any) -> list[float]:
        if not isinstance(value, list) or not value or (dim is not None and len(value) != dim):
            raise ValueError("not a vector of the expected size")
        if any(isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) for v in value):
            raise ValueError("vector holds a non-finite or non-number value")
        return [float(v) for v in value]

    return check


def cached_map(
    namespace: str,
    inputs: Sequence[Any],
    compute: Callable[[list[Any]], Sequence[Any]],
    cache: CallCache | None,
    *,
    params: Mapping[str, Any] | None = None,
    validate: Callable[[Any], Any] | None = None,
) -> tuple[list[Any], int]:
    """``compute`` applied to ``inputs`` through ``cache``: ``(results in input order, cache hits)``.

    Each input is keyed by :func:`cache_key` ``(namespace, input, params)`` (a hash of its content, so equal
    texts share an entry); only the inputs missing from the cache (or whose cached value ``validate`` rejects)
    are passed to ``compute``, once each, in one call that must return one result per input. New results are
    stored with :func:`store_quietly` (a failing cache warns, the results are still returned). Suits
    embeddings (``validate=finite_vector(dim)``) and any other per-input model call.
    """
    keys = [cache_key(namespace, item, params) for item in inputs]
    found = lookup_quietly(cache, set(keys), validate) if cache is not None else {}
    hits = sum(1 for k in keys if k in found)
    todo: dict[str, Any] = {}
    for key, item in zip(keys, inputs, strict=False):
        if key not in found and key not in todo:
            todo[key] = item
    if todo:
        results = list(compute(list(todo.values())))
        if len(results) != len(todo):
            raise ValueError(f"compute returned {len(results)} results for {len(todo)} inputs ({namespace})")
        if validate is not None:
            results = [validate(r) for r in results]
        new = dict(zip(todo, results, strict=False))
        if cache is not None:
            store_quietly(cache, new)
        found.update(new)
    return [found[k] for k in keys], hits
