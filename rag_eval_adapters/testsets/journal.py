"""The resume journal next to a test set's output: the model replies of finished calls and the tasks whose
cases were written, so an interrupted run starts again where it stopped without paying twice."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from ..jsonl import read_jsonl_objects

__all__ = ["Journal", "journal_path"]


def journal_path(output: Path) -> Path:
    """The journal of ``output``: the same path with ``.progress`` appended."""
    return output.with_name(output.name + ".progress")


class Journal:
    """Append-only JSONL: a ``settings`` line, ``reply`` lines (a task's model replies, written as each
    call finishes) and ``done`` lines (a task's cases are in the output; with its drop counts)."""

    def __init__(self, output: Path, settings: dict[str, Any]) -> None:
        self.path = journal_path(output)
        self.replies: dict[str, dict[str, Any]] = {}
        self.done: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()
        if self.path.exists():
            self._read(settings)
        else:
            self._append({"kind": "settings", **settings})

    def _read(self, settings: dict[str, Any]) -> None:
        for number, record in read_jsonl_objects(self.path, bad_lines="yield"):
            if isinstance(record, ValueError):
                if number > 1:  # a line cut short by an interruption: ignore it
                    continue
                raise ValueError(f"{self.path.name} line 1: not a test-set progress file") from None
            kind = record.get("kind")
            if kind == "settings":
                old = {k: v for k, v in record.items() if k != "kind"}
                if old != settings:
                    changed = sorted(k for k in set(old) | set(settings) if old.get(k) != settings.get(k))
                    raise ValueError(
                        f"the output was generated with other settings ({', '.join(changed)} differ, see "
                        f"{self.path.name}); choose another output path to start a new test set"
                    )
            elif kind == "reply":
                self.replies[record["task"]] = record
            elif kind == "done":
                self.done[record["task"]] = record

    def _append(self, record: dict[str, Any]) -> None:
        line = json.dumps(record, ensure_ascii=False) + "\n"
        with self._lock, open(self.path, "a", encoding="utf-8") as handle:
            handle.write(line)
            handle.flush()

    def add_reply(self, task: str, reply: dict[str, Any]) -> None:
        """Record a task's model replies."""
        self._append({"kind": "reply", "task": task, **reply})

    def add_done(self, task: str, kept: list[str], dropped: dict[str, int]) -> None:
        """Record that a task's cases are written."""
        self._append({"kind": "done", "task": task, "kept": kept, "dropped": dropped})
