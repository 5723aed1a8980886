"""Issue 21, items 12-21: the benchmark loses nothing and hides nothing (cache, progress, timings, TREC ids,
the report folder, repeated chunks, undecodable files, Markdown escaping, charts, verdict and CLI wording)."""

from __future__ import annotations

import io
import json
import re
import sys
import time
from pathlib import Path
from urllib.parse import unquote

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from bench_helpers import TOPICS, HashEmbedder, case_records, documents  # noqa: E402

from rag_eval_adapters import evaluate, read_trec_qrels, read_trec_run  # noqa: E402
from rag_eval_adapters.answers import CachedEmbedder  # noqa: E402
from rag_eval_adapters.bench import BenchSettings, Chunk, ConfigResult, Document, FunctionChunking, run_bench  # noqa: E402
from rag_eval_adapters.bench.charts import MAX_SERIES, by_type_figure, vs_k_figure  # noqa: E402
from rag_eval_adapters.bench.console import print_summary  # noqa: E402
from rag_eval_adapters.bench.scoring import verdict  # noqa: E402
from rag_eval_adapters.cli import main  # noqa: E402
from rag_eval_adapters.modelcalls import SqliteCache  # noqa: E402

pytest.importorskip("bm25s")
pytest.importorskip("llama_index.core")

