"""A folder of documents: the text formats users have are read, and every file not read is counted with its
reason, in the Python API, ``rag-eval generate`` and ``rag-eval bench`` (issue 21, item 8)."""

from __future__ import annotations

import json

import pytest
from cli_support import run_cli as cli
from cli_support import write_files

from rag_eval_adapters.bench import load_documents, read_document_folder
from rag_eval_adapters.textfiles import SKIP_REASONS, html_to_text, read_folder

PAGES = {
    "guide/install.rst": "The heart pumps blood through the body.\n\nRate\n----\n\nIt beats about seventy times a "
                         "minute at rest.\n",
    "notes.txt": "The lungs take oxygen from the air. Carbon dioxide leaves the body when we breathe out.",
    "readme.md": "The kidneys filter the blood and make urine.\n\n## Nephrons\n\nEach has about a million nephrons.",
    "page.html": "<html><head><title>How many bones the body has</title><style>p {color: red}</style><script>var x = 1;</script></head>"
                 "<body><p>The adult skeleton has 206 bones.</p><p>Marrow makes blood &amp; cells.</p></body></html>",
}


def mixed_folder(tmp_path):
    root = write_files(tmp_path / "docs", PAGES)
    (root / "scan.pdf").write_bytes(b"%PDF-1.4 binary")
    (root / "slides.pptx").write_bytes(b"PK\x03\x04")
    (root / "latin1.txt").write_bytes("caf\xe9 cr\xe8me".encode("latin-1"))
    (root / "blank.md").write_text("  \n\n", encoding="utf-8")
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    return root


def test_text_formats_are_read_and_every_other_file_counted_with_its_reason(tmp_path):
    read = read_folder(mixed_folder(tmp_path))
    assert sorted(read.documents) == sorted(PAGES)  # .rst and .html too, not only .txt/.md
    assert read.documents["page.html"] == "How many bones the body has\nThe adult skeleton has 206 bones.\nMarrow makes blood & cells."
    assert read.documents["guide/install.rst"] == PAGES["guide/install.rst"]
    assert {reason: sorted(files) for reason, files in read.skipped.items()} == {
        "hidden": [".git/HEAD"], "unsupported_format": ["scan.pdf", "slides.pptx"], "not_utf8": ["latin1.txt"],
        "empty": ["blank.md"]}
    assert set(read.skipped) <= set(SKIP_REASONS)
    assert read.counts() == {"read": 4, "skipped": 5, "skipped_by_reason": {
        reason: len(files) for reason, files in read.skipped.items()}}
    assert "read 4 documents; skipped 5: " in read.describe() and "unsupported_format 2 (.pdf 1, .pptx 1)" in read.describe()


def test_a_reader_given_for_a_suffix_reads_it_and_a_failing_one_is_counted(tmp_path):
    root = mixed_folder(tmp_path)

    def pdf(path):
        return "Text of the scanned page about teeth."

    def broken(path):
        raise RuntimeError("damaged file")

    read = read_folder(root, readers={".PDF": pdf, ".pptx": broken})
    assert read.documents["scan.pdf"] == "Text of the scanned page about teeth."
    assert read.skipped["unreadable"] == ["slides.pptx"] and "unsupported_format" not in read.skipped


def test_the_benchmark_reads_the_same_folder(tmp_path):
    folder = mixed_folder(tmp_path)
    assert read_document_folder(folder).skipped["not_utf8"] == ["latin1.txt"]
    with pytest.raises(ValueError, match=r"latin1\.txt: not UTF-8 text"):  # a benchmark never runs on part of it
        load_documents(folder)
    (folder / "latin1.txt").unlink()
    docs = load_documents(folder)
    assert sorted(d.doc_id for d in docs) == sorted(PAGES)


def test_html_text_keeps_paragraphs_and_drops_markup():
    assert html_to_text("<p>a&lt;b</p><div>c <b>d</b></div><script>x()</script>") == "a<b\nc d"


# ------------------------------------------------------------------------------------------ the commands
pytest.importorskip("openai")
pytest.importorskip("llama_index.core")

def test_generate_reads_rst_and_html_and_reports_what_it_skipped(openai_server, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_KEY", openai_server.api_key)
    out = tmp_path / "t.jsonl"
    code, stdout, stderr = cli("generate", "--documents", str(mixed_folder(tmp_path)), "--llm-model", "gpt-4o-mini",
                               "--llm-base-url", openai_server.base_url, "--llm-api-key-env", "FAKE_KEY",
                               "--min-chunk-chars", "10", "--samples", "4", "--types", "literal",
                               "--output", str(out))
    assert code == 0, stderr
    summary = json.loads(stdout)
    assert summary["documents"]["read"] == 4 and summary["documents"]["skipped"] == 5
    assert summary["documents"]["skipped_files"]["unsupported_format"] == ["scan.pdf", "slides.pptx"]
    assert stderr.startswith("rag-eval: documents: read 4 documents; skipped 5: ")
    sources = {json.loads(line)["evidence_spans"][0]["doc_id"] for line in out.read_text("utf-8").splitlines()}
    assert sources == set(PAGES)


def test_a_folder_with_nothing_readable_names_what_it_skipped(tmp_path):
    root = tmp_path / "pdfs"
    root.mkdir()
    (root / "a.pdf").write_bytes(b"%PDF")
    code, _, stderr = cli("generate", "--documents", str(root), "--llm-model", "m", "--dry-run")
    assert code == 2 and "holds no document to read (read 0 documents; skipped 1: unsupported_format 1 (.pdf 1)" in stderr


def test_bench_reports_the_documents_it_read_and_skipped(tmp_path):
    pytest.importorskip("bm25s")
    from bench_helpers import case_records, documents

    root = tmp_path / "docs"
    root.mkdir()
    for d in documents():
        (root / d["doc_id"]).write_text(d["text"], encoding="utf-8")
    (root / "extra.rst").write_text("Extra\n=====\n\nA page the questions do not cite.\n", encoding="utf-8")
    (root / "scan.pdf").write_bytes(b"%PDF")
    testset = tmp_path / "testset.jsonl"
    testset.write_text("".join(json.dumps(r) + "\n" for r in case_records()), encoding="utf-8")
    code, _, stderr = cli("bench", "--documents", str(root), "--testset", str(testset), "--chunking", "32:8",
                          "--retriever", "bm25", "--rerank", "lexical", "--skip-e2e", "--permutations", "100",
                          "--output", str(tmp_path / "report"))
    assert code == 0, stderr
    read = len(documents()) + 1
    assert f"rag-eval: documents: read {read} documents; skipped 1: unsupported_format 1 (.pdf 1)\n" in stderr
    provenance = json.loads((tmp_path / "report" / "report.json").read_text(encoding="utf-8"))["provenance"]
    assert provenance["documents"]["count"] == read
    assert provenance["documents"]["skipped"] == {"unsupported_format": ["scan.pdf"]}
