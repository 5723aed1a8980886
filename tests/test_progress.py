"""One TQDM_DISABLE rule for every progress bar of the package (rag_eval_adapters.progress)."""

import io

import pytest

from rag_eval_adapters.progress import is_terminal, progress_bar, progress_enabled


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class Broken(io.StringIO):
    def isatty(self) -> bool:
        raise ValueError("I/O operation on closed file")


@pytest.mark.parametrize("value, shown", [(None, True), ("", True), ("0", True), ("False", True), ("no", True),
                                          ("off", True), ("1", False), ("true", False), ("yes", False)])
def test_tqdm_disable_values(monkeypatch, value, shown):
    if value is None:
        monkeypatch.delenv("TQDM_DISABLE", raising=False)
    else:
        monkeypatch.setenv("TQDM_DISABLE", value)
    assert progress_enabled(Terminal()) is shown


def test_no_bar_off_a_terminal_or_when_not_asked(monkeypatch):
    monkeypatch.delenv("TQDM_DISABLE", raising=False)
    assert progress_enabled(io.StringIO()) is False
    assert progress_enabled(Terminal(), requested=False) is False
    assert is_terminal(Broken()) is False and is_terminal(None) is False


def test_progress_bar_draws_on_a_terminal_and_is_silent_otherwise(monkeypatch):
    monkeypatch.delenv("TQDM_DISABLE", raising=False)
    screen = Terminal()
    assert list(progress_bar(range(3), desc="scoring", stream=screen)) == [0, 1, 2]
    assert "scoring" in screen.getvalue() and "3/3" in screen.getvalue()
    quiet = io.StringIO()
    with progress_bar(total=2, stream=quiet) as bar:
        bar.update(2)
    assert list(progress_bar(range(3), stream=quiet)) == [0, 1, 2] and quiet.getvalue() == ""
    monkeypatch.setenv("TQDM_DISABLE", "1")
    hidden = Terminal()
    assert list(progress_bar(range(3), stream=hidden)) == [0, 1, 2] and hidden.getvalue() == ""


def test_rerank_batch_and_dataset_follow_the_rule(monkeypatch):
    from rag_eval_adapters.rerank import LexicalScorer, rerank_relevancy_batch

    monkeypatch.setenv("TQDM_DISABLE", "1")
    screen = Terminal()
    monkeypatch.setattr("sys.stderr", screen)
    result = rerank_relevancy_batch({"q": ("paris", ["paris france"])}, LexicalScorer(), progress=True)
    assert list(result.scores) == ["q"] and screen.getvalue() == ""
    monkeypatch.setenv("TQDM_DISABLE", "0")
    rerank_relevancy_batch({"q": ("paris", ["paris france"])}, LexicalScorer(), progress=True)
    assert "rerank relevancy" in screen.getvalue()
