"""One validation vocabulary: the checks and pydantic types for a cutoff, a relevance level, a gain, a grade,
a score and an on/off option, and the checks of a count, a fraction, a positive amount and a random seed.

Every entry point (the per-query functions, :func:`~rag_eval_adapters.evaluate`, the metric objects, the
LlamaIndex and LangChain adapters and the ``rag-eval`` command) checks these values with the functions below,
so one bad value gets the same exception and the same message wherever it is given:

* a value of the wrong type (a string cutoff, ``granular="no"``) is a ``TypeError``;
* a value of the right type outside its range (``k=0``, ``relevance_level=inf``, a NaN grade) is a
  ``ValueError``;
* a bool is never a number here: ``n_bootstrap=True`` or ``confidence=False`` is a ``TypeError``, not 1 or 0.

The options of the resampling, the batch sizes, workers, shards and timeouts use :func:`check_count`,
:func:`check_fraction`, :func:`check_positive` and :func:`check_seed`, each with one message style.

The ``Annotated`` types (:data:`Cutoff`, :data:`RelevanceLevel`, :data:`Gain`, :data:`Grade`, :data:`Score`,
:data:`Flag`) run the same checks as pydantic field validators, naming the field in the message; a model built
from them re-raises the check's own exception with :func:`plain_error` instead of pydantic's wrapper.

>>> from rag_eval_adapters.validation import check_level
>>> check_level(2)
2.0
>>> check_level(float("inf"))
Traceback (most recent call last):
...
ValueError: relevance_level must be a finite number (a grade threshold), got inf
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping
from typing import Annotated, Any, Literal, cast

import numpy as np
from pydantic import BeforeValidator, ValidationError, ValidationInfo

from ._kernel import GAINS

#: the largest cutoff: any ranking is whole well before it (and a cutoff must fit in an int64)
MAX_K = 2**62

__all__ = [
    "GAINS",
    "Cutoff",
    "RelevanceLevel",
    "Gain",
    "Grade",
    "Score",
    "Flag",
    "check_k",
    "check_level",
    "check_gain",
    "check_missing",
    "MISSING",
    "check_grade",
    "check_score",
    "check_flag",
    "check_count",
    "check_fraction",
    "check_positive",
    "check_seed",
    "check_texts",
    "where",
    "plain_error",
]



def where(query_id: Any) -> str:
    """The prefix naming the query in an error message (``""`` when no query is known)."""
    return "" if query_id is None else f"query {query_id!r}: "


def _short(value: Any) -> str:
    """``repr(value)``, cut short for numbers of hundreds of digits."""
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:20]}...({len(text)} characters)"


def _number(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, numbers.Real)


def check_k(k: Any, field: str = "k") -> int | None:
    """A cutoff: None (the whole list) or a positive int."""
    if k is None:
        return None
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(f"{field} must be a positive int or None (the whole list), got {k!r}")
    value = int(k)  # an int of numpy's too
    if value < 1:
        raise ValueError(f"{field} must be a positive int or None (the whole list), got {k!r}")
    if value > MAX_K:
        raise ValueError(f"{field} must be at most 2**62 (None: the whole list), got a {len(str(k))}-digit number")
    return value


def _float_or_inf(value: Any) -> float:
    """``float(value)``, with an integer beyond float64's range read as infinity (so it fails the finite check)."""
    try:
        return float(value)
    except OverflowError:
        return math.inf


def _real(value: Any, label: str, what: str, inside: Callable[[float], bool], kind: str = "") -> float:
    """``value`` as a float: a real number (not a bool; else ``TypeError``: ``label must be <kind>``) for which
    ``inside`` holds (else ``ValueError``: ``label must be <what>``). ``kind`` defaults to ``what``."""
    if not _number(value):
        raise TypeError(f"{label} must be {kind or what}, got {_short(value)}")
    number = _float_or_inf(value)
    if not inside(number):
        raise ValueError(f"{label} must be {what}, got {_short(value)}")
    return number


def check_level(level: Any, field: str = "relevance_level") -> float:
    """A relevance level: any finite number. A judged document is relevant when its grade is ``>= level``;
    an unjudged document never is (as in trec_eval)."""
    return _real(level, field, "a finite number (a grade threshold)", math.isfinite)


