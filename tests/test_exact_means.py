"""Every mean is the correctly rounded sum of its column over the number of queries (``math.fsum``), however
wide the range of the values: the exact sums are whole-matrix work, checked here against ``math.fsum``."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rag_eval_adapters import Report


def _fsum_mean(values: list[float]) -> float:
    try:
        return math.fsum(values) / len(values)
    except OverflowError:
        return math.fsum(v / len(values) for v in values)


def _report(columns: dict[str, np.ndarray]) -> Report:
    n = len(next(iter(columns.values())))
    return Report.from_per_query({f"q{i}": {k: float(v[i]) for k, v in columns.items()} for i in range(n)})


@pytest.mark.parametrize("seed", range(6))
def test_means_are_fsum_over_n_for_values_of_every_magnitude(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 400))
    columns = {
        "scores": rng.random(n),  # the usual case: 0 to 1, full mantissas
        "cancelling": np.concatenate([[1e16, -1e16], rng.random(n - 2)]),  # the sum cancels the big terms
        "wide": rng.normal(size=n) * np.ldexp(1.0, rng.integers(-1070, 1000, n)),  # subnormal to 1e301
        "tiny": rng.normal(size=n) * 1e-310,  # subnormals only
        "decimal": np.round(rng.normal(0, 0.3, n), 1),
        "huge": np.full(n, 1e308) * rng.choice([1.0, 0.99], n),  # the sum overflows: fsum of the values / n
    }
    report = _report(columns)
    for key, column in columns.items():
        assert report.mean[key] == _fsum_mean(column.tolist()), key


def test_a_column_mean_does_not_depend_on_the_other_columns_or_the_row_order():
    rng = np.random.default_rng(9)
    x = rng.normal(size=1000) * np.ldexp(1.0, rng.integers(-60, 60, 1000))
    alone = _report({"x": x}).mean["x"]
    together = _report({"x": x, "y": rng.random(1000) * 1e300, "z": np.zeros(1000)}).mean["x"]
    backwards = _report({"x": x[::-1]}).mean["x"]
    assert alone == together == backwards == math.fsum(x.tolist()) / 1000
