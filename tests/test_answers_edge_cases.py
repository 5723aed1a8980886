"""Answer metrics at their edges (issue 21, items 24 and 26): long texts, reference sets, huge embeddings,
NaN query ids."""

from __future__ import annotations

import random
import tracemalloc

import pytest

from rag_eval_adapters.answers import rouge_l, token_f1
from rag_eval_adapters.answers.lexical import lcs_length


def _lcs_table(a: list[str], b: list[str]) -> int:
    """The textbook dynamic programme, one row at a time."""
    row = [0] * (len(b) + 1)
    for x in a:
        previous_diagonal = 0
        for j, y in enumerate(b, start=1):
            above = row[j]
            row[j] = previous_diagonal + 1 if x == y else max(row[j], row[j - 1])
            previous_diagonal = above
    return row[-1]


@pytest.mark.parametrize("vocabulary", [3, 40, 1000])
@pytest.mark.parametrize("lengths", [(300, 250), (129, 700), (1, 500), (0, 10)])
def test_lcs_length_is_the_dynamic_programmes(vocabulary, lengths):
    # long enough (over 128 tokens) that rare tokens' masks are built on demand and frequent ones kept
    rng = random.Random(vocabulary * 1000 + lengths[0])
    a = [f"w{rng.randrange(vocabulary)}" for _ in range(lengths[0])]
    b = [f"w{rng.randrange(vocabulary)}" for _ in range(lengths[1])]
    assert lcs_length(a, b) == lcs_length(b, a) == _lcs_table(a, b)


def _peak(function, *args) -> int:
    tracemalloc.start()
    try:
        function(*args)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_rouge_l_memory_is_linear_in_the_text_length():
    # a mask per distinct token, each as long as the text, was quadratic: 2.6 GB on two 200,000-token texts
    rng = random.Random(0)
    peaks = []
    for n in (10_000, 20_000):
        vocabulary = [f"w{i}" for i in range(n // 2)]
        prediction = " ".join(rng.choice(vocabulary) for _ in range(n))
        reference = " ".join(rng.choice(vocabulary) for _ in range(n))
        peaks.append((_peak(rouge_l, prediction, reference), _peak(token_f1, prediction, reference)))
    (small, small_f1), (large, large_f1) = peaks
    assert large < 3 * large_f1  # was 18 times token_f1's
    assert large < 2.6 * small  # twice the text, about twice the memory (was four times)
