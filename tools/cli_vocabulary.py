"""Count the ``rag-eval`` options per concept: how many commands declare it, under how many spellings.

A development tool (not shipped). It builds the parser of the ``rag_eval_adapters`` found on the path and reads
each option into its concept with ``cli/_vocabulary.py`` of this checkout (so it also measures an older checkout:
``PYTHONPATH=/path/to/old python tools/cli_vocabulary.py``). Deprecated aliases are counted apart.

    python tools/cli_vocabulary.py [--all]

prints one line per concept with more than one spelling or declared by several commands (``--all``: every one).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parents[1] / "rag_eval_adapters" / "cli" / "_vocabulary.py"


def _vocabulary():
    spec = importlib.util.spec_from_file_location("cli_vocabulary_table", HERE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def main(argv: list[str] | None = None) -> int:
    wanted = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    wanted.add_argument("--all", action="store_true", help="every concept, not only the shared ones")
    show_all = wanted.parse_args(argv).all
    from rag_eval_adapters.cli import build_parser

    vocabulary = _vocabulary()
    parser = build_parser()
    live: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    kinds: dict[str, set[str]] = defaultdict(set)
    old: dict[str, set[str]] = defaultdict(set)
    actions = set()
    for command, spelling, action in vocabulary.option_spellings(parser):
        if isinstance(action, vocabulary.DeprecatedAlias) or action.help == argparse.SUPPRESS:
            old[spelling].add(command)
            continue
        actions.add((command, id(action)))
        live[vocabulary.concept_of(spelling)][spelling].add(command)
        kinds[spelling].add("flag" if action.nargs == 0 else "value")
    print(f"{len(actions)} options in {len(vocabulary.subparsers(parser))} commands, {len(live)} concepts, "
          f"{sum(len(s) > 1 for s in live.values())} with more than one spelling")
    for concept, spellings in sorted(live.items()):
        commands = set().union(*spellings.values())
        if show_all or len(spellings) > 1 or len(commands) > 1:
            detail = ", ".join(f"{s} x{len(c)}" + (" (a flag here, a value there)" if len(kinds[s]) > 1 else "")
                               for s, c in sorted(spellings.items()))
            print(f"  {concept}: {len(spellings)} spelling(s) in {len(commands)} command(s): {detail}")
    for spelling, commands in sorted(old.items()):
        print(f"  deprecated {spelling}: {', '.join(sorted(commands))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
