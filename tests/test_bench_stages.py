"""The benchmark run in stages: typed, frozen hand-offs, and the judged share as the registry's judged@k."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from bench_helpers import case_records, documents  # noqa: E402

from rag_eval_adapters import evaluate  # noqa: E402
from rag_eval_adapters.bench import BenchSettings, run_bench  # noqa: E402


class TiedRetriever:
    """Chunks listed by the words they share with the question, best first, but every score 1.0: the run's
    order is not trec_eval's tie order (ties by id descending)."""

    name = "tied"

    def index(self, chunks):
        words = {c.chunk_id: set(c.text.lower().split()) for c in chunks}

        class _Index:
            def search(self, queries, k):
                return [[(d, 1.0) for d in sorted(words, key=lambda d: (-len(words[d] & set(q.lower().split())),
                                                                          d))[:k]] for q in queries]

        return _Index()


def _tied_run(**kwargs):
    return run_bench(documents(), case_records(), chunkings=["32:8"], retrievers=[TiedRetriever()], rerankers=[],
                     settings=BenchSettings(ks=(1, 3), e2e_limit=0, permutations=50), **kwargs)


def test_the_judged_share_is_the_registry_judged_at_k_with_its_tie_rule():
    result = _tied_run()
    conf = result.results[0]
    qrels = result.qrels["32:8" if "32:8" in result.qrels else next(iter(result.qrels))]
    scores = {q: dict(hits) for q, hits in conf.run.items() if q in qrels}
    registry = evaluate(qrels, scores, ["judged@1", "judged@3"]).per_query
    for key in ("judged@1", "judged@3"):
        expected = sum(v[key] for v in registry.values()) / len(conf.run)
        assert conf.judged[key] == pytest.approx(expected)
    # the run lists tied chunks by id ascending; judged@k ranks ties by id descending (trec_eval's rule), so the
    # first listed chunk is not the one judged@1 looks at: the old share (run order) differs
    by_run_order = sum(hits[0][0] in qrels.get(q, {}) for q, hits in conf.run.items()) / len(conf.run)
    by_tie_rule = sum(max(d for d, _ in hits) in qrels.get(q, {}) for q, hits in conf.run.items()) / len(conf.run)
    assert by_run_order != by_tie_rule
    assert conf.judged["judged@1"] == pytest.approx(by_tie_rule)


def test_the_stages_hand_on_frozen_values():
    result = _tied_run()
    conf = result.results[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        conf.judged = {}  # type: ignore[misc]
    assert conf.report.query_ids and conf.by_type is not None and set(conf.judged) == {"judged@1", "judged@3"}