def check_gain(gain: Any, field: str = "gain") -> str:
    """A gain: ``"linear"`` (g = rel, trec_eval) or ``"exponential"`` (g = 2**rel - 1)."""
    if not isinstance(gain, str):
        raise TypeError(
            f"{field} must be 'linear' (g = rel) or 'exponential' (g = 2**rel - 1), got {gain!r}"
        )
    if gain not in GAINS:
        raise ValueError(
            f"{field} must be 'linear' (g = rel) or 'exponential' (g = 2**rel - 1), got {gain!r}"
        )
    return gain


MISSING: tuple[str, ...] = ("zero", "skip", "error")
"""The policies for a query of qrels absent from the run: score it 0, leave it out, or refuse the run."""
Missing = Literal["zero", "skip", "error"]  # their type


def check_missing(missing: Any, field: str = "missing") -> Missing:
    """The policy for queries of qrels absent from the run (``"zero"``, ``"skip"`` or ``"error"``), checked: the
    one rule and message of ``evaluate``, ``evaluate_columns`` and the distributed entry points."""
    if not isinstance(missing, str) or missing not in MISSING:
        raise ValueError(f"{field} must be 'zero', 'skip' or 'error', got {missing!r}")
    return cast(Missing, missing)  # one of MISSING, checked above


def _grade_of(value: Any, label: str) -> float:
    """The grade ``value`` of ``label`` (``"qrels['d1']"``, a field name) as a float: a finite number."""
    return _real(value, label, "a finite grade", math.isfinite, "a number (a relevance grade)")


def _score_of(value: Any, label: str) -> float:
    """The score ``value`` of ``label`` (``"run['d1']"``, a field name) as a float: a number, not NaN."""
    if not _number(value):
        raise TypeError(f"{label} must be a numeric score, got {value!r}")
    try:
        score = float(value)
    except OverflowError:  # an int beyond float64: ranking it as +-inf would hide a broken score
        raise ValueError(
            f"{label} is too large for a float64 ({_short(value)}); scores must fit in a float64 to rank by"
        ) from None
    if math.isnan(score):
        raise ValueError(f"{label} is NaN; scores must be numbers to rank by")
    return score


def check_grade(grade: Any, doc: Any, field: str, query_id: Any = None) -> float:
    """A relevance grade of document ``doc`` in ``field``: a finite number."""
    return _grade_of(grade, f"{where(query_id)}{field}[{doc!r}]")


def check_score(score: Any, doc: Any, field: str = "run", query_id: Any = None) -> float:
    """A retrieval score of document ``doc`` in ``field``: a number, not NaN (±inf rank first and last)."""
    return _score_of(score, f"{where(query_id)}{field}[{doc!r}]")


def check_flag(value: Any, field: str) -> bool:
    """An on/off option: ``True`` or ``False`` (numpy booleans too), never a merely truthy value."""
    if isinstance(value, bool):
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    raise TypeError(f"{field} must be True or False, got {value!r}")


def _integer(value: Any) -> bool:
    return not isinstance(value, (bool, np.bool_)) and isinstance(value, numbers.Integral)


def check_count(value: Any, field: str, *, minimum: int = 1, maximum: int | None = None) -> int:
    """A count (resamples, a batch size, workers, shards, ``max_*``): an int from ``minimum`` (default 1) to
    ``maximum`` (default: no bound), returned as a Python int. A bool is not a count.

    Raises
    ------
    TypeError
        When ``value`` is not an int (a float, a string, ``True``).
    ValueError
        When it is below ``minimum`` or above ``maximum``.
    """
    if minimum == 1:
        what = "a positive integer"
    elif minimum == 0:
        what = "a non-negative integer"
    else:
        what = f"an integer >= {minimum}"
    if not _integer(value):
        raise TypeError(f"{field} must be {what}, got {_short(value)}")
    if value < minimum:
        raise ValueError(f"{field} must be {what}, got {_short(value)}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{field} must be {what} of at most {maximum}, got {_short(value)}")
    return int(value)


def check_fraction(value: Any, field: str, *, inclusive: bool = False) -> float:
    """A fraction (a confidence, a probability, a threshold): a number strictly between 0 and 1, or from 0 to
    1 with ``inclusive=True``, returned as a float. A bool is not a number; NaN is outside every range.

    Raises
    ------
    TypeError
        When ``value`` is not a real number.
    ValueError
        When it is outside the range.
    """
    if inclusive:
        return _real(value, field, "a number from 0 to 1", lambda x: 0.0 <= x <= 1.0)
    return _real(value, field, "a number strictly between 0 and 1", lambda x: 0.0 < x < 1.0)


