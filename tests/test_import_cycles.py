"""No import circle in the package: no module imports a module that (transitively) imports it back, whether the
import is at module level or inside a function (docs/architecture.md: imports point inward).

Importing ``a.b.c`` runs the ``__init__`` of ``a`` and ``a.b`` first, so an import counts every package
``__init__`` it runs besides the module itself (not the importer's own packages: they ran before it). Imports under
``if TYPE_CHECKING:`` never run and do not count."""

from __future__ import annotations

import ast
from pathlib import Path

import rag_eval_adapters

PACKAGE = Path(rag_eval_adapters.__file__).parent


def _modules() -> dict[str, tuple[Path, bool]]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        out[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return out


def import_graph() -> dict[str, set[str]]:
    """Module -> the package modules it imports anywhere in its source (relative imports resolved)."""
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, (path, is_package) in modules.items():
        package = name if is_package else name.rsplit(".", 1)[0]
        found: set[str] = set()
        for node in _running_nodes(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    module = ".".join(base + ([node.module] if node.module else []))
                else:
                    module = node.module or ""
                candidates = [module] + [f"{module}.{alias.name}" for alias in node.names]
            elif isinstance(node, ast.Import):
                candidates = [alias.name for alias in node.names]
            else:
                continue
            found.update(c for c in candidates if c in modules and c != name)
        own = set(_packages_of(name))  # the importer's own packages ran before it
        found.update(p for c in list(found) for p in _packages_of(c) if p in modules and p not in own and p != name)
        graph[name] = found
    return graph


def _packages_of(module: str) -> list[str]:
    """The packages whose ``__init__`` an import of ``module`` runs: ``a``, ``a.b`` for ``a.b.c``."""
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def _running_nodes(tree: ast.AST):
    """Every node of ``tree`` but those under ``if TYPE_CHECKING:`` (imports for type checkers only)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                stack.extend(child.orelse)
                continue
            stack.append(child)


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in graph[node]:
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for node in graph:
        if node not in index:
            visit(node)
    return out


def test_the_checker_finds_a_circle():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_an_import_counts_the_package_inits_it_runs():
    graph = import_graph()
    # judges/agreement.py imports stats.agreement: that runs stats/__init__ too
    assert "rag_eval_adapters.stats" in graph["rag_eval_adapters.judges.agreement"]
    assert {"rag_eval_adapters.stats.agreement", "rag_eval_adapters.stats"} <= graph["rag_eval_adapters.agreement.measure"]
    # ... but not the importer's own package, which ran before it
    assert "rag_eval_adapters.agreement" not in graph["rag_eval_adapters.agreement.measure"]


def test_imports_for_type_checkers_only_do_not_count():
    tree = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import a\nelse:\n    import b\nimport c\n")
    names = {alias.name for node in _running_nodes(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert names == {"b", "c"}


def test_no_module_imports_a_module_that_imports_it_back():
    assert circles(import_graph()) == []
