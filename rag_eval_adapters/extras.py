"""Optional dependencies: each sits behind an extra of the package and is imported when first needed."""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["require"]


def require(module: str, *, needed_by: str, extra: str, package: str | None = None) -> ModuleType:
    """The module ``module``, imported; when it is not installed, an ``ImportError`` that says what needs it and
    the command that installs it.

    Parameters
    ----------
    module : str
        The dotted module name, e.g. ``"llama_index.core"``.
    needed_by : str
        What needs it, the start of the message (``"rag_eval_adapters.llamaindex"``).
    extra : str
        The package's extra that installs it (``pip install 'rag-eval-adapters[EXTRA]'``).
    package : str, optional
        The distribution's name when it differs from the module's (``"llama-index-core"``).

    Examples
    --------
    >>> require("json", needed_by="this example", extra="cli").__name__
    'json'
    >>> require("no_such_module_here", needed_by="this example", extra="cli")
    Traceback (most recent call last):
    ...
    ImportError: this example needs no_such_module_here: pip install 'rag-eval-adapters[cli]'
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(
            f"{needed_by} needs {package or module.split('.')[0]}: pip install 'rag-eval-adapters[{extra}]'"
        ) from exc
