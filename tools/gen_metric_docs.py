"""Writes the generated parts of ``docs/metrics.md`` and ``docs/answers.md`` from the metric registry.

A development tool, not part of the package. Each metric class declares its names, options and formula (in its
docstring) once; this script renders, for each family of the registry, a names table and the definitions
between the ``<!-- registry ...: start -->`` and ``<!-- registry ...: end -->`` markers of its page:

* retrieval metrics (:data:`rag_eval_adapters.measures.METRICS`): ``docs/metrics.md``, blocks ``table`` and
  ``definitions``;
* answer metrics (:data:`rag_eval_adapters.answers.ANSWER_METRICS`): ``docs/answers.md``, blocks
  ``answer table`` and ``answer definitions``.

Run ``python tools/gen_metric_docs.py`` from the repository to rewrite the blocks, ``--check`` to only report
(exit status 1) when a page differs from the registry; ``tests/test_registry.py`` runs the check.
"""

from __future__ import annotations

import argparse
import inspect
import re
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _markdown(text: str) -> str:
    """Sphinx roles of a docstring as Markdown: ``:math:`` to ``$...$``, ``:class:`` to the bare name."""
    text = re.sub(r":math:`([^`]*)`", r"$\1$", text)
    text = re.sub(r":class:`~?([^`]*)`", lambda m: m[1].rsplit(".", 1)[-1], text)
    return text.replace("``", "`")


def definitions(classes: Iterable[type]) -> str:
    """The definition of each metric class, from its docstring: summary, names, formula, notes, reference."""
    out = []
    for cls in classes:
        doc = inspect.getdoc(cls)
        summary, rest = doc.split("\n", 1)
        formula = re.search(r"\.\. math:: (.*)", rest)[1]
        notes = rest.split(formula, 1)[1].split("References")[0].split("Examples\n")[0].strip()
        reference = rest.split("----------\n", 1)[1].split("\n\n")[0].strip()
        names = [cls.name, *cls.aliases, *getattr(cls, "variants", {})]
        out.append(
            f"**{_markdown(summary)}** ({', '.join(f'`{name}`' for name in names)})\n\n$${formula}$$\n\n"
            f"{_markdown(' '.join(notes.split()))}\n\n*Reference*: {' '.join(reference.split())}\n"
        )
    return "\n".join(out)


def _table(header: list[str], rows: Iterable[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _codes(names: Iterable[str]) -> str:
    return ", ".join(f"`{name}`" for name in names) or "—"


def retrieval_table() -> str:
    """The names table of ``docs/metrics.md``: our name, aliases, trec_eval's and ir_measures' names, options."""
    from rag_eval_adapters.measures import METRICS

    return _table(["ours", "aliases", "trec_eval", "ir_measures", "options"], (
        [f"`{cls.name}@k`" if cls.cutoff else f"`{cls.name}` (no cutoff)", _codes(cls.aliases),
         _codes([cls.trec_eval] if cls.trec_eval else []), _codes([cls.ir_measures] if cls.ir_measures else []),
         _codes(name for name in cls.model_fields if name != "k")]
        for cls in METRICS.values()
    ))


def answer_table() -> str:
    """The names table of ``docs/answers.md``: name, aliases, named variants with their options, options."""
    from rag_eval_adapters.answers import ANSWER_METRICS

    def variants(cls: type) -> str:
        return ", ".join(
            f"`{name}` ({', '.join(f'{k}={v!r}' for k, v in options.items())})" for name, options in cls.variants.items()
        ) or "—"

    return _table(["name", "aliases", "variants", "options", "needs an embedder", "needs a judge"], (
        [f"`{cls.name}`", _codes(cls.aliases), variants(cls), _codes(cls.model_fields),
         "yes" if cls.needs_embedder else "no", "yes" if cls.needs_judge else "no"]
        for cls in ANSWER_METRICS.values()
    ))


def retrieval_definitions() -> str:
    from rag_eval_adapters.measures import METRICS

    return definitions(METRICS.values())


def answer_definitions() -> str:
    from rag_eval_adapters.answers import ANSWER_METRICS

    return definitions(ANSWER_METRICS.values())


BLOCKS: dict[str, dict[str, Callable[[], str]]] = {
    "metrics.md": {"table": retrieval_table, "definitions": retrieval_definitions},
    "answers.md": {"answer table": answer_table, "answer definitions": answer_definitions},
}
"""page -> block name -> its generator."""


def rendered(page: str, text: str) -> str:
    """``text`` (the page) with every registry block replaced by the generator's output."""
    for name, generate in BLOCKS[page].items():
        start, end = f"<!-- registry {name}: start -->\n", f"<!-- registry {name}: end -->"
        if start not in text or end not in text:
            raise ValueError(f"docs/{page} has no block {start.strip()} ... {end}")
        head, rest = text.split(start, 1)
        text = head + start + generate() + end + rest.split(end, 1)[1]
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report pages that differ (exit status 1)")
    args = parser.parse_args(argv)
    stale = []
    for page in BLOCKS:
        path = DOCS / page
        text = path.read_text(encoding="utf-8")
        new = rendered(page, text)
        if new != text:
            stale.append(page)
            if not args.check:
                path.write_text(new, encoding="utf-8")
    verb = "differs from the registry" if args.check else "rewritten"
    for page in stale:
        print(f"docs/{page}: {verb}", file=sys.stderr)
    return 1 if stale and args.check else 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
