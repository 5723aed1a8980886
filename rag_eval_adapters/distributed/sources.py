"""Where the rows come from: Parquet files (paths, directories, globs, any pyarrow filesystem) or tables.

The driver reads only Parquet metadata; each :class:`ParquetPiece` (a few row groups of one file) is read by the
worker that splits it into shards. Nothing here imports Ray.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "ParquetPiece", "ParquetBlock", "group_pieces", "is_path_source", "parquet_pieces", "as_arrow", "wanted_columns",
    "resolve_path",
]

_GLOB = set("*?[")


@dataclass(frozen=True)
class ParquetPiece:
    """Row groups ``row_groups`` of the Parquet file ``path`` on ``filesystem``: ``num_rows`` rows from the file's
    row ``first_row``."""

    path: str
    filesystem: Any
    row_groups: tuple[int, ...]
    first_row: int
    num_rows: int

    def read(self, columns: list[str]):
        import pyarrow.parquet as pq

        with self.filesystem.open_input_file(self.path) as handle:
            return pq.ParquetFile(handle).read_row_groups(list(self.row_groups), columns=columns)


@dataclass(frozen=True)
class ParquetBlock:
    """Consecutive pieces that one task reads as one table (small files grouped, large ones split)."""

    pieces: tuple[ParquetPiece, ...]

    def read(self, columns: list[str]):
        import pyarrow as pa

        tables = [p.read(columns) for p in self.pieces]
        return tables[0] if len(tables) == 1 else pa.concat_tables(tables, promote_options="permissive")

    def where(self, row: int) -> str:
        """``path row N`` of the block's row ``row``."""
        for piece in self.pieces:
            if row < piece.num_rows:
                return f"{piece.path} row {piece.first_row + row}"
            row -= piece.num_rows
        return self.pieces[-1].path  # pragma: no cover - rows past the end


def group_pieces(pieces: list[ParquetPiece], target_rows: int) -> list[ParquetBlock]:
    """Consecutive pieces grouped into blocks of about ``target_rows`` rows (a piece is never split)."""
    blocks: list[ParquetBlock] = []
    group: list[ParquetPiece] = []
    rows = 0
    for piece in pieces:
        if group and rows + piece.num_rows > target_rows:
            blocks.append(ParquetBlock(tuple(group)))
            group, rows = [], 0
        group.append(piece)
        rows += piece.num_rows
    if group:
        blocks.append(ParquetBlock(tuple(group)))
    return blocks


def is_path_source(source: Any) -> bool:
    """Whether ``source`` names Parquet files: a path, a glob, a URI, or a list of them."""
    if isinstance(source, (str, os.PathLike)):
        return True
    return isinstance(source, (list, tuple)) and bool(source) and all(isinstance(s, (str, os.PathLike)) for s in source)


def resolve_path(path: str | os.PathLike, filesystem: Any = None) -> tuple[Any, str]:
    """The pyarrow filesystem and the path on it: ``filesystem`` if given, else from the URI, else local."""
    import pyarrow.fs as pafs

    text = os.fspath(path)
    if filesystem is not None:
        return filesystem, text
    if "://" in text:
        return pafs.FileSystem.from_uri(text)
    return pafs.LocalFileSystem(), os.path.abspath(text)


def wanted_columns(field: str, names: list[str]) -> list[str]:
    """The columns read from qrels (``query_id, doc_id, grade``) or a run (``score``, else ``rank``)."""
    if field == "qrels":
        wanted = ["query_id", "doc_id", "grade"]
    else:
        wanted = ["query_id", "doc_id", "score" if "score" in names or "rank" not in names else "rank"]
    absent = [c for c in wanted if c not in names]
    if absent:
        raise ValueError(f"{field} needs the columns {wanted}; missing {absent} (it has {names})")
    return wanted


