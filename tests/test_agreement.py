"""Agreement with people: the statistics against scipy and scikit-learn, the bootstrap, groups, clusters,
pairwise labels, position-swap consistency, the shipped RAGChecker labels and the meta-evaluation."""

from __future__ import annotations

import numpy as np
import pytest

from rag_eval_adapters.agreement import (
    RAGCHECKER_LABELS,
    AnswerScorer,
    PairwiseJudgement,
    accuracy,
    annotator_ceiling,
    answer_length,
    cohen_kappa,
    confusion_matrix,
    kendall_tau_b,
    load_ragchecker,
    measure_agreement,
    meta_evaluate,
    pairwise_differences,
    pearson,
    position_swap_consistency,
    ragchecker_path,
    spearman,
)

stats = pytest.importorskip("scipy.stats")
sk_metrics = pytest.importorskip("sklearn.metrics")


def _graded(seed: int, n: int, continuous: bool = False):
    rng = np.random.default_rng(seed)
    y = rng.integers(1, 6, size=n).astype(float)
    x = np.clip(y + rng.integers(-1, 2, size=n), 1, 5).astype(float)
    if continuous:
        x = x + rng.normal(0, 0.4, size=n)
    return x, y


def test_correlations_equal_scipy_with_ties():
    for seed in range(30):
        n = 3 + seed * 7
        x, y = _graded(seed, n, continuous=seed % 2 == 1)
        if np.ptp(x) == 0 or np.ptp(y) == 0:
            continue
        assert pearson(x, y) == pytest.approx(stats.pearsonr(x, y)[0], abs=1e-12)
        assert spearman(x, y) == pytest.approx(stats.spearmanr(x, y)[0], abs=1e-12)
        assert kendall_tau_b(x, y) == pytest.approx(stats.kendalltau(x, y, variant="b")[0], abs=1e-12)


def test_kappa_accuracy_and_confusion_equal_scikit_learn():
    for seed in range(20):
        x, y = _graded(seed, 10 + 5 * seed)
        assert cohen_kappa(x, y) == pytest.approx(sk_metrics.cohen_kappa_score(x, y), abs=1e-12)
        assert cohen_kappa(x, y, weights="quadratic") == pytest.approx(
            sk_metrics.cohen_kappa_score(x, y, weights="quadratic"), abs=1e-12)
        assert accuracy(x, y) == pytest.approx(sk_metrics.accuracy_score(y, x))
        scale = [1, 2, 3, 4, 5]
        # rows: the scorer's category, columns: the label's (scikit-learn puts the truth in rows)
        assert confusion_matrix(x, y, scale).tolist() == sk_metrics.confusion_matrix(y, x, labels=scale).T.tolist()


def test_undefined_statistics_are_none_not_nan():
    assert pearson([1, 1, 1], [1, 2, 3]) is None
    assert spearman([1, 2, 3], [2, 2, 2]) is None
    assert kendall_tau_b([1, 1], [1, 2]) is None
    a = measure_agreement([0.5] * 6, [1, 2, 3, 1, 2, 3], n_bootstrap=50)
    assert a["pearson"].value is None and a["pearson"].low is None
    assert a.to_dict()["overall"]["statistics"]["spearman"] == {"value": None, "low": None, "high": None}


def test_bootstrap_interval_matches_a_plain_resampling_loop():
    x, y = _graded(3, 150, continuous=True)
    a = measure_agreement(x, y, n_bootstrap=2000, seed=1)
    rng = np.random.default_rng(99)
    plain = {"pearson": [], "spearman": [], "kendall_tau_b": []}
    for _ in range(800):
        i = rng.integers(0, x.size, size=x.size)
        plain["pearson"].append(stats.pearsonr(x[i], y[i])[0])
        plain["spearman"].append(stats.spearmanr(x[i], y[i])[0])
        plain["kendall_tau_b"].append(stats.kendalltau(x[i], y[i])[0])
    for key, values in plain.items():
        low, high = np.quantile(values, [0.025, 0.975])
        assert a[key].low == pytest.approx(low, abs=0.02), key  # two Monte Carlo estimates of one quantile
        assert a[key].high == pytest.approx(high, abs=0.02), key
        assert a[key].value == pytest.approx({"pearson": pearson, "spearman": spearman,
                                              "kendall_tau_b": kendall_tau_b}[key](x, y), abs=1e-12)
    assert measure_agreement(x, y, n_bootstrap=200, seed=4) == measure_agreement(x, y, n_bootstrap=200, seed=4)


