"""Agreement statistics at scale: Kendall's tau-b by Knight's O(n log n) algorithm and Spearman's ranks by one
sort, equal to scipy on the sample and on bootstrap resamples (issue 30, item 9)."""

import sys

import numpy as np
import pytest

from rag_eval_adapters.agreement import kendall_tau_b, measure_agreement, spearman
from rag_eval_adapters.stats.agreement import FEW_VALUES, kendall_plan, weighted_kendall, weighted_ranks

st = pytest.importorskip("scipy.stats")


def _cases(rng):
    for n in (2, 3, 8, 33, 257):
        yield rng.integers(0, 4, n).astype(float), rng.integers(0, 3, n).astype(float)  # grades on both sides
        yield rng.normal(size=n), rng.integers(-2, 3, n).astype(float)  # a scorer against preferences
        yield np.round(rng.normal(size=n), 1), np.round(rng.normal(size=n), 1)  # many values, some ties
        yield rng.normal(size=n), rng.normal(size=n)  # no ties: the merge-sort path


def test_tau_b_equals_scipy_on_the_sample_and_on_every_resample():
    rng = np.random.default_rng(7)
    for x, y in _cases(rng):
        n = x.size
        w = np.vstack([np.ones(n), rng.multinomial(n, np.full(n, 1.0 / n), size=6)])
        got = weighted_kendall(x, y, w)
        for row, weights in zip(got, w, strict=True):
            drawn = np.repeat(np.arange(n), weights.astype(int))
            expected = st.kendalltau(x[drawn], y[drawn]).statistic
            assert (np.isnan(expected) and np.isnan(row)) or row == pytest.approx(expected, abs=1e-12)
        expected = st.kendalltau(x, y).statistic
        assert kendall_tau_b(x, y) == (None if np.isnan(expected) else pytest.approx(expected, abs=1e-12))


def test_spearman_ranks_equal_scipy_rankdata_on_every_resample():
    rng = np.random.default_rng(8)
    for x, y in _cases(rng):
        n = x.size
        w = np.vstack([np.ones(n), rng.multinomial(n, np.full(n, 1.0 / n), size=4)])
        ranks = weighted_ranks(x, w)
        for row, weights in zip(ranks, w, strict=True):
            drawn = np.repeat(np.arange(n), weights.astype(int))
            expected = st.rankdata(x[drawn])
            assert np.allclose(row[drawn], expected, atol=1e-9)
        expected = st.spearmanr(x, y).statistic
        assert spearman(x, y) == (None if np.isnan(expected) else pytest.approx(expected, abs=1e-12))


def _numpy_calls(function, *args):
    """How many calls into compiled code (numpy's functions and methods) ``function(*args)`` makes."""
    count = 0

    def profile(frame, event, arg):
        nonlocal count
        count += event == "c_call"

    sys.setprofile(profile)
    try:
        function(*args)
    finally:
        sys.setprofile(None)
    return count


@pytest.mark.parametrize("labels", ["grades", "continuous"])
def test_tau_b_and_spearman_work_grows_like_n_log_n_not_n_squared(labels):
    # the pairwise formulas built blocks of the n x n pair matrix: 10x the items made ~100x the block loops
    rng = np.random.default_rng(9)

    def data(n):
        x = rng.normal(size=n)
        return x, (rng.integers(1, 6, n).astype(float) if labels == "grades" else rng.normal(size=n))

    small, large = data(4_000), data(40_000)
    for statistic in (kendall_tau_b, spearman):
        assert _numpy_calls(statistic, *large) <= 1.5 * _numpy_calls(statistic, *small) + 50, statistic.__name__


def test_the_plan_has_one_merge_level_per_doubling_or_one_step_per_grade():
    rng = np.random.default_rng(10)
    n = 100_000
    x = rng.normal(size=n)
    plan = kendall_plan(x, rng.normal(size=n))
    assert len(plan.levels) == int(np.ceil(np.log2(n))) and not plan.grades
    assert all(q.size <= n // 2 + 1 for _, q, _, _ in plan.levels)  # O(n) indices a level: O(n log n) in all
    graded = kendall_plan(x, rng.integers(1, 6, n).astype(float))
    assert len(graded.grades) == 4 < FEW_VALUES and not graded.levels


def test_measure_agreement_on_many_judgments_keeps_its_numbers_per_block():
    # the resamples are drawn a block of rows at a time: the result does not depend on where the blocks end
    import rag_eval_adapters.agreement.measure as measure

    rng = np.random.default_rng(11)
    x, y = rng.normal(size=3000), rng.integers(1, 6, 3000).astype(float)
    whole = measure_agreement(x, y, n_bootstrap=40, seed=3).to_dict()
    cells = measure._BLOCK_CELLS
    try:
        measure._BLOCK_CELLS = 3000 * 7  # blocks of 7 rows
        blocks = measure_agreement(x, y, n_bootstrap=40, seed=3).to_dict()
    finally:
        measure._BLOCK_CELLS = cells
    assert blocks == whole
