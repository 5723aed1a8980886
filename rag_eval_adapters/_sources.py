"""Input sources of the file readers: a plain file, a gzip-compressed file or standard input (``"-"``).

Every reader takes its lines from :func:`text_lines`, so every format reads the same way:

* a file whose first bytes are gzip's magic number is decompressed, whatever its name;
* ``"-"`` is standard input, read once into memory (so a reader may look at it twice);
* lines end at ``\\n``, ``\\r\\n`` or a lone ``\\r`` (old Mac files), and are numbered that way;
* a UTF-8 byte order mark at the start of the file is dropped;
* any other byte that is not UTF-8 is an error naming the line and the column.
"""

from __future__ import annotations

import gzip
import io
import os
import sys
import zlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any, Literal, Union, overload

STDIN = "-"
GZIP_MAGIC = b"\x1f\x8b"
BOM = b"\xef\xbb\xbf"

PathLike = Union[str, "os.PathLike[str]"]


class Source:
    """One input: its display name and how to open it (a path, maybe gzip, or bytes from standard input)."""

    def __init__(self, name: str, path: Path | None = None, data: bytes | None = None):
        self.name = name
        self.path = path
        self.data = data
        self.gzip = False
        if data is not None:
            self.gzip = data[:2] == GZIP_MAGIC
        elif path is not None:
            with open(path, "rb") as handle:
                self.gzip = handle.read(2) == GZIP_MAGIC

    def __repr__(self) -> str:
        return f"Source({self.name!r}, gzip={self.gzip})"

    def __str__(self) -> str:
        return self.name

    @property
    def stem_name(self) -> str:
        """The file name without a ``.gz`` suffix, lower case (``""`` for standard input)."""
        if self.path is None:
            return ""
        name = self.path.name.lower()
        return name[:-3] if name.endswith(".gz") else name

    def open(self) -> IO[bytes] | gzip.GzipFile:
        """A new binary stream of the (decompressed) bytes.

        Raises ``ValueError`` for a source with neither bytes nor a path.
        """
        raw: IO[bytes]
        if self.data is not None:
            raw = io.BytesIO(self.data)
        elif self.path is not None:
            raw = open(self.path, "rb")
        else:
            raise ValueError(f"{self.name}: a source needs a path or its bytes")
        return gzip.GzipFile(fileobj=raw, mode="rb") if self.gzip else raw

    def arrow_input(self):
        """What ``pyarrow.csv.read_csv`` reads."""
        import pyarrow as pa

        if self.data is not None:
            stream = pa.BufferReader(self.data)
            return pa.CompressedInputStream(stream, "gzip") if self.gzip else stream
        if self.gzip:
            return pa.input_stream(str(self.path), compression="gzip")
        return str(self.path)

    def read_bytes(self) -> bytes:
        """All the (decompressed) bytes."""
        with self.open() as handle:
            try:
                return handle.read()
            except (OSError, EOFError, zlib.error) as exc:
                raise ValueError(f"{self.name}: not a readable gzip file ({exc})") from None


def open_source(path: PathLike | Source) -> Source:
    """The :class:`Source` of ``path``; ``"-"`` reads standard input. Raises FileNotFoundError for no file."""
    if isinstance(path, Source):
        return path
    if isinstance(path, str) and path == STDIN:
        stream = sys.stdin
        data = stream.buffer.read() if hasattr(stream, "buffer") else stream.read().encode("utf-8")
        return Source("<stdin>", data=data)
    p = Path(path)
    if p.is_file():
        return Source(str(path), path=p)
    if p.exists() and not p.is_dir():  # a pipe such as <(zcat run.gz): read once, into memory
        with open(p, "rb") as handle:
            return Source(str(path), data=handle.read())
    raise FileNotFoundError(f"no such file: {p}")


@overload
def text_lines(source: Source, *, bad_lines: Literal["raise"] = "raise") -> Iterator[tuple[int, str]]: ...


@overload
def text_lines(source: Source, *, bad_lines: str) -> Iterator[tuple[int, str | ValueError]]: ...


def text_lines(source: Source, *, bad_lines: str = "raise") -> Iterator[tuple[int, str | ValueError]]:
    """``(line_number, text)`` for every line; the text may keep a final ``\n`` (see the module docstring).

    A line that is not UTF-8 raises ValueError naming it; with ``bad_lines="yield"`` that error is yielded in
    place of the text and reading goes on (for readers that report bad lines one by one).
    """
    number = 0
    try:
        with source.open() as handle:
            for raw in handle:
                if number == 0 and raw.startswith(BOM):
                    raw = raw[len(BOM):]
                if b"\r" in raw:  # CRLF, or lone CRs ending lines (old Mac files)
                    body = raw[:-1] if raw.endswith(b"\n") else raw
                    if body.endswith(b"\r"):
                        body = body[:-1]
                    pieces: Sequence[bytes] = body.split(b"\r")
                else:
                    pieces = (raw,)
                for piece in pieces:
                    number += 1
                    try:
                        line = piece.decode("utf-8")
                    except UnicodeDecodeError as exc:
                        error = ValueError(
                            f"{source.name}:{number}: not valid UTF-8 (byte {piece[exc.start]:#04x} at column "
                            f"{exc.start + 1}); save the file as UTF-8"
                        )
                        if bad_lines != "yield":
                            raise error from None
                        yield number, error
                        continue
                    yield number, line
    except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise ValueError(f"{source.name}: not a readable gzip file ({exc})") from None


def add_once(nested: dict[str, dict[str, Any]], qid: str, doc: str, value: Any, where: str, verb: str,
             error: type[ValueError] = ValueError) -> None:
    """``nested[qid][doc] = value``, the one rule of every reader: a query judges (``verb``) or retrieves a
    document once; a second time is ``error`` naming ``where`` (the file and line, or row)."""
    inner = nested.setdefault(qid, {})
    if doc in inner:
        raise error(f"{where}: query {qid!r} {verb} document {doc!r} twice")
    inner[doc] = value