def parquet_pieces(source: Any, field: str, filesystem: Any = None, block_rows: int = 1_000_000):
    """The pieces (up to ``block_rows`` rows) of the Parquet files named by ``source``, the columns to read, and
    the number of rows.

    Raises ``FileNotFoundError`` when nothing matches, and ``ValueError`` naming the file that lacks a column.
    """
    import pyarrow.parquet as pq

    sources = [source] if isinstance(source, (str, os.PathLike)) else list(source)
    files = [(fs, p) for s in sources for fs, p in _expand(s, filesystem)]
    if not files:
        raise FileNotFoundError(f"{field}: no Parquet file matches {source!r}")
    pieces, columns, total = [], None, 0
    for fs, path in files:
        with fs.open_input_file(path) as handle:
            meta = pq.ParquetFile(handle).metadata
        names = meta.schema.to_arrow_schema().names
        try:
            wanted = wanted_columns(field, names)
        except ValueError as exc:
            raise ValueError(f"{path}: {exc}") from None
        if columns is None:
            columns = wanted
        elif wanted != columns:
            raise ValueError(f"{path}: {field} files disagree: this one has {wanted}, the first has {columns}")
        group, rows, first = [], 0, 0
        for g in range(meta.num_row_groups):
            group.append(g)
            rows += meta.row_group(g).num_rows
            if rows >= block_rows:
                pieces.append(ParquetPiece(path, fs, tuple(group), first, rows))
                first, group, rows = first + rows, [], 0
        if group or not meta.num_row_groups:
            pieces.append(ParquetPiece(path, fs, tuple(group), first, rows))
        total += meta.num_rows
    return pieces, columns, total


def _expand(source: str | os.PathLike, filesystem: Any):
    import pyarrow.fs as pafs

    fs, path = resolve_path(source, filesystem)
    if any(c in _GLOB for c in path):
        parts = path.split("/")
        fixed = [p for p in parts[: next(i for i, p in enumerate(parts) if set(p) & _GLOB)]]
        base = "/".join(fixed) or "/"
        infos = fs.get_file_info(pafs.FileSelector(base, recursive=True, allow_not_found=True))
        return sorted((fs, i.path) for i in infos if i.type == pafs.FileType.File and fnmatch.fnmatch(i.path, path))
    info = fs.get_file_info(path)
    if info.type == pafs.FileType.NotFound:
        raise FileNotFoundError(f"no such file or directory: {source}")
    if info.type == pafs.FileType.Directory:
        infos = fs.get_file_info(pafs.FileSelector(path, recursive=True))
        return sorted(
            (fs, i.path) for i in infos
            if i.type == pafs.FileType.File and not i.base_name.startswith(("_", ".")) and i.path.endswith(".parquet")
        )
    return [(fs, path)]


def column_names(table: Any) -> list[str] | None:
    """The column names of a pyarrow Table, a pandas DataFrame or a mapping of columns (None for anything
    else): the in-memory tables that :func:`as_arrow` and :func:`~rag_eval_adapters.distributed.score_shard`
    take."""
    if hasattr(table, "column_names"):
        return list(table.column_names)
    if hasattr(table, "columns"):
        return [str(c) for c in table.columns]
    if isinstance(table, Mapping):
        return [str(c) for c in table]
    return None


def as_arrow(table: Any, field: str):
    """A pandas DataFrame, pyarrow Table or mapping of columns, as a pyarrow Table of the needed columns."""
    import pyarrow as pa

    names = column_names(table)
    if names is None:
        raise TypeError(f"{field} must be a Ray Dataset, Parquet path(s), a pandas DataFrame, a pyarrow Table or a "
                        f"mapping of columns; got {type(table).__name__}")
    columns = wanted_columns(field, names)
    try:
        if hasattr(table, "column_names"):
            return table.select(columns)
        if hasattr(table, "iloc"):
            return pa.Table.from_pandas(table[columns], preserve_index=False)
        return pa.table({c: table[c] for c in columns})
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise TypeError(f"{field}: a column mixes types that Arrow cannot hold ({exc}); use one type per column, "
                        "e.g. string ids") from None
