"""Benchmark: precision and recall of the verifiers behind multi-hop and unanswerable test sets.

No real model is reachable here, so the verifiers are measured on candidate questions whose truth is known by
construction, over a corpus no one here wrote: the docstrings of the installed numpy's public functions (one chunk
a function, up to its Examples section), read offline. From their numpydoc sections (Parameters, Returns,
Raises, See Also, ``.. versionadded::``):

* **single-chunk check** (``testsets.answers_alone``; a multi-hop question it flags is dropped): the pair is the
  generator's own (``CandidateIndex.partner``, the chunk sharing the rarest terms). One-chunk questions: "What is
  the type of the P parameter of numpy.F?" (answer: its type) and "What does numpy.F return?" (answer: the
  Returns entry). Two-chunk questions: comparison "Which of numpy.F and numpy.G takes a parameter named P?" (P
  a parameter of F only; answer numpy.F) and bridge "What is the type of the P parameter of the function that
  the numpy.F documentation lists first under See Also?" (answer from that function's chunk).
  Positive class: answerable from one chunk (dropped).
* **unanswerable check** (``testsets.confirm_unanswerable``: the question's chunk and the top 5 BM25
  candidates; and E5 ``multilingual-e5-small`` cosine over all chunks): answer present: the type of a parameter
  of F (asked literally and reworded), the version F was added in (when documented), the exceptions F raises
  (when a Raises section exists). Answer absent: the type of a parameter F does not have (a parameter name of
  another function, not mentioned in F's docstring), the version F was added in (no ``versionadded`` and no
  "version" in the docstring), the exceptions F raises (no Raises section and no "raise" in the docstring).
  Positive class: unanswerable (kept).

Each table sweeps the threshold; the package's default is marked. The questions are templated, so the figures
bound what the lexical checks can do on questions that reuse the corpus's terms; a model's paraphrases are
harder (run ``bench_generate_endpoint.py`` against a real endpoint and read the drops).

    python benchmarks/bench_harder_checks.py [--limit 400] [--no-e5]
"""

from __future__ import annotations

import argparse
import inspect
import random
import re
from dataclasses import dataclass

from rag_eval_adapters.testsets import (
    ALONE_QUESTION_COVERAGE,
    ANSWERED_COVERAGE,
    CANDIDATES,
    EMBEDDING_ANSWER_THRESHOLD,
    CandidateIndex,
    Chunk,
    answers_alone,
    confirm_unanswerable,
)
from rag_eval_adapters.testsets.harder import Checks
from rag_eval_adapters.testsets.lexical import content_words

_ENTRY = re.compile(r"^(\w+) : (.+)$")


@dataclass
class Doc:
    """One numpy function's docstring and the facts its sections state."""

    name: str
    text: str
    params: dict[str, str]
    returns: str
    see_also: list[str]
    version: bool
    raises: bool


def _section(doc: str, title: str) -> list[str]:
    found = re.search(rf"^{title}\n-+\n(.*?)(?=^\w[\w ]*\n-+\n|\Z)", doc, re.S | re.M)
    return found.group(1).splitlines() if found else []


def read_numpy_docs(limit: int) -> list[Doc]:
    """The numpy functions whose docstrings have a Parameters section (first ``limit`` by name)."""
    import numpy as np

    docs = []
    for name in sorted(dir(np)):
        obj = getattr(np, name)
        doc = inspect.getdoc(obj) if callable(obj) and not name.startswith("_") else None
        if not doc or "Parameters\n----------" not in doc:
            continue
        text = f"numpy.{name}\n" + doc.split("\nExamples\n--------")[0]
        params = {m.group(1): m.group(2).strip() for line in _section(doc, "Parameters") if (m := _ENTRY.match(line))}
        returns = next((m.group(2).strip() for line in _section(doc, "Returns") if (m := _ENTRY.match(line))), "")
        see = [m.group(1) for line in _section(doc, "See Also") if (m := re.match(r"^(?:numpy\.)?(\w+)", line))]
        docs.append(Doc(name, text, params, returns, see, ".. versionadded::" in doc, "Raises\n------" in doc))
    return docs[:limit]


def single_chunk_candidates(docs: list[Doc], index: CandidateIndex, rng: random.Random):
    """``(question, answer, chunk A, chunk B, one_chunk_enough)`` over the generator's pairs."""
    by_name = {d.name: d for d in docs}
    chunk = {d.name: c for d, c in zip(docs, index.chunks, strict=True)}
    out = []
    for doc in docs:
        partner = index.partner(chunk[doc.name], index.chunks)
        if partner is None or not doc.params:
            continue
        other = by_name[partner.chunk_id]
        p = rng.choice(sorted(doc.params))
        out.append((f"What is the type of the {p} parameter of numpy.{doc.name}?", doc.params[p], chunk[doc.name],
                     partner, True))
        if doc.returns:
            out.append((f"What does numpy.{doc.name} return?", doc.returns, chunk[doc.name], partner, True))
        only = sorted(set(doc.params) - set(other.params) - content_words(other.text))
        if only:
            q = rng.choice(only)
            out.append((f"Which of numpy.{doc.name} and numpy.{other.name} takes a parameter named {q}?",
                        f"numpy.{doc.name}", chunk[doc.name], partner, False))
        target = next((by_name[s] for s in doc.see_also if s in by_name and s != doc.name), None)
        if target is not None and target.params:
            q = next(iter(target.params))
            out.append((f"What is the type of the {q} parameter of the function that the numpy.{doc.name} "
                        "documentation lists first under See Also?", target.params[q], chunk[doc.name],
                        chunk[target.name], False))
    return out


