"""The CPU seconds a command costs, counting every process it starts, including those it never waits for.

A development tool, not part of the package. ``time`` (and ``os.times``) count a command and the children it
waits for; Ray's workers are started by the raylet and killed at shutdown without being waited for, so their
CPU is missing from ``time``'s figure. This script runs the command in a new session and, every 0.2 s, reads
``/proc`` for every process of that session (Ray's, Chromium's, subprocesses'), keeping the last CPU time seen
of each. It prints:

* ``waited``: user + system time of the command and every child it waited for (what ``time`` reports);
* ``session``: the sum of the last CPU time seen of each process of the session (a process that lives less
  than 0.2 s can be missed here, but it is in ``waited`` when it was waited for);
* the session's processes by name, and any still alive a second after the command ended.

Usage, from the repository: ``python tools/suite_cpu.py python -m pytest -q -p no:cacheprovider``. Linux only.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK")


def session_processes(session: int) -> dict[tuple[int, int], tuple[str, float]]:
    """``{(pid, start time): (name, user + system CPU seconds)}`` of the live processes of ``session``."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # ended while we looked
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()  # from field 3 (state) on: proc(5) numbering minus 3
        if int(fields[3]) == session:
            found[(int(entry.name), int(fields[19]))] = (name, (int(fields[11]) + int(fields[12])) / TICKS)
    return found


def main(argv: list[str]) -> int:
    """Run ``argv``, print its CPU figures to standard error; return its exit status."""
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    started = time.monotonic()
    process = subprocess.Popen(argv, start_new_session=True)
    seen: dict[tuple[int, int], tuple[str, float]] = {}
    while process.poll() is None:
        seen.update(session_processes(process.pid))
        time.sleep(0.2)
    wall = time.monotonic() - started
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    time.sleep(1.0)
    left = session_processes(process.pid)
    seen.update(left)
    by_name: Counter[str] = Counter()
    for name, cpu in seen.values():
        by_name[name] += cpu
    print(f"suite_cpu: exit {process.returncode}, wall {wall:.1f} s; waited {usage.ru_utime + usage.ru_stime:.1f} s "
          f"(user {usage.ru_utime:.1f}, system {usage.ru_stime:.1f}); session {sum(by_name.values()):.1f} s "
          f"over {len(seen)} processes", file=sys.stderr)
    print("suite_cpu: by name: " + ", ".join(f"{name} {cpu:.1f}" for name, cpu in by_name.most_common(12)),
          file=sys.stderr)
    if left:
        print(f"suite_cpu: still alive after 1 s: {sorted((pid, name) for (pid, _), (name, _) in left.items())}",
              file=sys.stderr)
    return process.returncode


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