def check_positive(value: Any, field: str, *, unit: str = "") -> float:
    """A positive amount (a timeout, a rate): a finite number above 0, returned as a float. A bool is not one.

    ``unit`` names what the number counts in the message (``"seconds"``).
    """
    what = f"a positive finite number{f' of {unit}' if unit else ''}"
    return _real(value, field, what, lambda x: 0.0 < x < math.inf)


def check_seed(value: Any, field: str = "seed") -> int | None:
    """A random seed: None (fresh entropy) or a non-negative int, the seeds ``numpy.random.default_rng``
    takes, checked here so a bad seed gets this message rather than numpy's. A bool is not a seed."""
    if value is None:
        return None
    if not _integer(value):
        raise TypeError(f"{field} must be None or a non-negative integer, got {_short(value)}")
    if value < 0:
        raise ValueError(f"{field} must be None or a non-negative integer, got {_short(value)}")
    return int(value)


def check_texts(values: Any, field: str, query_id: Any = None) -> list[str]:
    """A list of texts (or ids): any iterable of strings but a string itself or a mapping, as a new list.

    Raises
    ------
    TypeError
        For a single string (``"is a single string; pass a list of texts"``), a mapping or a non-iterable, or
        an item that is not a ``str`` (naming its index).
    """
    if isinstance(values, (str, bytes)):
        raise TypeError(f"{where(query_id)}{field} is a single string; pass a list of texts, e.g. [{values!r:.60}]")
    if isinstance(values, Mapping) or not hasattr(values, "__iter__"):
        raise TypeError(f"{where(query_id)}{field} must be a list of texts, got {type(values).__name__}")
    texts = list(values)
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(f"{where(query_id)}{field}[{i}] must be a str, got {type(text).__name__}: {text!r:.60}")
    return texts


# ---------------------------------------------------------------------------------------------- pydantic types


def _cutoff(value: Any, info: ValidationInfo) -> int | None:
    return check_k(value, info.field_name or "k")


def _level(value: Any, info: ValidationInfo) -> float:
    return check_level(value, info.field_name or "relevance_level")


def _gain(value: Any, info: ValidationInfo) -> str:
    return check_gain(value, info.field_name or "gain")


def _grade(value: Any, info: ValidationInfo) -> float:
    return _grade_of(value, info.field_name or "grade")


def _score(value: Any, info: ValidationInfo) -> float:
    return _score_of(value, info.field_name or "score")


def _flag(value: Any, info: ValidationInfo) -> bool:
    return check_flag(value, info.field_name or "option")


Cutoff = Annotated[int | None, BeforeValidator(_cutoff)]
"""A cutoff: None (the whole ranking) or a positive int."""
RelevanceLevel = Annotated[float, BeforeValidator(_level)]
"""The lowest grade that counts as relevant: any finite number."""
Gain = Annotated[Literal["linear", "exponential"], BeforeValidator(_gain)]
"""The gain of a grade in DCG: ``"linear"`` or ``"exponential"``."""
Grade = Annotated[float, BeforeValidator(_grade)]
"""A relevance grade: a finite number."""
Score = Annotated[float, BeforeValidator(_score)]
"""A retrieval score: a number, not NaN."""
Flag = Annotated[bool, BeforeValidator(_flag)]
"""An on/off option: True or False."""


def plain_error(exc: ValidationError, owner: str = "") -> Exception:
    """The check's own ``ValueError`` inside a pydantic ``ValidationError`` (so every entry point raises the
    same exception with the same message); pydantic's own errors become a ``ValueError``/``TypeError``
    naming the field."""
    error = exc.errors()[0]
    original = (error.get("ctx") or {}).get("error")
    if isinstance(original, (ValueError, TypeError)):
        return original
    field = ".".join(str(part) for part in error.get("loc", ()))
    prefix = f"{owner}: " if owner else ""
    if error.get("type") == "extra_forbidden":
        return ValueError(f"{prefix}unknown option {field!r}")
    kind = TypeError if error.get("type", "").endswith("_type") else ValueError
    return kind(f"{prefix}{field}: {error.get('msg', exc)}")