def test_clusters_resample_whole_clusters():
    x, y = _graded(5, 80, continuous=True)
    once = measure_agreement(x, y, n_bootstrap=500, seed=2)
    twice = np.repeat(x, 2), np.repeat(y, 2)
    clustered = measure_agreement(*twice, clusters=np.repeat(np.arange(80), 2), n_bootstrap=500, seed=2)
    naive = measure_agreement(*twice, n_bootstrap=500, seed=2)
    # Pearson is unchanged by doubling every item; resampling pairs keeps the interval, resampling rows narrows it
    assert clustered["pearson"].value == pytest.approx(once["pearson"].value, abs=1e-12)
    assert (clustered["pearson"].low, clustered["pearson"].high) == pytest.approx(
        (once["pearson"].low, once["pearson"].high), abs=1e-9)
    naive_width = naive["pearson"].high - naive["pearson"].low
    assert naive_width < 0.85 * (once["pearson"].high - once["pearson"].low)


def test_groups_get_their_own_statistics():
    x, y = _graded(7, 90)
    groups = ["a", "b", "c"] * 30
    a = measure_agreement(x, y, groups=groups, n_bootstrap=100)
    assert list(a.groups) == ["a", "b", "c"]
    for g in "abc":
        rows = [i for i, v in enumerate(groups) if v == g]
        sub = measure_agreement(x[rows], y[rows], n_bootstrap=0)
        assert a.groups[g].n == 30
        for key in ("pearson", "spearman", "kendall_tau_b", "accuracy", "kappa", "kappa_quadratic"):
            assert a.groups[g][key].value == pytest.approx(sub[key].value, abs=1e-12)
    assert a.overall.confusion == confusion_matrix(x, y).tolist()
    assert a.categories == [1.0, 2.0, 3.0, 4.0, 5.0]


def test_categories_only_when_scores_lie_on_the_scale():
    x, y = _graded(8, 40, continuous=True)
    a = measure_agreement(x, y, n_bootstrap=0)
    assert set(a.overall.estimates) == {"pearson", "spearman", "kendall_tau_b"} and a.categories is None
    with pytest.raises(ValueError, match=r"labels\[0\] is 2.5, not on the scale"):
        measure_agreement([1, 2], [2.5, 1], scale=[1, 2, 3])


def test_pairwise_preferences_compare_signs():
    scores = [0.3, -0.2, 0.0, 0.05, -0.4, 0.2]
    labels = [2, -1, 0, 0, 1, 1]
    a = measure_agreement(scores, labels, kind="pairwise", n_bootstrap=0)
    assert a.categories == [-1.0, 0.0, 1.0]
    # scorer signs: + - 0 + - +; label signs: + - 0 0 + +
    assert a.overall.confusion == [[1, 0, 1], [0, 1, 0], [0, 1, 2]]
    assert a["accuracy"].value == pytest.approx(4 / 6)
    margin = measure_agreement(scores, labels, kind="pairwise", tie_margin=0.1, n_bootstrap=0)
    assert margin["accuracy"].value == pytest.approx(5 / 6)
    with pytest.raises(ValueError, match=r"labels\[1\] is 3.0; a pairwise preference lies in -2..2"):
        measure_agreement([0.1, 0.2], [1, 3], kind="pairwise")


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"scores": [1, 2, 3], "labels": [1, 2]}, ValueError, "3 scores but 2 labels"),
        ({"scores": [1, float("nan")], "labels": [1, 2]}, ValueError, r"scores\[1\] is nan"),
        ({"scores": [1], "labels": [1]}, ValueError, "at least 2 labelled items"),
        ({"scores": [1, 2], "labels": [1, 2], "kind": "listwise"}, ValueError, "kind must be 'pointwise' or"),
        ({"scores": [1, 2], "labels": [1, 2], "groups": ["a"]}, ValueError, "1 groups for 2 items"),
        ({"scores": [1, 2], "labels": [1, 2], "n_bootstrap": -1}, ValueError, "n_bootstrap must be"),
        ({"scores": "12", "labels": [1, 2]}, TypeError, "scores must be a sequence of numbers"),
    ],
)
def test_bad_input_is_a_clear_error(kwargs, error, match):
    with pytest.raises(error, match=match):
        measure_agreement(**kwargs)


