"""The ``missing`` policy is checked by one rule, with one message, at every entry point that takes it."""

from __future__ import annotations

import pytest

from rag_eval_adapters import evaluate, evaluate_columns
from rag_eval_adapters.distributed import evaluate_ray, score_shard
from rag_eval_adapters.validation import MISSING, check_missing

QRELS = {"query_id": ["q1"], "doc_id": ["d1"], "grade": [1]}
RUN = {"query_id": ["q1"], "doc_id": ["d1"], "score": [1.0]}


@pytest.mark.parametrize("bad", ["zeros", "", None, 0, ["zero"]])
def test_every_entry_point_refuses_a_policy_it_does_not_know_with_the_same_message(bad):
    message = f"missing must be 'zero', 'skip' or 'error', got {bad!r}"
    calls = [
        lambda: check_missing(bad),
        lambda: evaluate({"q1": {"d1": 1}}, {"q1": {"d1": 1.0}}, ["mrr"], missing=bad),
        lambda: evaluate_columns(QRELS, RUN, ["mrr"], missing=bad),
        lambda: score_shard(QRELS, RUN, ["mrr"], missing=bad),
        lambda: evaluate_ray(QRELS, RUN, ["mrr"], missing=bad),  # refused before Ray is started
    ]
    for call in calls:
        with pytest.raises(ValueError) as got:
            call()
        assert str(got.value) == message


def test_the_known_policies_are_accepted_as_given():
    assert MISSING == ("zero", "skip", "error")
    assert [check_missing(policy) for policy in MISSING] == list(MISSING)
    assert score_shard(QRELS, RUN, ["mrr"], missing="skip").column("mrr").to_pylist() == [1.0]