def unanswerable_candidates(docs: list[Doc], rng: random.Random):
    """``(question, doc, answer_absent)``."""
    all_params = sorted({p for d in docs for p in d.params})
    out = []
    for doc in docs:
        words = content_words(doc.text)
        if doc.params:
            p = rng.choice(sorted(doc.params))
            out.append((f"What is the type of the {p} parameter of numpy.{doc.name}?", doc, False))
            out.append((f"Which kind of value does numpy.{doc.name} expect for its {p} argument?", doc, False))
        foreign = [p for p in all_params if p not in doc.params and p.lower() not in words]
        if foreign:
            out.append((f"What is the type of the {rng.choice(foreign)} parameter of numpy.{doc.name}?", doc, True))
        if doc.version or "version" not in doc.text.lower():
            out.append((f"In which numpy version was numpy.{doc.name} added?", doc, not doc.version))
        if doc.raises or "raise" not in doc.text.lower():
            out.append((f"Which exceptions does numpy.{doc.name} raise?", doc, not doc.raises))
    return out


def pr(pairs: list[tuple[bool, bool]]) -> tuple[float, float, int, int]:
    """(precision, recall, predicted positives, true positives) of ``(predicted, truth)`` pairs."""
    tp = sum(p and t for p, t in pairs)
    predicted, actual = sum(p for p, _ in pairs), sum(t for _, t in pairs)
    return (tp / predicted if predicted else float("nan"), tp / actual if actual else float("nan"), predicted, actual)


def print_table(title: str, rows: list[tuple[str, list[tuple[bool, bool]]]]) -> None:
    print(f"\n{title}\n{'threshold':>14} {'precision':>9} {'recall':>7} {'flagged':>8} {'actual':>7}")
    for label, pairs in rows:
        precision, recall, predicted, actual = pr(pairs)
        print(f"{label:>14} {precision:9.3f} {recall:7.3f} {predicted:8d} {actual:7d}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=400, help="numpy functions read (default 400)")
    parser.add_argument("--no-e5", action="store_true", help="skip the E5 embedding check")
    args = parser.parse_args()
    rng = random.Random(0)
    docs = read_numpy_docs(args.limit)
    chunks = [Chunk(d.name, text=d.text) for d in docs]
    index = CandidateIndex(chunks)
    print(f"corpus: {len(docs)} numpy docstrings, {sum(len(d.text) for d in docs)} characters")

    single = single_chunk_candidates(docs, index, rng)
    print(f"single-chunk check: {len(single)} questions, {sum(t for *_, t in single)} answerable from one chunk")
    rows = []
    for threshold in (0.6, 0.7, 0.8, 0.85, ALONE_QUESTION_COVERAGE, 1.0):
        pairs = [(any(answers_alone(q, a, c.text, [x.text, y.text], coverage=threshold) for c in (x, y)), truth)
                 for q, a, x, y, truth in single]
        mark = " (default)" if threshold == ALONE_QUESTION_COVERAGE else ""
        rows.append((f"{threshold:.2f}{mark}", pairs))
    print_table("single-chunk check (positive: one chunk answers; dropped)", rows)

    probes = unanswerable_candidates(docs, rng)
    print(f"\nunanswerable check: {len(probes)} questions, {sum(t for *_, t in probes)} without an answer")
    chunk_of = {c.chunk_id: c for c in chunks}
    coverage = []
    for question, doc, _ in probes:
        candidates = [chunk_of[doc.name]] + index.top(question, CANDIDATES)
        words = content_words(question)
        coverage.append(max(len(words & content_words(c.text)) / len(words) for c in candidates))
    rows = [(f"{t:.2f}{' (default)' if t == ANSWERED_COVERAGE else ''}",
             [(cov < t, truth) for cov, (_, _, truth) in zip(coverage, probes, strict=True)])
            for t in (0.5, 0.6, 0.7, 0.75, ANSWERED_COVERAGE, 0.9, 1.0)]
    default = [(isinstance(confirm_unanswerable(q, chunk_of[d.name], Checks(index)), list), t) for q, d, t in probes]
    assert default == rows[4][1], "the sweep disagrees with confirm_unanswerable at the default"
    print_table("unanswerable check, lexical over the chunk and top-5 BM25 (positive: unanswerable; kept)", rows)
    if not args.no_e5:
        e5_table(chunks, probes, coverage)


def e5_table(chunks: list[Chunk], probes, coverage: list[float]) -> None:
    """The E5 part: the best cosine over all chunks, alone and after the lexical check at its default."""
    import numpy as np

    from rag_eval_adapters.modelcalls import resolve_embedder

    embedder = resolve_embedder("e5")
    passages = np.asarray(embedder.embed_passages([c.text for c in chunks]))
    queries = np.asarray(embedder.embed_queries([q for q, _, _ in probes]))
    best = (queries @ passages.T).max(axis=1)
    for combined in (False, True):
        rows = []
        for t in (0.84, 0.86, EMBEDDING_ANSWER_THRESHOLD, 0.90, 0.92):
            label = f"{t:.2f}{' (default)' if t == EMBEDDING_ANSWER_THRESHOLD else ''}"
            rows.append((label, [(b < t and (not combined or cov < ANSWERED_COVERAGE), truth)
                                 for b, cov, (_, _, truth) in zip(best, coverage, probes, strict=True)]))
        what = "lexical and E5 (both must confirm)" if combined else "E5 alone, best cosine over all chunks"
        print_table(f"unanswerable check, {what}", rows)


if __name__ == "__main__":
    main()
