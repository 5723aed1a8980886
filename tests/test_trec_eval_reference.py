"""Our per-topic values and means, printed with 4 decimals, equal trec_eval's own regression output."""

import re

import pytest

from rag_eval_adapters import evaluate, read_trec_qrels, read_trec_run

pytestmark = pytest.mark.reference

_CUT = re.compile(r"(P|recall|success|map_cut|ndcg_cut)_(\d+)$")
_BASE = {"P": "precision", "recall": "recall", "success": "hit_rate", "map_cut": "ap", "ndcg_cut": "ndcg"}
_PLAIN = {"map": "ap", "recip_rank": "mrr", "ndcg": "ndcg", "Rprec": "r_precision"}


def _ours(trec_name):
    match = _CUT.match(trec_name)
    if match:
        return f"{_BASE[match[1]]}@{match[2]}"
    return _PLAIN.get(trec_name)


def _read_output(path):
    values = {}
    for line in path.read_text().splitlines():
        measure, topic, value = line.split()
        values.setdefault(topic, {})[measure] = value
    return values


@pytest.mark.parametrize(
    "qrels_file, output_file, level",
    [("qrels.test", "out.test.aq", 1), ("qrels.rel_level", "out.test.aql", 2)],
)
def test_every_shared_measure_matches_trec_eval(reference_dir, qrels_file, output_file, level):
    expected = _read_output(reference_dir / output_file)
    names = sorted({name for topic in expected.values() for name in topic if _ours(name)})
    assert len(names) >= 40  # P_k, recall_k, success_k, map, map_cut_k, ndcg, ndcg_cut_k, recip_rank, Rprec
    report = evaluate(
        read_trec_qrels(reference_dir / qrels_file),
        read_trec_run(reference_dir / "results.test"),
        [_ours(name) for name in names],
        relevance_level=level,
    )
    mismatches = []
    for topic, measures in expected.items():
        ours = report.mean if topic == "all" else report.per_query[topic]
        for name in names:
            if f"{ours[_ours(name)]:.4f}" != measures[name]:
                mismatches.append((topic, name, measures[name], ours[_ours(name)]))
    assert mismatches == []
    assert set(report.per_query) == set(expected) - {"all"}


def test_counts_match_trec_eval(reference_dir):
    expected = _read_output(reference_dir / "out.test.aq")
    report = evaluate(
        read_trec_qrels(reference_dir / "qrels.test"), read_trec_run(reference_dir / "results.test"), ["ap"]
    )
    assert report.counts["scored"] == len(expected) - 1
    assert report.counts["missing_from_run"] == 0
