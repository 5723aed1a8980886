"""The RAGChecker meta-evaluation set shipped with the package: 560 human preference labels on 280 answer pairs.

Ru et al., "RAGChecker: A Fine-grained Framework for Diagnosing Retrieval-Augmented Generation" (NeurIPS 2024
Datasets and Benchmarks), ``data/meta_evaluation/human_labeled_data.json`` of amazon-science/RAGChecker, Apache
License 2.0 (``LICENSE`` and ``NOTICE`` beside the file in ``rag_eval_adapters/data/ragchecker/``). Each of 280
questions from ten domains has a reference answer and two systems' answers, judged by two people on correctness,
completeness and overall, each on -2..2 (negative: answer 1 better).
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

__all__ = ["PairwiseJudgement", "RAGCHECKER_LABELS", "load_ragchecker", "ragchecker_path"]

RAGCHECKER_LABELS = ("correctness", "completeness", "overall")
"""The three labels of every judgement, in the file's order."""


@dataclass(frozen=True)
class PairwiseJudgement:
    """One person's preference between two answers to a question (the score is answer 2 - answer 1).

    Attributes
    ----------
    item_id : str
        The question and its answer pair (both annotators' judgements share it).
    group : str
        The domain (e.g. ``"kiwi"``, ``"robustqa/fiqa"``).
    query, reference : str
        The question and its reference answer.
    answers, systems : tuple of two str
        The two answers and the names of the systems that wrote them.
    annotator : int
        0 for the first judgement of the pair in the file, 1 for the second.
    labels : dict
        Label name -> preference on -2..2 (negative: answer 1 better, 0: tie).
    """

    item_id: str
    group: str
    query: str
    reference: str = field(repr=False)
    answers: tuple[str, str] = field(repr=False)
    systems: tuple[str, str] = ("", "")
    annotator: int = 0
    labels: dict[str, int] = field(default_factory=dict)


def ragchecker_path(name: str = "human_labeled_data.json") -> Path:
    """The path of a shipped file of the set: ``human_labeled_data.json``, ``LICENSE``, ``NOTICE``, ``README.md``."""
    path = Path(str(resources.files("rag_eval_adapters") / "data" / "ragchecker" / name))
    if not path.is_file():
        raise FileNotFoundError(f"RAGChecker data file {name!r} is missing from the installed package ({path})")
    return path


def _answer(value: Any, where: str) -> tuple[str, str]:
    if isinstance(value, str):  # some copies of the file hold the dict as its Python text
        value = ast.literal_eval(value)
    if not isinstance(value, dict) or not isinstance(value.get("response"), str):
        raise ValueError(f"{where}: expected {{'model_name': ..., 'response': ...}}, got {str(value)[:80]!r}")
    return value["response"], str(value.get("model_name", ""))


def _label(value: Any, where: str) -> int:
    """A preference label: a whole number on -2..2 (``1.0`` is read as 1); ``ValueError`` naming ``where`` for a
    fraction (``1.5``), a boolean (``true``), a string or a value off the scale (it was truncated to an int)."""
    whole = (isinstance(value, int) and not isinstance(value, bool)) or (
        isinstance(value, float) and value.is_integer())
    if not whole:
        raise ValueError(f"{where} is {json.dumps(value)}; a label is a whole number on -2..2")
    if not -2 <= value <= 2:
        raise ValueError(f"{where} is {json.dumps(value)}; labels lie in -2..2")
    return int(value)


_SPACE = re.compile(r"\s*")


def _skip_space(text: str, index: int) -> int:
    """The first index at or after ``index`` that is not white space."""
    match = _SPACE.match(text, index)
    return match.end() if match else index


def _row_lines(text: str) -> Iterator[int]:
    """The line on which each element of the JSON list ``text`` starts (the list is already known to parse)."""
    decoder = json.JSONDecoder()
    index = _skip_space(text, 0) + 1  # past the "["
    line = 1 + text.count("\n", 0, index)
    while True:
        start = _skip_space(text, index)
        if text[start] == "]":
            return
        line += text.count("\n", index, start)
        yield line
        _, end = decoder.raw_decode(text, start)
        after = _skip_space(text, end)
        line += text.count("\n", start, after)
        index = after + 1 if text[after] == "," else after


def load_ragchecker(path: str | Path | None = None) -> list[PairwiseJudgement]:
    """The 560 judgements, in the file's order (the shipped file unless ``path`` names another copy).

    Raises
    ------
    ValueError
        For a row without a field, a label off -2..2 or a question judged other than twice.
    """
    source = Path(path) if path is not None else ragchecker_path()
    with source.open(encoding="utf-8") as handle:  # one JSON document (a list), not JSON lines
        rows = json.load(handle)
        handle.seek(0)
        text = handle.read()  # for the line each row starts on
    if not isinstance(rows, list):
        raise ValueError(f"{source}: expected a JSON list of judgements")
    seen: dict[str, int] = {}
    out = []
    for i, (line, row) in enumerate(zip(_row_lines(text), rows, strict=True)):
        where = f"{source.name}:{line}: row {i}"
        try:
            item = str(row["instance_id"])
            answer_1, system_1 = _answer(row["model1"], f"{where}: model1")
            answer_2, system_2 = _answer(row["model2"], f"{where}: model2")
            labels = {name: _label(row[f"{name}_label"], f"{where}: {name}_label") for name in RAGCHECKER_LABELS}
            judgement = PairwiseJudgement(item, str(row["dataset"]), str(row["query"]), str(row["gt_answer"]),
                                          (answer_1, answer_2), (system_1, system_2), seen.get(item, 0), labels)
        except KeyError as exc:
            raise ValueError(f"{where}: no field {exc.args[0]!r}") from None
        except TypeError:
            raise ValueError(f"{where}: expected a JSON object with the fields of a judgement") from None
        seen[item] = seen.get(item, 0) + 1
        out.append(judgement)
    odd = [k for k, v in seen.items() if v != 2]
    if odd:
        raise ValueError(f"{source.name}: question {odd[0]!r} is judged {seen[odd[0]]} times; each is judged twice")
    return out