def test_position_swap_consistency_counts_flips():
    ab = [2, 1, -1, 0, 1, -2, 1, 0]
    ba = [-1, 1, 1, 0, 0, -1, -2, 1]
    s = position_swap_consistency(ab, ba, n_bootstrap=500)
    # consistent: pairs 0, 2, 3, 6; flips: 1 (second twice), 4 (tie once), 5 (first twice), 7 (tie once)
    assert (s.n, s.consistent, s.favours_first, s.favours_second, s.tie_once) == (8, 4, 1, 1, 2)
    assert s.flip_rate.value == 0.5 and s.flip_rate.low < 0.5 < s.flip_rate.high
    assert s.to_dict()["flip_rate"]["value"] == 0.5
    with pytest.raises(ValueError, match="ask each pair both ways"):
        position_swap_consistency([1, 2], [1])


def test_the_shipped_ragchecker_labels_and_their_license():
    judgements = load_ragchecker()
    assert len(judgements) == 560 and len({j.item_id for j in judgements}) == 280
    domains = {}
    for j in judgements:
        domains[j.group] = domains.get(j.group, 0) + 1
    assert len(domains) == 10 and set(domains.values()) == {56}
    assert {j.annotator for j in judgements} == {0, 1}
    assert all(set(j.labels) == set(RAGCHECKER_LABELS) for j in judgements)
    assert "Apache License" in ragchecker_path("LICENSE").read_text()
    assert "Amazon.com" in ragchecker_path("NOTICE").read_text()


def test_annotator_ceiling_is_the_readme_figure():
    ceiling = annotator_ceiling(load_ragchecker(), "overall", n_bootstrap=200)
    assert (round(100 * ceiling["pearson"].value, 1), round(100 * ceiling["spearman"].value, 1)) == (70.1, 68.9)
    assert ceiling.overall.n == 280 and len(ceiling.groups) == 10


def _judgements():
    rng = np.random.default_rng(0)
    out = []
    for i in range(40):
        long_first = i % 2 == 0
        a1 = "the answer is blue " + "filler " * (30 if long_first else 2)
        a2 = "the answer is red " + "filler " * (2 if long_first else 30)
        pref = int(rng.integers(-2, 3))
        for annotator in (0, 1):
            label = pref if annotator == 0 else int(np.clip(pref + rng.integers(-1, 2), -2, 2))
            out.append(PairwiseJudgement(str(i), "even" if i % 2 == 0 else "odd", f"q{i}", "the answer is red",
                                         (a1, a2), ("s1", "s2"), annotator, {"overall": label}))
    return out


def test_meta_evaluate_sets_each_scorer_against_each_label():
    judgements = _judgements()
    labels = {j.item_id: j.labels["overall"] for j in judgements if j.annotator == 0}

    def oracle(answers, references, queries):  # knows the first annotator's preference
        out = []
        for k in range(0, len(answers), 2):
            item = queries[k][1:]
            out += [0.0, float(labels[item])]
        return out

    m = meta_evaluate(judgements, {"oracle": oracle, "token_f1": AnswerScorer("token_f1")}, n_bootstrap=100, source="toy")
    assert list(m.results) == ["oracle", "token_f1", "answer_length", "reference_overlap"]
    assert m.baselines == ["answer_length", "reference_overlap"]
    assert (m.n_judgements, m.n_items, m.labels) == (80, 40, ["overall"])
    diff = pairwise_differences(judgements, oracle)
    assert diff.tolist() == [labels[j.item_id] for j in judgements]
    direct = measure_agreement(diff, [j.labels["overall"] for j in judgements], kind="pairwise",
                               groups=[j.group for j in judgements], clusters=[j.item_id for j in judgements],
                               scorer="oracle", n_bootstrap=100)
    assert m.results["oracle"]["overall"] == direct
    lengths = pairwise_differences(judgements, answer_length)
    assert set(lengths.tolist()) == {-28.0, 28.0}
    assert set(m.results["oracle"]["overall"].groups) == {"even", "odd"}
    assert m.to_dict()["scorers"]["token_f1"]["overall"]["kind"] == "pairwise"
    with pytest.raises(ValueError, match="unknown label 'fluency'; the judgements have overall"):
        meta_evaluate(judgements, {"oracle": oracle}, labels=["fluency"])


def test_a_scorer_returning_nan_or_the_wrong_count_is_named():
    judgements = _judgements()
    with pytest.raises(ValueError, match="returned 3 scores for 80 answers"):
        pairwise_differences(judgements, lambda a, r, q: [0.0, 1.0, 2.0])
    with pytest.raises(ValueError, match="returned nan for answer 2 of question '0'"):
        pairwise_differences(judgements, lambda a, r, q: [0.0, float("nan")] + [0.0] * 78)
