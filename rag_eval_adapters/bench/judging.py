"""The benchmark's LLM judge: judged answer metrics (``--judge``) and grades for the retrieved chunks that no
evidence span labels (``--judge-unlabelled``).

With a judge, every configuration's answers are also scored for **faithfulness** (to the chunks the answer was
given) and **answer correctness** (claim F1 against the reference), per query type, beside token F1 and
semantic similarity; an answer the judge cannot score is an unmeasured cell with its reason.

Evidence spans label the chunks that hold the evidence; a retrieved chunk elsewhere that also answers the
question is unlabelled, and counted as not relevant. ``judge_unlabelled`` grades, per chunking, the chunks
retrieved within the largest cutoff by any configuration that have no label (0-3, stored on the span scale:
:data:`SPAN_SCALE`), and the configurations are scored again on the completed judgments; every judgment keeps
its source (``evidence_span`` or ``llm``), and ``judged@k`` (the share of the top k that has a judgment) shows
how complete the judgments are.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

__all__ = ["JUDGED_ANSWER_METRICS", "SPAN_SCALE", "judge_unlabelled", "judged_share"]

JUDGED_ANSWER_METRICS = ("faithfulness", "answer_correctness")
#: an LLM grade on the benchmark's grade scale (percent of the evidence span covered): 2 ("partly answers") as
#: half a span, 3 ("answers it") as a whole one; 0 and 1 (related but does not answer) are not relevant
SPAN_SCALE = {0: 0, 1: 0, 2: 50, 3: 100}


def judged_share(qrels: Mapping[str, Mapping[str, int]], run: Mapping[str, Sequence[tuple[str, float]]],
                 k: int) -> float:
    """The registry's ``judged@k`` averaged over every question of ``run`` (a question without judgments counts
    0): :func:`rag_eval_adapters.bench.scoring.judged_shares` at one cutoff."""
    from .scoring import judged_shares

    return judged_shares(qrels, run, [k])[f"judged@{k}"]


def judge_unlabelled(results: Sequence[Any], cases: Sequence[Any], chunks: Mapping[str, Sequence[Any]],
                     qrels: Mapping[str, dict], judge: Any, depth: int) -> dict[str, Any]:
    """``{chunking: FilledQrels}``: each chunking's judgments completed by ``judge`` over the chunks its
    configurations retrieved within ``depth`` (each (query, chunk) graded once, whatever retrieved it)."""
    from ..judges import fill_judgments

    queries = {c.query_id: c.query for c in cases}
    out = {}
    for name, found in chunks.items():
        union: dict[Hashable, dict[Hashable, float]] = {}
        for result in results:
            if result.chunking != name:
                continue
            for qid, hits in result.run.items():
                docs = union.setdefault(qid, {})
                for rank, (doc, _) in enumerate(hits[:depth]):
                    docs[doc] = max(docs.get(doc, 0.0), float(depth - rank))
        texts = {c.chunk_id: c.text for c in found}
        widest = max((len(docs) for docs in union.values()), default=1)  # every retrieved chunk of the union
        out[name] = fill_judgments(qrels.get(name, {}), union, judge, depth=max(1, widest), queries=queries,
                                   documents=texts, source="evidence_span", grade_map=SPAN_SCALE)
    return out
