"""The settings of a benchmark run (:class:`BenchSettings`) and the evaluation modes (:data:`EVAL_MODES`)."""

from __future__ import annotations

from dataclasses import dataclass

from ..testsets import QUESTION_TYPES
from ..validation import check_count

__all__ = ["BenchSettings", "EVAL_MODES"]

EVAL_MODES = {"all": QUESTION_TYPES, "literal": ("literal",),
              "semantic": ("paraphrase", "scenario")}


@dataclass
class BenchSettings:
    """Every setting of a benchmark run (recorded in ``report.json``).

    ``ci`` gives every mean of the report its interval (``"t"``, ``"normal"`` or ``"bootstrap"``, named in the
    tables; None: none) and ``confidence`` their coverage, also that of the means corrected with human labels.
    """

    ks: tuple[int, ...] = (1, 3, 5, 10, 20)
    candidates: int = 50
    eval_mode: str = "all"
    e2e_limit: int | None = 20
    answer_k: int = 3
    permutations: int = 2000
    worst: int = 5
    seed: int = 0
    correction: str = "holm"
    ci: str | None = None
    confidence: float = 0.95

    def __post_init__(self) -> None:
        from ..intervals import INTERVAL_METHODS, check_confidence
        from ..multitest import check_correction

        self.correction = check_correction(self.correction)
        if self.ci is not None and self.ci not in INTERVAL_METHODS:
            raise ValueError(f"ci must be None or one of {', '.join(INTERVAL_METHODS)}, got {self.ci!r}")
        self.confidence = check_confidence(self.confidence)
        if self.eval_mode not in EVAL_MODES:
            raise ValueError(f"eval_mode must be one of {', '.join(EVAL_MODES)}, got {self.eval_mode!r}")
        if not self.ks:
            raise ValueError(f"ks must be positive integers, got {self.ks!r}")
        self.ks = tuple(sorted({check_count(k, f"each of ks {self.ks!r}") for k in self.ks}))
        for name in ("candidates", "answer_k", "permutations"):
            check_count(getattr(self, name), name)
        if self.e2e_limit is not None:
            check_count(self.e2e_limit, "e2e_limit", minimum=0)

    @property
    def depth(self) -> int:
        """The largest cutoff: how deep each configuration's run is kept and scored."""
        return max(self.ks)
