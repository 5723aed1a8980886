"""Agreement statistics: moved to :mod:`rag_eval_adapters.stats.agreement` (this path is kept: it re-exports that
module's public names)."""

from __future__ import annotations

from ..stats.agreement import *  # noqa: F403
from ..stats.agreement import __all__ as __all__
