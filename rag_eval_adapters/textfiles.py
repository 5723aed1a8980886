"""Documents from a folder of files: the text formats users have, and an account of every file not read.

:func:`read_folder` reads every file under a folder (its path inside the folder, with ``/``, is the document
id): plain text (``.txt``, ``.text``), Markdown (``.md``, ``.markdown``), reStructuredText (``.rst``) and
HTML (``.html``, ``.htm``: the visible text, without tags, scripts and styles). Further formats are read by
the ``readers`` given (``{".pdf": function(path) -> text}``; ``rag-eval`` passes LlamaIndex's file readers
when ``llama-index-readers-file`` is installed). Nothing is skipped silently: every file not read is counted
under a reason (:data:`SKIP_REASONS`) in :attr:`FolderRead.skipped`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

__all__ = ["TEXT_FORMATS", "SKIP_REASONS", "FolderRead", "read_folder", "html_to_text"]

#: the suffixes read without any reader given, and their format
TEXT_FORMATS = {".txt": "text", ".text": "text", ".md": "Markdown", ".markdown": "Markdown",
                ".rst": "reStructuredText", ".html": "HTML", ".htm": "HTML"}
#: why a file was not read
SKIP_REASONS = (
    "unsupported_format",  # no reader for its suffix (see TEXT_FORMATS and ``readers``)
    "not_utf8",  # a text format whose bytes are not UTF-8
    "empty",  # nothing but white space (after removing HTML markup)
    "unreadable",  # a reader failed on it, or it could not be opened
    "hidden",  # its name or a folder on its path starts with "." (.git, .DS_Store)
)

_BLOCK_TAGS = {"p", "div", "br", "li", "ul", "ol", "tr", "table", "section", "article", "header", "footer", "h1",
               "h2", "h3", "h4", "h5", "h6", "pre", "blockquote", "title", "dt", "dd", "hr"}
_SKIPPED_TAGS = {"script", "style", "noscript", "template", "svg", "head"}


class _TextOfHTML(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.title: list[str] = []
        self._skipping = 0
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag == "title":
            self._in_title = True
        elif tag in _SKIPPED_TAGS:
            self._skipping += 1
        elif tag in _BLOCK_TAGS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        elif tag in _SKIPPED_TAGS:
            self._skipping = max(0, self._skipping - 1)
        elif tag in _BLOCK_TAGS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title.append(data)
        elif not self._skipping:
            self.parts.append(data)


def html_to_text(html: str) -> str:
    """The visible text of an HTML page: tags removed, entities decoded, scripts and styles left out, one
    paragraph a line (the ``<title>`` first, when the body does not start with it)."""
    parser = _TextOfHTML()
    parser.feed(html)
    parser.close()
    lines = [" ".join(line.split()) for line in "".join(parser.parts).splitlines()]
    body = "\n".join(line for line in lines if line)
    title = " ".join("".join(parser.title).split())
    return f"{title}\n{body}" if title and not body.startswith(title) else body


@dataclass
class FolderRead:
    """What :func:`read_folder` read: ``documents`` (``{document id: text}``, in path order) and ``skipped``
    (``{reason: [paths inside the folder]}``, reasons from :data:`SKIP_REASONS`)."""

    documents: dict[str, str] = field(default_factory=dict)
    skipped: dict[str, list[str]] = field(default_factory=dict)

    def counts(self) -> dict[str, Any]:
        """``{"read": n, "skipped": m, "skipped_by_reason": {reason: count}}`` (for summaries)."""
        return {"read": len(self.documents), "skipped": sum(len(v) for v in self.skipped.values()),
                "skipped_by_reason": {reason: len(files) for reason, files in self.skipped.items()}}

    def describe(self) -> str:
        """One line: ``read 14 documents; skipped 15: unsupported_format 12 (.pdf 10, .docx 2), not_utf8 3``."""
        text = f"read {len(self.documents)} document{'s' if len(self.documents) != 1 else ''}"
        if not self.skipped:
            return text
        parts = []
        for reason, files in self.skipped.items():
            detail = ""
            if reason == "unsupported_format":
                suffixes: dict[str, int] = {}
                for name in files:
                    suffix = Path(name).suffix.lower() or "(no suffix)"
                    suffixes[suffix] = suffixes.get(suffix, 0) + 1
                detail = " (" + ", ".join(f"{s} {n}" for s, n in sorted(suffixes.items(), key=lambda kv: -kv[1])) + ")"
            parts.append(f"{reason} {len(files)}{detail}")
        return f"{text}; skipped {sum(len(v) for v in self.skipped.values())}: {', '.join(parts)}"


def _text_of(file: Path) -> str:
    data = file.read_bytes()
    text = data.decode("utf-8-sig")
    return html_to_text(text) if TEXT_FORMATS[file.suffix.lower()] == "HTML" else text


def read_folder(path: str | Path, readers: Mapping[str, Callable[[Path], str]] | None = None) -> FolderRead:
    """Every document under the folder ``path`` (see the module docstring).

    Parameters
    ----------
    path
        The folder; files in sub-folders are read too.
    readers
        Readers of further formats by suffix (``".pdf"``); each returns the file's text. A suffix of
        :data:`TEXT_FORMATS` given here is read by the reader given.

    Returns
    -------
    FolderRead
        The documents read and the files skipped, by reason.
    """
    root = Path(path)
    if not root.is_dir():
        raise ValueError(f"{str(root)!r} is not a folder")
    extra = {suffix.lower(): reader for suffix, reader in (readers or {}).items()}
    result = FolderRead()

    def skip(reason: str, name: str) -> None:
        result.skipped.setdefault(reason, []).append(name)

    for file in sorted(p for p in root.rglob("*") if p.is_file()):
        name = file.relative_to(root).as_posix()
        suffix = file.suffix.lower()
        if any(part.startswith(".") for part in file.relative_to(root).parts):
            skip("hidden", name)
            continue
        try:
            if suffix in extra:
                text = extra[suffix](file)
            elif suffix in TEXT_FORMATS:
                text = _text_of(file)
            else:
                skip("unsupported_format", name)
                continue
        except UnicodeDecodeError:
            skip("not_utf8", name)
            continue
        except Exception:  # a reader's own failure (a damaged PDF): counted, the other files are read
            skip("unreadable", name)
            continue
        if not isinstance(text, str) or not re.search(r"\S", text):
            skip("empty", name)
            continue
        result.documents[name] = text
    return result