FAST = BenchSettings(ks=(1, 3, 5, 10), permutations=50, e2e_limit=0)


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = main([str(a) for a in argv], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def sentences(text):
    """A chunking function: one chunk a sentence (verbatim pieces of the text)."""
    return re.findall(r"[^.]+\.?", text)


@pytest.fixture()
def inputs(bench_inputs):
    return bench_inputs


class InterruptingEmbedder(HashEmbedder):
    """Embeds, but the user presses Ctrl-C once ``after`` texts have been embedded."""

    def __init__(self, after):
        super().__init__()
        self.after = after

    def _vectors(self, texts):
        if self.embedded + len(texts) > self.after:
            raise KeyboardInterrupt
        return super()._vectors(texts)


class SlowEmbedder(HashEmbedder):
    """Takes ``pause`` seconds a call for passages (chunk texts), as a real model would."""

    def __init__(self, pause):
        super().__init__()
        self.pause = pause

    def embed_passages(self, texts):
        time.sleep(self.pause)
        return super().embed_passages(texts)


def many_documents(n=90):
    return documents() + [{"doc_id": f"filler{i:03d}.txt", "text": f"Filler note number {i} holds nothing of use."}
                          for i in range(n)]


# ------------------------------------------------------------------------- 12: Ctrl-C keeps the vectors


def test_an_interrupted_embedding_keeps_every_finished_batch(tmp_path):
    path = tmp_path / "vectors.sqlite"
    texts = [f"text number {i}" for i in range(200)]
    with pytest.raises(KeyboardInterrupt):
        CachedEmbedder(InterruptingEmbedder(after=100), str(path), batch_size=64).embed_passages(texts)
    assert len(SqliteCache(path)) == 64  # the first batch was stored before the interrupt
    again = CachedEmbedder(HashEmbedder(), str(path), batch_size=64)
    again.embed_passages(texts)
    assert (again.hits, again.misses) == (64, 136)


def test_ctrl_c_during_bench_leaves_the_embedded_chunks_in_the_cache(tmp_path):
    cache = tmp_path / "cache"
    with pytest.raises(KeyboardInterrupt):
        run_bench(many_documents(), case_records(), chunkings=[FunctionChunking("sent", sentences)],
                  retrievers=["e5"], rerankers=[], settings=FAST, embedder=InterruptingEmbedder(after=70),
                  cache_dir=cache)
    assert len(SqliteCache(cache / "embeddings.sqlite")) == 64
    second = HashEmbedder()
    result = run_bench(many_documents(), case_records(), chunkings=[FunctionChunking("sent", sentences)],
                       retrievers=["e5"], rerankers=[], settings=FAST, embedder=second, cache_dir=cache)
    chunk_texts = {c.text for c in result.chunks["sent"]}
    assert second.embedded == len(chunk_texts) - 64 + len(result.cases)  # the re-run pays only for the rest


# ------------------------------------------------------------------------- 13: progress lines and a plan


def test_the_plan_and_plain_progress_lines_are_logged(tmp_path):
    lines = []
    result = run_bench(documents(), case_records(), chunkings=[FunctionChunking("sent", sentences)],
                       retrievers=["bm25", "e5"], rerankers=["lexical"], settings=FAST, embedder=HashEmbedder(),
                       cache_dir=tmp_path / "c", log=lines.append)
    n_chunks = len({c.text for c in result.chunks["sent"]})
    n_queries = len({c.query for c in result.cases})
    assert lines[0].startswith("plan: 8 questions, 1 chunking")
    assert f"to embed for dense retrieval: {n_chunks + n_queries} texts ({n_chunks} chunk texts, 8 questions), " \
           "0 of them already cached" in lines[0]
    assert "16 reranker calls" in lines[0]  # 8 questions x 2 retrieval configurations x 1 reranker
    assert any(line.startswith("sent/bm25: retrieved for 8 questions") for line in lines)
    assert any(line.startswith("sent/e5+lexical: reranked") for line in lines)
    assert any(line.startswith("embed chunks of sent: ") for line in lines)
    lines.clear()
    run_bench(documents(), case_records(), chunkings=[FunctionChunking("sent", sentences)], retrievers=["e5"],
              rerankers=[], settings=FAST, embedder=HashEmbedder(), cache_dir=tmp_path / "c", log=lines.append)
    assert f"{n_chunks + n_queries} of them already cached" in lines[0]


def test_bench_prints_progress_lines_when_stderr_is_not_a_terminal(inputs, tmp_path):
    docs, testset = inputs
    code, _, err = run("bench", "--documents", docs, "--testset", testset, "--chunking", "32:8",
                       "--retriever", "bm25", "--skip-e2e", "--permutations", "50", "--output", tmp_path / "r")
    assert code == 0, err
    assert "rag-eval: plan: 8 questions, 1 chunking (" in err
    assert "rag-eval: s32o8/bm25: retrieved for 8 questions in" in err


# ------------------------------------------------------------------------- 14: shared work timed apart


def test_embedding_the_chunks_is_timed_once_apart_from_the_configurations():
    result = run_bench(documents(), case_records(), chunkings=[FunctionChunking("sent", sentences)],
                       retrievers=["e5", "hybrid"], rerankers=[], settings=FAST, embedder=SlowEmbedder(0.6))
    shared = result.timings["shared_s"]
    assert shared["embed chunks of sent"] >= 0.6
    per_config = result.timings["per_configuration_s"]
    assert set(per_config) == {"sent/e5", "sent/hybrid"}
    assert all(seconds < 0.6 for seconds in per_config.values()), per_config


# ------------------------------------------------------------------------- 15: TREC ids round-trip


def test_a_query_id_with_white_space_is_refused_with_the_reason(inputs, tmp_path):
    records = case_records()
    records[0]["query_id"] = "q 0"
    with pytest.raises(ValueError, match=r"query id 'q 0' is empty or holds white space.*TREC"):
        run_bench(documents(), records, chunkings=[FunctionChunking("sent", sentences)], retrievers=["bm25"],
                  rerankers=[], settings=FAST)
    docs, _ = inputs
    testset = tmp_path / "spaced.jsonl"
    testset.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    code, _, err = run("bench", "--documents", docs, "--testset", testset, "--retriever", "bm25", "--skip-e2e",
                       "--output", tmp_path / "r")
    assert code == 2 and "'q 0'" in err and "white space" in err


def test_documents_whose_names_differ_only_by_white_space_keep_their_own_chunk_ids(tmp_path):
    text = TOPICS["volcano"]
    docs = [{"doc_id": "a b.txt", "text": text}, {"doc_id": "a_b.txt", "text": text}]
    start = text.index("The eruption")
    records = [{"query_id": "q1", "query": "what buried Pompeii", "query_type": "literal", "answer": "Vesuvius",
                "evidence_spans": [{"doc_id": "a b.txt", "start": start, "end": start + 20}]}]
    result = run_bench(docs, records, chunkings=[FunctionChunking("sent", sentences)], retrievers=["bm25"],
                       rerankers=[], settings=FAST, output_dir=tmp_path / "r")
    chunks = result.chunks["sent"]
    ids = [c.chunk_id for c in chunks]
    assert len(ids) == len(set(ids)) == 8
    assert all(unquote(c.chunk_id).startswith(c.doc_id + "#sent#") for c in chunks)
    qrels = read_trec_qrels(tmp_path / "r" / "qrels" / "sent.qrels")
    assert qrels == result.qrels["sent"] and all(d.startswith("a%20b.txt#") for d in qrels["q1"])
    rescored = evaluate(qrels, read_trec_run(tmp_path / "r" / "runs" / "sent__bm25.trec"), ["ndcg@10"])
    assert rescored.mean["ndcg@10"] == result.result("sent/bm25").report.mean["ndcg@10"]


def test_a_chunking_whose_chunks_share_an_id_is_refused():
    class Colliding:
        name = "same"

        def split(self, docs):
            return [Chunk("x", d.doc_id, d.text, 0, len(d.text)) for d in docs]

    with pytest.raises(ValueError, match="two chunks share the id 'x'"):
        run_bench(documents(), case_records(), chunkings=[Colliding()], retrievers=["bm25"], rerankers=[],
                  settings=FAST)


# ------------------------------------------------------------------------- 16: output inside the documents


def test_a_report_folder_inside_the_documents_folder_is_refused(inputs):
    docs, testset = inputs
    code, _, err = run("bench", "--documents", docs, "--testset", testset, "--retriever", "bm25", "--skip-e2e",
                       "--output", docs / "report")
    assert code == 2 and "inside the documents folder" in err
    assert not (docs / "report").exists()
    with pytest.raises(ValueError, match="inside the documents folder"):
        run_bench(docs, testset, chunkings=[FunctionChunking("sent", sentences)], retrievers=["bm25"],
                  rerankers=[], settings=FAST, output_dir=docs)


# ------------------------------------------------------------------------- 17: repeated chunks located in order


def test_identical_consecutive_chunks_get_one_copy_each():
    paragraph = "The barn owl has a heart-shaped face. "
    text = paragraph * 3
    chunking = FunctionChunking("para", lambda t: [paragraph.strip()] * 3)
    chunks = chunking.split([Document("owl.txt", text)])
    assert [c.start for c in chunks] == [0, len(paragraph), 2 * len(paragraph)]
    start = 2 * len(paragraph) + 4  # evidence in the third copy
    records = [{"query_id": "q1", "query": "barn owl face", "query_type": "literal", "answer": "heart-shaped",
                "evidence_spans": [{"doc_id": "owl.txt", "start": start, "end": start + 8}]}]
    result = run_bench([{"doc_id": "owl.txt", "text": text}], records, chunkings=[chunking], retrievers=["bm25"],
                       rerankers=[], settings=FAST)
    assert result.qrels["para"] == {"q1": {"owl.txt#para#2": 100}}


def test_overlapping_and_repeated_pieces_of_a_langchain_splitter_without_start_index():
    from langchain_text_splitters import CharacterTextSplitter

    from rag_eval_adapters.bench.chunking import as_chunking
    from rag_eval_adapters.langchain.chunking import text_splitter_chunking

    text = "alpha beta gamma delta " * 6
    for overlap in (0, 6):  # identical consecutive pieces, then overlapping ones; no add_start_index
        splitter = CharacterTextSplitter(separator=" ", chunk_size=23, chunk_overlap=overlap)
        chunks = as_chunking(text_splitter_chunking(splitter, name="lc")).split([Document("d", text)])
        assert all(text[c.start:c.end] == c.text for c in chunks)
        starts = [c.start for c in chunks]
        assert starts == sorted(set(starts)) and len(starts) >= 6, (overlap, starts)  # each copy its own place
        assert chunks[-1].end == len(text.rstrip())


# ------------------------------------------------------------------------- 18: undecodable documents


def test_a_document_that_is_not_utf8_is_named_in_the_error(inputs, tmp_path):
    docs, testset = inputs
    (docs / "caf\u00e9.txt").write_bytes("Caf\u00e9 au lait.".encode("latin-1"))
    with pytest.raises(ValueError, match=r"caf\u00e9\.txt: not UTF-8"):
        run_bench(docs, testset, chunkings=[FunctionChunking("sent", sentences)], retrievers=["bm25"],
                  rerankers=[], settings=FAST)
    code, _, err = run("bench", "--documents", docs, "--testset", testset, "--retriever", "bm25", "--skip-e2e",
                       "--output", tmp_path / "r")
    assert code == 2 and "caf\u00e9.txt" in err and "UTF-8" in err


# ------------------------------------------------------------------------- 19: escaped Markdown


HOSTILE = ("![tracker](http://evil.example/a.png) [click](javascript:alert(1)) <img src=x onerror=alert(1)> "
           "<!-- unclosed | pipe *bold* `code`")


def _html(markdown):
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table").render(markdown)


def test_report_md_shows_hostile_texts_and_ids_as_text(tmp_path):
    text = TOPICS["owls"] + " " + HOSTILE
    start = text.index("Owls hunt")
    records = [{"query_id": "q<img/src=x/onerror=alert(2)>", "query": "owls at night " + HOSTILE,
                "query_type": "literal", "answer": "by hearing",
                "evidence_spans": [{"doc_id": "<b>owls</b>.md", "start": start, "end": start + 30}]},
               {"query_id": "q2", "query": "unrelated question about rivers", "query_type": "literal",
                "answer": "none", "evidence_spans": [{"doc_id": "<b>owls</b>.md", "start": len(text) - 20,
                                                      "end": len(text) - 5}]}]
    run_bench([{"doc_id": "<b>owls</b>.md", "text": text}], records, chunkings=[FunctionChunking("sent", sentences)],
              retrievers=["bm25"], rerankers=["lexical"], settings=FAST, output_dir=tmp_path / "r")
    markdown = (tmp_path / "r" / "report.md").read_text(encoding="utf-8")
    assert "onerror" in markdown and "tracker" in markdown  # the texts are there ...
    html = _html(markdown)
    for raw in ("<img", "<a ", "href=", "<!--", "<b>", "<em>", "<code>"):  # ... as text only
        assert raw not in html, raw
    assert "&lt;img src=x onerror=alert(1)&gt;" in html


def test_evaluate_markdown_escapes_query_ids(tmp_path):
    qid = "<b>x</b><script>alert(1)</script>"
    (tmp_path / "q.txt").write_text(f"{qid} 0 d1 1\n", encoding="utf-8")
    (tmp_path / "r.txt").write_text(f"{qid} Q0 d1 1 1.0 t\n", encoding="utf-8")
    code, out, err = run("evaluate", "--qrels", tmp_path / "q.txt", "--run", tmp_path / "r.txt", "-m", "mrr",
                         "--per-query", "--format", "markdown")
    assert code == 0, err
    html = _html(out)
    assert "<script>" not in html and "<b>" not in html
    assert "&lt;b&gt;x&lt;/b&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in html
    from rag_eval_adapters.reports import render_evaluation, render_groups

    report = evaluate({qid: {"d1": 1}}, {qid: {"d1": 1.0}}, ["mrr"]).with_attributes({qid: {"t": "<i>g</i>"}})
    html = _html(render_evaluation(report, "markdown", run_name="<b>run</b>", per_query=True, sort_by="mrr"))
    assert "<b>" not in html and "<script>" not in html and "&lt;b&gt;run&lt;/b&gt;" in html
    html = _html(render_groups(report.by("t", n_bootstrap=10), "markdown"))
    assert "<i>" not in html and "&lt;i&gt;g&lt;/i&gt;" in html


# ------------------------------------------------------------------------- 20: readable charts


def _styles(ax):
    return [(line.get_color(), line.get_linestyle(), line.get_marker()) for line in ax.get_lines()]


def _legends_outside(fig):
    fig.canvas.draw()
    legends = fig.legends + [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
    assert legends
    for legend in legends:
        box = legend.get_window_extent()
        for ax in fig.axes:
            if ax.get_visible():
                assert not box.overlaps(ax.get_window_extent()), "a legend covers a plot"


def _nothing_cut_off(fig):
    """Every legend and everything every panel draws (title, tick labels, axis labels) lies inside the figure
    (saved without a tight box, as plot_vs_k saves it, nothing is cut off)."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    boxes = [(legend.get_window_extent(renderer), "a legend") for legend in fig.legends]
    boxes += [(ax.get_tightbbox(renderer), ax.get_title()) for ax in fig.axes if ax.get_visible()]
    for box, what in boxes:
        assert -1 <= box.x0 and box.x1 <= fig.bbox.x1 + 1 and -1 <= box.y0 and box.y1 <= fig.bbox.y1 + 1, \
            f"cut off: {what!r} at {box} in a figure of {fig.bbox}"


def _bench_with(n_chunkings, tmp_path):
    chunkings = [FunctionChunking(f"c{i}", sentences) for i in range(n_chunkings)]
    return run_bench(documents(), case_records(), chunkings=chunkings, retrievers=["bm25", "e5", "hybrid"],
                     rerankers=["lexical"], settings=FAST, embedder=HashEmbedder(), cache_dir=tmp_path / "c")


def test_every_line_has_its_own_style_and_legends_sit_outside(tmp_path):
    import matplotlib.pyplot as plt

    bench = _bench_with(1, tmp_path)  # 6 configurations: one line each per panel
    fig = vs_k_figure(bench)
    for ax in fig.axes:
        if ax.get_visible():
            styles = _styles(ax)
            assert len(styles) == 6 and len(set(styles)) == 6
    _legends_outside(fig)
    _nothing_cut_off(fig)
    plt.close(fig)
    fig = by_type_figure(bench)
    _legends_outside(fig)
    plt.close(fig)


def test_many_configurations_make_small_multiples(tmp_path):
    import matplotlib.pyplot as plt

    bench = _bench_with(2, tmp_path)  # 12 configurations
    assert len(bench.results) > MAX_SERIES
    fig = vs_k_figure(bench)
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert sorted(ax.get_title() for ax in panels) == sorted(r.name for r in bench.results)
    for ax in panels:
        styles = _styles(ax)
        assert len(styles) <= MAX_SERIES and len(set(styles)) == len(styles)
    _legends_outside(fig)
    _nothing_cut_off(fig)
    plt.close(fig)
    bench.output_dir = None
    from rag_eval_adapters.bench.charts import plot_vs_k

    assert plot_vs_k(bench, tmp_path / "k.png").stat().st_size > 0


# ------------------------------------------------------------------------- 21: wording and refusals


def test_the_verdict_names_every_configuration_tied_for_last():
    qrels = {f"q{i}": {"good": 1} for i in range(6)}
    runs = {"best": {q: {"good": 2.0, "bad": 1.0} for q in qrels},
            "middle": {q: ({"good": 2.0, "bad": 1.0} if q < "q3" else {"good": 1.0, "bad": 2.0}) for q in qrels},
            "low-one": {q: {"good": 1.0, "bad": 2.0, "worse": 3.0} for q in qrels},
            "low-two": {q: {"good": 1.0, "bad": 2.0, "worse": 3.0} for q in qrels}}
    results = [ConfigResult(name, "c", name, None, {}, evaluate(qrels, run, ["ndcg@10"])) for name, run in runs.items()]
    line = verdict(results, "ndcg@10", permutations=50)[0]
    assert "best wins" in line
    assert "2 configurations tie for last" in line and "low-one" in line and "low-two" in line


def test_a_report_folder_holding_a_report_needs_force(inputs, tmp_path):
    docs, testset = inputs
    out = tmp_path / "r"
    argv = ["bench", "--documents", docs, "--testset", testset, "--chunking", "32:8", "--retriever", "bm25",
            "--skip-e2e", "--permutations", "50", "--output", out]
    assert run(*argv)[0] == 0
    stale = out / "runs" / "old__config.trec"
    stale.write_text("q1 Q0 x 1 1.0 old\n")
    code, _, err = run(*argv)
    assert code == 2 and "already holds a report" in err and "--force" in err
    assert stale.exists()
    code, _, err = run(*argv, "--force")
    assert code == 0 and "will be replaced" in err
    assert not stale.exists()  # no run of the earlier report is left beside the new ones


def test_an_unknown_output_extension_is_refused(tmp_path):
    (tmp_path / "q.txt").write_text("q1 0 d1 1\n")
    (tmp_path / "r.txt").write_text("q1 Q0 d1 1 1.0 t\n")
    code, _, err = run("evaluate", "--qrels", tmp_path / "q.txt", "--run", tmp_path / "r.txt", "-m", "mrr",
                       "-o", tmp_path / "out.xlsx")
    assert code == 2 and "unknown extension '.xlsx'" in err
    assert not (tmp_path / "out.xlsx").exists()
    code, _, err = run("evaluate", "--qrels", tmp_path / "q.txt", "--run", tmp_path / "r.txt", "-m", "mrr",
                       "-o", tmp_path / "out.txt")
    assert code == 0 and "mrr" in (tmp_path / "out.txt").read_text()


def test_a_bad_chunking_leaves_no_folder_behind(inputs, tmp_path):
    docs, testset = inputs
    out = tmp_path / "r"
    with pytest.raises(ValueError, match="SIZE:OVERLAP"):
        run_bench(docs, testset, chunkings=["nonsense"], retrievers=["bm25"], rerankers=[],
                  embedder=HashEmbedder(), output_dir=out)
    assert not out.exists()
    code, _, err = run("bench", "--documents", docs, "--testset", testset, "--chunking", "nonsense",
                       "--retriever", "bm25", "--output", out)
    assert code == 2 and "SIZE:OVERLAP" in err
    assert not out.exists()


def test_the_legend_mentions_answers_only_when_answers_were_scored():
    common = dict(chunkings=[FunctionChunking("sent", sentences)], retrievers=["bm25"], rerankers=[],
                  embedder=HashEmbedder())
    printed = io.StringIO()
    print_summary(run_bench(documents(), case_records(), settings=FAST, **common), printed)
    assert "token F1" not in printed.getvalue() and "nDCG: graded" in printed.getvalue()
    printed = io.StringIO()
    print_summary(run_bench(documents(), case_records(), settings=BenchSettings(permutations=50, e2e_limit=3),
                            **common), printed)
    assert "Answers: token F1" in printed.getvalue()


def test_one_failed_query_is_one_query(tmp_path):
    (tmp_path / "q.jsonl").write_text('{"query_id": "q1", "expected_ids": ["d1"]}\n'
                                      '{"query_id": "q2", "expected_ids": []}\n')
    (tmp_path / "r.jsonl").write_text('{"query_id": "q1", "retrieved_ids": ["d1"]}\n'
                                      '{"query_id": "q2", "retrieved_ids": ["d1"]}\n')
    code, out, err = run("evaluate", "--qrels", tmp_path / "q.jsonl", "--run", tmp_path / "r.jsonl", "-m", "mrr",
                         "--allow-errors")
    assert code == 0, err
    assert "1 query failed; use --per-query to see it" in out and "1 queries" not in out


def test_configuration_names_too_long_for_the_legend_column_still_make_a_whole_chart(tmp_path):
    from PIL import Image

    from rag_eval_adapters.bench.charts import plot_vs_k

    long_name = "a-chunking-named-at-length-by-its-user-" * 3
    bench = run_bench(documents(), case_records(), chunkings=[FunctionChunking(long_name, sentences)],
                      retrievers=["bm25"], rerankers=[], settings=FAST, embedder=HashEmbedder(),
                      cache_dir=tmp_path / "c")
    path = plot_vs_k(bench, tmp_path / "k.png")
    width, _ = Image.open(path).size
    assert width > 1500  # the tight box grew the picture to hold the legend beside the 15-inch panels
