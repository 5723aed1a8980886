"""Holm's and Benjamini-Hochberg's corrections against statsmodels, and the verdict clause they give."""

from __future__ import annotations

import numpy as np
import pytest

from rag_eval_adapters.multitest import CORRECTIONS, Correction, adjust_p_values, check_correction, correction_name

multipletests = pytest.importorskip("statsmodels.stats.multitest").multipletests


@pytest.mark.parametrize(("ours", "theirs"), [("holm", "holm"), ("bh", "fdr_bh"), ("bonferroni", "bonferroni")])
def test_adjusted_p_values_equal_statsmodels(ours, theirs):
    # statsmodels' Holm runs gc.collect() on every call: cheap because conftest.py keeps the heap frozen
    rng = np.random.default_rng(7)
    for size in (1, 2, 5, 66, 300):
        for _ in range(20):
            p = rng.uniform(size=size) ** 3
            p[rng.integers(0, size, size=size // 3)] = p[0]  # ties
            p[rng.integers(0, size)] = 1.0
            expected = multipletests(p, method=theirs)[1]
            np.testing.assert_allclose(adjust_p_values(p, ours), expected, rtol=0, atol=1e-15)


def test_adjusted_p_never_below_raw_and_order_kept():
    p = np.array([0.2, 0.001, 0.04, 0.03, 0.5])
    for method in CORRECTIONS:
        adj = adjust_p_values(p, method)
        assert (adj >= p).all() and (adj <= 1).all()
        for i in range(p.size):
            assert (adj[p > p[i]] >= adj[i]).all()  # a larger raw p never gets a smaller adjusted p
    assert adjust_p_values(p, "none").tolist() == p.tolist()
    assert adjust_p_values([], "holm").tolist() == []


def test_names_and_aliases():
    assert check_correction("fdr_bh") == check_correction("Benjamini-Hochberg") == "bh"
    assert correction_name("holm") == "Holm's correction"
    with pytest.raises(ValueError, match="unknown correction 'sidak'; choose one of holm, bh, bonferroni, none"):
        adjust_p_values([0.1], "sidak")


@pytest.mark.parametrize("bad", [float("nan"), -0.1, 1.5])
def test_p_values_outside_0_1_are_rejected(bad):
    with pytest.raises(ValueError, match=r"p-value 1 is .*; p-values must be numbers in \[0, 1\]"):
        adjust_p_values([0.5, bad])


def test_correction_clause_names_the_family():
    assert str(Correction("holm", 66)) == "at 0.05 after Holm's correction over 66 comparisons"
    assert str(Correction("fdr_bh", 1, 0.01)) == "at 0.01 after the Benjamini-Hochberg correction over 1 comparison"
    assert str(Correction("none", 3)) == "at 0.05 without correction for 3 comparisons"
    assert Correction("holm", 4).to_dict() == {"method": "holm", "family_size": 4, "alpha": 0.05, "scope": "",
                                               "text": "at 0.05 after Holm's correction over 4 comparisons"}
    assert str(Correction("holm", 66, scope="of each metric")).endswith("over 66 comparisons of each metric")
    assert Correction("holm", 66).floor_note(1 / 2001) == ""  # 66 / 2001 < 0.05
    assert Correction("holm", 132).floor_note(1 / 2001).startswith("no test can reach 0.05 here")
    with pytest.raises(ValueError, match="alpha must be between 0 and 1"):
        Correction("holm", 4, alpha=5)
