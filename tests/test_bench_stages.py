"""The benchmark run in stages: typed, frozen hand-offs, and the judged share as the registry's judged@k."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from bench_helpers import HashEmbedder, case_records, documents  # noqa: E402

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


# ------------------------------------------------------------------------- the verdict and the printed table


def _results(means_by_name):
    from rag_eval_adapters import Report
    from rag_eval_adapters.bench import ConfigResult

    out = []
    for name, values in means_by_name.items():
        report = Report(["ndcg@10"], [f"q{i}" for i in range(len(values))], [[v] for v in values], {}, {})
        out.append(ConfigResult(name, "c", name, None, {}, report))
    return out


def test_a_tie_is_a_tie_never_a_win_by_plus_zero():
    from rag_eval_adapters.bench.scoring import verdict

    base = [0.1, 0.5, 0.9, 0.3, 0.7, 0.2]
    nudged = [v + 1e-5 for v in base]  # the same to three decimals: before, "a wins ... +0.000 over b"
    lines = verdict(_results({"a": nudged, "b": base, "c": [0.0] * 6}), "ndcg@10", permutations=50)
    assert "+0.000" not in " ".join(lines)
    assert lines[0].startswith("On all questions, a ties for first with b at ndcg@10 = 0.450; it beats the last, c")


def test_the_verdict_is_a_short_list_with_one_line_on_how_it_was_tested():
    from rag_eval_adapters.bench.scoring import verdict

    lines = verdict(_results({"a": [1.0, 0.9, 0.8, 1.0], "b": [0.5, 0.4, 0.6, 0.2], "c": [0.0, 0.1, 0.0, 0.1]}),
                    "ndcg@10", permutations=50)
    assert len(lines) == 2 and lines[0].startswith("On all questions, a wins: ndcg@10 = 0.925, +0.500 over b (")
    assert "paired randomization p" not in lines[0] and len(lines[0]) < 240, lines[0]
    assert lines[1].startswith("How sure: ") and "Holm's correction over 3 comparisons" in lines[1]


def test_the_printed_table_never_cuts_a_configuration_name():
    import io

    from rag_eval_adapters.bench.console import print_summary

    class Named(TiedRetriever):
        name = "tied-word-overlap-with-a-long-name"

    result = run_bench(documents(), case_records(), chunkings=["32:8"], retrievers=[Named()], rerankers=["lexical"],
                       settings=BenchSettings(ks=(1, 3), e2e_limit=2, permutations=50), embedder=HashEmbedder())
    long_name = result.results[1].name
    assert long_name == "s32o8/tied-word-overlap-with-a-long-name+lexical"
    printed = io.StringIO()
    for width in (60, 120):  # narrower than the table: other columns wrap, the names stay whole
        print_summary(result, printed, width=width)
        table = printed.getvalue().split("hit rate and MRR")[0]  # the table, not the verdict below it
        assert f"│ {long_name} " in table and f"│ {result.results[0].name} " in table, table
        assert "…" not in table, table  # nor a header word, nor a number


# ------------------------------------------------------------------------- the plan's time estimate


class _Clock:
    """A fake clock the embedder below advances: 0.02 s a character embedded (no wall-clock in the test)."""

    def __init__(self):
        self.now = 0.0

    def perf_counter(self):
        return self.now


def test_the_plan_estimates_the_embedding_time_from_a_measured_rate(tmp_path, monkeypatch):
    import types

    from rag_eval_adapters.bench import workload

    clock = _Clock()
    monkeypatch.setattr(workload, "time", types.SimpleNamespace(perf_counter=clock.perf_counter))

    class Metered(HashEmbedder):
        def _vectors(self, texts):
            clock.now += 0.02 * sum(map(len, texts))
            return super()._vectors(texts)

    embedder, lines = Metered(), []
    result = run_bench(documents(), case_records(), chunkings=["32:8"], retrievers=["e5"], rerankers=[],
                       embedder=embedder, cache_dir=tmp_path / "c", log=lines.append,
                       settings=BenchSettings(ks=(1, 3), e2e_limit=0, permutations=50))
    passages = list(dict.fromkeys(c.text for c in result.chunks["s32o8"]))
    queries = list(dict.fromkeys(c.query for c in result.cases))
    probed = passages[1:9]  # the first text is the warm-up (a model's first call loads it): timed apart
    left = 0.02 * (sum(map(len, passages)) - sum(map(len, passages[:9])) + sum(map(len, queries)))
    assert f"; about {left:.0f} s to embed the rest at the rate measured here (8 chunk texts in " \
           f"{0.02 * sum(map(len, probed)):.2f} s; the time grows with chunk length)" in lines[0], lines[0]
    assert embedder.embedded == len(passages) + len(queries)  # the timed texts are not embedded again
    shared = result.timings["shared_s"]
    assert shared["embed chunks of s32o8"] == pytest.approx(0.02 * sum(map(len, passages)), abs=1e-3)
    lines.clear()  # a warm run: nothing to embed, nothing to estimate
    run_bench(documents(), case_records(), chunkings=["32:8"], retrievers=["e5"], rerankers=[], embedder=Metered(),
              cache_dir=tmp_path / "c", log=lines.append, settings=BenchSettings(ks=(1, 3), e2e_limit=0))
    assert "already cached" in lines[0] and "to embed the rest" not in lines[0]


# ------------------------------------------------------------------------- Ctrl-C during the embedding


def test_a_models_first_call_that_loads_it_is_kept_out_of_the_measured_rate(tmp_path, monkeypatch):
    import types

    from rag_eval_adapters.bench import workload

    clock = _Clock()
    monkeypatch.setattr(workload, "time", types.SimpleNamespace(perf_counter=clock.perf_counter))

    class Loading(HashEmbedder):
        """0.02 s a character, and 30 s more on the first call (loading the model)."""

        loaded = False

        def _vectors(self, texts):
            clock.now += 0.02 * sum(map(len, texts)) + (0 if self.loaded else 30.0)
            self.loaded = True
            return super()._vectors(texts)

    lines = []
    result = run_bench(documents(), case_records(), chunkings=["32:8"], retrievers=["e5"], rerankers=[],
                       embedder=Loading(), cache_dir=tmp_path / "c", log=lines.append,
                       settings=BenchSettings(ks=(1, 3), e2e_limit=0, permutations=50))
    passages = list(dict.fromkeys(c.text for c in result.chunks["s32o8"]))
    queries = list(dict.fromkeys(c.query for c in result.cases))
    left = 0.02 * (sum(map(len, passages)) - sum(map(len, passages[:9])) + sum(map(len, queries)))
    assert f"; about {left:.0f} s to embed the rest at the rate measured here (8 chunk texts in " \
           f"{0.02 * sum(map(len, passages[1:9])):.2f} s;" in lines[0], lines[0]  # the 30 s load is not a rate
    assert result.timings["shared_s"]["embed chunks of s32o8"] == pytest.approx(
        30.0 + 0.02 * sum(map(len, passages)), abs=1e-3)  # but it is part of the time spent


def test_ctrl_c_is_said_at_once_and_obeyed_at_the_next_batch_the_finished_batches_kept(tmp_path, monkeypatch):
    import os
    import signal
    import types

    from rag_eval_adapters.bench import CachedEmbedder, workload

    clock = _Clock()
    monkeypatch.setattr(workload, "time", types.SimpleNamespace(perf_counter=clock.perf_counter))
    calls = []

    class Interrupted(HashEmbedder):
        """1 s a text (batches of 2 s: 2 texts, at least 4); a Ctrl-C arrives during its third passage call,
        the first batch after the plan's probe (its warm-up text, then 8 timed texts)."""

        def embed_passages(self, texts):
            calls.append(list(texts))
            clock.now += len(texts)
            if len(calls) == 3:
                os.kill(os.getpid(), signal.SIGINT)
            return self._vectors(list(texts))

    lines = []
    with pytest.raises(KeyboardInterrupt):
        run_bench(documents(), case_records(), chunkings=["16:0"], retrievers=["e5"], rerankers=[],
                  embedder=Interrupted(), cache_dir=tmp_path / "c", log=lines.append,
                  settings=BenchSettings(ks=(1, 3), e2e_limit=0))
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # put back
    assert [len(c) for c in calls] == [1, 8, 3]  # the probe, then one batch of 4 (3 of them not probed): stopped
    stopping = next(i for i, line in enumerate(lines) if line.startswith("stopping after the current batch"))
    assert lines[stopping + 1] == ("stopped: embed chunks of s16o0: 12 of 16 texts embedded and kept in the "
                                   "cache; a new run goes on from there")
    kept = CachedEmbedder(HashEmbedder(), tmp_path / "c")  # the same cache file, read afresh
    finished = [t for batch in calls for t in batch]
    assert kept.count_missing(finished) == 0
    texts = list(dict.fromkeys(c.text for c in run_bench(
        documents(), case_records(), chunkings=["16:0"], retrievers=["bm25"], rerankers=[],
        settings=BenchSettings(ks=(1, 3), e2e_limit=0)).chunks["s16o0"]))
    assert len(texts) == 16 and kept.count_missing([t for t in texts if t not in finished]) == 4
