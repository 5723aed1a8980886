"""Lexical answer metrics: exact match, token F1 and ROUGE-L against one or several reference answers.

With several references the best one counts, as in SQuAD: the highest exact match, the reference with the
highest F1 (its precision and recall come with it; ties go to the first such reference).

>>> exact_match("The Eiffel Tower.", ["eiffel tower", "Tour Eiffel"])
1.0
>>> token_f1("in Paris, France", "Paris").f1
0.5
>>> token_f1("Москва, столица России", "столица России — Москва").f1
1.0
>>> round(rouge_l("the cat sat on the mat", "the cat lay on the mat").f1, 4)
0.8333
>>> round(rouge_l("北京是中国的首都", "中国的首都是北京").f1, 4)
0.625
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import NamedTuple

from .normalize import ROUGE, SQUAD, Normalization
from .stemming import stem_tokens

__all__ = ["Overlap", "exact_match", "token_f1", "rouge_l", "check_references", "lcs_length"]

References = str | Sequence[str]


class Overlap(NamedTuple):
    """Precision, recall and their harmonic mean (F1), each in [0, 1]."""

    precision: float
    recall: float
    f1: float


ZERO = Overlap(0.0, 0.0, 0.0)


def check_prediction(prediction: object, field: str = "prediction") -> str:
    """``prediction`` itself when it is a string; a ``TypeError`` naming ``field`` otherwise."""
    if type(prediction) is not str and not isinstance(prediction, str):
        raise TypeError(f"{field} must be a string, got {type(prediction).__name__}: {prediction!r:.80}")
    return prediction


def check_references(references: object, field: str = "references") -> list[str]:
    """One reference or several as a non-empty list of strings; ``TypeError``/``ValueError`` otherwise.

    A set of references is taken in sorted order: a set's own order changes with ``PYTHONHASHSEED``, and the
    first of several equally good references decides the precision and recall a metric reports.
    """
    if isinstance(references, str):
        return [references]
    if not isinstance(references, Sequence) and not isinstance(references, (set, frozenset)):
        raise TypeError(
            f"{field} must be a string or a list of strings, got {type(references).__name__}: {references!r:.80}"
        )
    if isinstance(references, (set, frozenset)):
        strings = [r for r in references if isinstance(r, str)]
        others = [r for r in references if not isinstance(r, str)]
        references = sorted(strings) + others  # a non-string is refused below, naming it
    refs = list(references)
    if not refs:
        raise ValueError(f"{field} is empty: give at least one reference answer")
    for i, ref in enumerate(refs):
        if not isinstance(ref, str):
            raise TypeError(f"{field}[{i}] must be a string, got {type(ref).__name__}: {ref!r:.80}")
    return refs


def exact_match(prediction: str, references: References, *, normalization: Normalization = SQUAD) -> float:
    """1.0 when the normalised prediction equals a normalised reference, else 0.0.

    Parameters
    ----------
    prediction : str
        The generated answer.
    references : str or list of str
        The reference answer(s); the best match counts.
    normalization : Normalization
        How both sides are normalised (default :data:`~rag_eval_adapters.answers.SQUAD`).

    Returns
    -------
    float
        On English text, SQuAD v1.1's ``exact_match_score`` maximised over the references.
    """
    pred = normalization.tokens(check_prediction(prediction))
    return max(1.0 if pred == normalization.tokens(ref) else 0.0 for ref in check_references(references))


def _token_overlap(pred: Counter, n_pred: int, ref: Counter, n_ref: int) -> Overlap:
    if len(pred) > len(ref):
        pred, ref = ref, pred
    same = 0
    get = ref.get
    for token, n in pred.items():
        m = get(token)
        if m:
            same += n if n < m else m
    if same == 0:
        return ZERO
    precision = 1.0 * same / n_pred
    recall = 1.0 * same / n_ref
    return Overlap(precision, recall, (2 * precision * recall) / (precision + recall))


def token_f1(prediction: str, references: References, *, normalization: Normalization = SQUAD) -> Overlap:
    """Token-overlap precision, recall and F1 of the prediction against the best reference.

    Tokens are counted with multiplicity: the overlap is the size of the multiset intersection.
    ``precision = overlap / len(prediction tokens)``, ``recall = overlap / len(reference tokens)``; with no
    overlap (or an empty side) all three are 0. On English text the F1 equals SQuAD v1.1's ``f1_score``
    maximised over the references.

    Returns
    -------
    Overlap
        ``(precision, recall, f1)`` of the reference with the highest F1 (the first one among ties).
    """
    pred, n_pred = normalization.token_counts(check_prediction(prediction))
    best: Overlap | None = None
    for ref in check_references(references):
        score = _token_overlap(pred, n_pred, *normalization.token_counts(ref))
        if best is None or score.f1 > best.f1:
            best = score
    return _best(best)


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence of two token sequences (bit-parallel, Hyyro 2004).

    The longer sequence is the bit vector: one bit per token, and for each distinct token the mask of its
    positions. Masks are kept only for the tokens frequent enough that at most 64 are kept (each as long as the
    sequence), and built from the token's positions when a rarer one is met, so memory stays linear in the text
    length (a mask per distinct token would be quadratic on long texts: 2.6 GB for two 200,000-token texts).
    """
    if len(a) < len(b):
        a, b = b, a
    n = len(a)
    positions: dict[str, list[int]] = {}
    for i, token in enumerate(a):
        positions.setdefault(token, []).append(i)
    kept = max(1, n // 64)  # tokens occurring at least this often keep their mask: at most 64 of them
    masks = {token: _mask(where, n) for token, where in positions.items() if len(where) >= kept}
    full = (1 << n) - 1
    v = full
    for token in b:
        m = masks.get(token)
        if m is None:
            where = positions.get(token)
            if where is None:
                continue
            m = _mask(where, n)
        u = v & m
        v = ((v + u) | (v - u)) & full
    return n - v.bit_count()


def _mask(where: list[int], n: int) -> int:
    """The int whose bits ``where`` (of ``n``) are set."""
    if len(where) <= 4:
        m = 0
        for i in where:
            m |= 1 << i
        return m
    bits = bytearray((n + 7) // 8)
    for i in where:
        bits[i >> 3] |= 1 << (i & 7)
    return int.from_bytes(bits, "little")


def _lcs_overlap(pred: list[str], ref: list[str]) -> Overlap:
    if not pred or not ref:
        return ZERO
    lcs = lcs_length(ref, pred)
    precision = lcs / len(pred)
    recall = lcs / len(ref)
    if precision + recall > 0:
        return Overlap(precision, recall, 2 * precision * recall / (precision + recall))
    return ZERO


def rouge_l(
    prediction: str,
    references: References,
    *,
    stem: bool = False,
    normalization: Normalization = ROUGE,
) -> Overlap:
    """ROUGE-L: precision, recall and F of the longest common subsequence of tokens, best reference.

    ``precision = LCS / len(prediction tokens)``, ``recall = LCS / len(reference tokens)``,
    ``F = 2PR / (P + R)``; 0 when a side has no tokens.

    Parameters
    ----------
    prediction : str
        The generated answer.
    references : str or list of str
        The reference answer(s); the one with the highest F counts (the first among ties), as rouge-score's
        ``score_multi``.
    stem : bool
        Porter-stem ASCII words longer than three characters (rouge-score's ``use_stemmer=True``; needs nltk).
    normalization : Normalization
        Default :data:`~rag_eval_adapters.answers.ROUGE`: on English text the values equal rouge-score's
        ``rougeL``.
    """
    pred = normalization.tokens(check_prediction(prediction))
    refs = [normalization.tokens(r) for r in check_references(references)]
    if stem:
        pred = stem_tokens(pred)
        refs = [stem_tokens(r) for r in refs]
    best: Overlap | None = None
    for ref in refs:
        score = _lcs_overlap(pred, ref)
        if best is None or score.f1 > best.f1:
            best = score
    return _best(best)


def _best(best: Overlap | None) -> Overlap:
    """The best overlap (there is one: :func:`check_references` refuses an empty list)."""
    if best is None:
        raise ValueError("no reference to compare with")
    return best
