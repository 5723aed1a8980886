"""Helpers that Ray workers import in tests/test_distributed.py (the fixture puts this folder on their path)."""

from __future__ import annotations

import os
from pathlib import Path

import pyarrow.fs as pafs


class FlakyHandler(pafs.FileSystemHandler):
    """The local filesystem, except that the first write whose name contains ``trigger`` fails once.

    ``how="oserror"`` raises ``OSError`` (a flaky store); ``how="crash"`` kills the worker process (a lost node).
    A marker file records the failure, so the retry, in whatever process, succeeds.
    """

    def __init__(self, trigger: str, marker: str, how: str = "oserror") -> None:
        self.trigger, self.marker, self.how = trigger, marker, how
        self.local = pafs.LocalFileSystem()

    def open_output_stream(self, path, metadata):
        if self.trigger in path and not Path(self.marker).exists():
            Path(self.marker).write_text(str(os.getpid()))
            if self.how == "crash":
                os._exit(1)
            raise OSError(f"injected failure writing {path}")
        return self.local.open_output_stream(path, metadata=metadata)

    # everything else: the local filesystem
    def get_type_name(self):
        return "flaky-local"

    def normalize_path(self, path):
        return self.local.normalize_path(path)

    def get_file_info(self, paths):
        return self.local.get_file_info(paths)

    def get_file_info_selector(self, selector):
        return self.local.get_file_info(selector)

    def create_dir(self, path, recursive):
        self.local.create_dir(path, recursive=recursive)

    def delete_dir(self, path):
        self.local.delete_dir(path)

    def delete_dir_contents(self, path, missing_dir_ok=False):
        self.local.delete_dir_contents(path, missing_dir_ok=missing_dir_ok)

    def delete_root_dir_contents(self):
        raise OSError("not supported")

    def delete_file(self, path):
        self.local.delete_file(path)

    def move(self, src, dest):
        self.local.move(src, dest)

    def copy_file(self, src, dest):
        self.local.copy_file(src, dest)

    def open_input_stream(self, path):
        return self.local.open_input_stream(path)

    def open_input_file(self, path):
        return self.local.open_input_file(path)

    def open_append_stream(self, path, metadata):
        return self.local.open_append_stream(path, metadata=metadata)

    def __eq__(self, other):
        return isinstance(other, FlakyHandler) and vars(self) == vars(other)

    def __ne__(self, other):
        return not self == other


def flaky_filesystem(trigger: str, marker: str, how: str = "oserror") -> pafs.PyFileSystem:
    return pafs.PyFileSystem(FlakyHandler(trigger, marker, how))


class LetterEmbedder:
    """A small deterministic embedder: letter counts (and one constant) of the lower-cased text.

    A text containing ``"💥"`` makes the call fail, as a flaky model server would.
    """

    name = "letters-v1"

    def _vectors(self, texts):
        if any("💥" in t for t in texts):
            raise RuntimeError("the embedding model failed on this text")
        return [[t.lower().count(c) for c in "abcdefghijklmnopqrstuvwxyz"] + [1.0] for t in texts]

    def embed_queries(self, texts):
        return self._vectors(texts)

    def embed_passages(self, texts):
        return self._vectors(texts)


class CountingFactory:
    """Builds a :class:`LetterEmbedder` and leaves one file per construction in ``directory``."""

    def __init__(self, directory: str) -> None:
        self.directory = directory

    def __call__(self) -> LetterEmbedder:
        Path(self.directory, f"built-{os.getpid()}-{id(self)}").write_text("")
        return LetterEmbedder()
