"""Evaluations larger than one machine: scoring shards of whole queries, on Ray or any other engine.

:func:`score_shard` and :func:`combine` are plain functions (pandas and pyarrow); :func:`evaluate_ray` runs them on
Ray and is the only part that needs ``ray`` (imported when called). Install with
``pip install "rag-eval-adapters[ray]"``; see ``docs/distributed.md``.
"""

from __future__ import annotations

from .hashing import shard_of
from .shards import STATUS_COLUMNS, Combined, combine, score_shard

__all__ = [
    "shard_of", "score_shard", "combine", "Combined", "STATUS_COLUMNS", "evaluate_ray", "RayResult",
    "evaluate_answers_ray", "judge_answers_ray",
]


def __getattr__(name):  # the Ray entry points load ray only when asked for
    if name in ("evaluate_ray", "RayResult"):
        from . import ray_eval

        return getattr(ray_eval, name)
    if name == "evaluate_answers_ray":
        from . import answers

        return answers.evaluate_answers_ray
    if name == "judge_answers_ray":
        from . import judges

        return judges.judge_answers_ray
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
