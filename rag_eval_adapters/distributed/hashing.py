"""A stable hash of query ids: the same shard for the same id in every process, on every machine.

Python's ``hash`` of a string is salted per process (``PYTHONHASHSEED``), so it cannot route rows read by
different workers to the same shard. :func:`shard_of` hashes integers with splitmix64 and strings with
SipHash under a fixed key (pandas' ``hash_array``); ids that compare equal (``7``, ``np.int64(7)``, ``7.0``)
land in the same shard.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..validation import check_count

__all__ = ["shard_of"]

_MASK = np.uint64(0xFFFFFFFFFFFFFFFF)


def shard_of(query_ids: Any, shards: int) -> np.ndarray:
    """The shard, in ``range(shards)``, of each query id: a stable hash of the id modulo ``shards``.

    Parameters
    ----------
    query_ids : array-like, pandas Series or pyarrow (Chunked)Array
        The ``query_id`` column of qrels or of a run; integers, strings, or a mix.
    shards : int
        The number of shards (at least 1).

    Returns
    -------
    numpy.ndarray
        int64 shard numbers, one per row. The same id gets the same shard in every process and every table,
        so rows grouped by shard hold whole queries of both qrels and run.

    Raises
    ------
    ValueError
        If an id is missing (None/NaN); the message gives its row.
    """
    shards = check_count(shards, "shards")
    values = _numpy(query_ids)
    n = values.shape[0]
    if not n:
        return np.zeros(0, dtype=np.int64)
    if n > 1:  # rows usually come grouped by query: hash the first row of each run of equal ids
        head = np.flatnonzero(np.r_[True, values[1:] != values[:-1]])
    else:
        head = np.arange(1)
    hashed = _stable_hash(values[head], head)
    sizes = np.diff(np.r_[head, n])
    return np.repeat((hashed % np.uint64(shards)).astype(np.int64), sizes)


def _numpy(column: Any) -> np.ndarray:
    if type(column).__module__.startswith("pyarrow"):
        return np.asarray(column.to_numpy(zero_copy_only=False))
    if hasattr(column, "to_numpy") and not isinstance(column, np.ndarray):
        return np.asarray(column.to_numpy())
    return np.asarray(column)


def _splitmix64(values: np.ndarray) -> np.ndarray:
    z = values.astype(np.int64, copy=False).view(np.uint64) + np.uint64(0x9E3779B97F4A7C15)
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return (z ^ (z >> np.uint64(31))) & _MASK


def _strings(values: np.ndarray) -> np.ndarray:
    from pandas.util import hash_array

    return hash_array(values.astype(object, copy=False), categorize=False).astype(np.uint64)


def _stable_hash(values: np.ndarray, rows: np.ndarray) -> np.ndarray:
    kind = values.dtype.kind
    if kind in "iub":
        return _splitmix64(values.astype(np.int64))
    if kind == "f":
        values = values.astype(object)
    if kind in "US":
        return _strings(values.astype(str).astype(object))
    from pandas.api.types import infer_dtype

    if infer_dtype(values, skipna=False) == "string":  # all str, none missing: the common case
        return _strings(values)
    out = np.empty(values.shape[0], dtype=np.uint64)
    ints, strs = [], []
    for i, v in enumerate(values.tolist()):
        if v is None or (isinstance(v, float) and v != v):
            raise ValueError(f"the query_id column is empty (None/NaN) at row {int(rows[i])}; every row needs an id")
        if isinstance(v, (int, np.integer)) and -(2**63) <= v < 2**63:
            ints.append((i, int(v)))
        elif isinstance(v, float) and v.is_integer() and -(2**63) <= v < 2**63:
            ints.append((i, int(v)))  # 7.0 == 7: the same query
        else:
            strs.append((i, v if isinstance(v, str) else repr(v)))
    if ints:
        at, vals = zip(*ints, strict=False)
        out[list(at)] = _splitmix64(np.asarray(vals, dtype=np.int64))
    if strs:
        at, vals = zip(*strs, strict=False)
        out[list(at)] = _strings(np.asarray(vals, dtype=object))
    return out
