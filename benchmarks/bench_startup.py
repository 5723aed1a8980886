"""Benchmark: start-up time, each in a fresh interpreter, against ``import numpy, pydantic`` (the core's two
dependencies).

Each command runs ``--repeats`` times, interleaved round by round, and the medians are reported:

* ``python -c pass`` (the interpreter alone);
* ``import numpy, pydantic``;
* ``import rag_eval_adapters`` (goal of issue 15: at most 1.3x ``import numpy, pydantic``);
* ``from rag_eval_adapters import evaluate`` (what a script that scores something loads);
* ``rag-eval --help`` (``rag_eval_adapters.cli.main(["--help"])``).

    python benchmarks/bench_startup.py --repeats 15
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

COMMANDS = {
    "python -c pass": ["-c", "pass"],
    "import numpy, pydantic": ["-c", "import numpy, pydantic"],
    "import rag_eval_adapters": ["-c", "import rag_eval_adapters"],
    "from rag_eval_adapters import evaluate": ["-c", "from rag_eval_adapters import evaluate"],
    "rag-eval --help": ["-c", "import sys; from rag_eval_adapters.cli import main; sys.exit(main(['--help']))"],
}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args(argv)
    times = {name: [] for name in COMMANDS}
    for _ in range(args.repeats):
        for name, command in COMMANDS.items():
            start = time.perf_counter()
            subprocess.run([sys.executable, *command], check=True, stdout=subprocess.DEVNULL)
            times[name].append(time.perf_counter() - start)
    med = {name: statistics.median(values) for name, values in times.items()}
    base = med["import numpy, pydantic"]
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} (shared machine: compare the ratios)\n")
    print("| fresh interpreter | median s | vs import numpy, pydantic |\n|---|---:|---:|")
    for name, value in med.items():
        print(f"| {name} | {value:.3f} | {value / base:.2f}x |")
    print(f"\ngoal (<= 1.3x): import rag_eval_adapters = {med['import rag_eval_adapters'] / base:.2f}x "
          "import numpy, pydantic")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
