"""Count the ``rag-eval`` options per concept: how many commands declare it, under how many spellings.

A development tool (not shipped). It builds the parser of the ``rag_eval_adapters`` found on the path and reads
each option into its concept with ``cli/_vocabulary.py`` of this checkout (so it also measures an older checkout:
``PYTHONPATH=/path/to/old python tools/cli_vocabulary.py``). Deprecated aliases are counted apart.

    python tools/cli_vocabulary.py [--all | --markdown]

prints one line per concept with more than one spelling or declared by several commands (``--all``: every one;
``--markdown``: the table of every option of docs/cli.md, "Every option").
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
    wanted.add_argument("--markdown", action="store_true", help="the table of every option, for docs/cli.md")
    given = wanted.parse_args(argv)
    show_all = given.all
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
    if given.markdown:
        return _markdown(live, old, vocabulary)
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


def _markdown(live: dict, old: dict, vocabulary) -> int:
    """Print the option table of docs/cli.md: option, concept, commands; then the deprecated spellings."""
    print("| option | concept | commands |\n| --- | --- | --- |")
    for concept, spellings in sorted(live.items(), key=lambda item: sorted(item[1])[0]):
        for spelling, commands in sorted(spellings.items()):
            print(f"| `{spelling}` | {concept} | {', '.join(sorted(commands))} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
