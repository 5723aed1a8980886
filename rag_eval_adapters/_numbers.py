"""The numbers a file may hold: one grammar for grades and scores, whatever the reader or its engine.

* a grade is an integer (``[+-]digits``, within the 64-bit range) or a finite decimal number
  (``1.5``, ``2e0``); hexadecimal, ``1_000``, non-ASCII digits, ``inf`` and ``nan`` are refused
  (trec_eval would read ``0x1`` as 0 and ``1_000`` as 1: a silent wrong grade);
* a score is a decimal number, or ``inf``/``infinity`` with an optional sign (case-insensitive);
  ``nan`` is refused. A decimal too large for a float (``1e400``) reads as infinity, as C's
  ``atof`` (trec_eval) reads it.

Numbers already typed (JSON, Parquet) follow the same rule: a grade is a finite number within
the 64-bit integer range, a score any float but NaN that a float can hold.
"""

from __future__ import annotations

import math
import re

INT64_MAX = 2**63 - 1

INT_PATTERN = r"[+-]?[0-9]+"
DECIMAL_PATTERN = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
SCORE_PATTERN = rf"(?:{DECIMAL_PATTERN}|[+-]?(?i:inf|infinity))"

_DECIMAL = re.compile(DECIMAL_PATTERN, re.ASCII)

GRADE_RULE = "a grade is an integer or a finite decimal number such as 2 or 1.5"
SCORE_RULE = "a score is a decimal number such as 3.25 or -1e-3 (or inf)"


def parse_grade(text: str) -> int | float:
    """The grade written as ``text``; ValueError saying why not."""
    # int() and float() take the grammar and more: non-ASCII digits, 1_000, inf, nan (refused below)
    if _plain(text):
        try:
            value = int(text)
        except ValueError:
            try:
                number = float(text)
            except ValueError:
                pass
            else:
                if math.isfinite(number):
                    return number
                if _DECIMAL.fullmatch(text):
                    raise ValueError(f"the grade {_short(text)} is out of range") from None
        else:
            if abs(value) > INT64_MAX:
                raise ValueError(f"the grade {_short(text)} is out of range (at most {INT64_MAX} in size)")
            return value
    raise ValueError(f"the grade {_short(text)} is not a number ({GRADE_RULE})")


def parse_score(text: str) -> float:
    """The score written as ``text``; ValueError saying why not."""
    if _plain(text):
        try:
            value = float(text)
        except ValueError:
            pass
        else:
            if value == value:  # not NaN
                return value
    raise ValueError(f"the score {_short(text)} is not a number ({SCORE_RULE})")


def _plain(text: str) -> bool:
    """No character that int()/float() take beyond the grammar: non-ASCII, ``_``, surrounding blanks."""
    return text.isascii() and "_" not in text and text.strip() == text


def check_grade(value: object) -> int | float:
    """A typed grade (JSON, Parquet): a finite int or float within the 64-bit integer range."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"the grade {_short(repr(value), quoted=True)} is not a number ({GRADE_RULE})")
    if isinstance(value, float) and not math.isfinite(value) or abs(value) > INT64_MAX:
        raise ValueError(f"the grade {_short(repr(value), quoted=True)} is out of range (at most {INT64_MAX} in size)")
    return value


def check_score(value: object, *, finite: bool = False) -> float:
    """A typed score as a float: any number a float holds but NaN (only finite ones when ``finite``)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"the score {_short(repr(value), quoted=True)} is not a number")
    try:
        number = float(value)
    except OverflowError:
        raise ValueError(f"the score {_short(repr(value), quoted=True)} is out of range of a float") from None
    if math.isnan(number) or (finite and not math.isfinite(number)):
        raise ValueError(f"the score {_short(repr(value), quoted=True)} must be a finite number")
    return number


def _short(text: str, quoted: bool = False) -> str:
    """``text`` quoted (unless it is already), cut to 40 characters (a 400-digit number would drown the message)."""
    if len(text) > 40:
        return repr(text[:30]) + f"... ({len(text)} characters)"
    return text if quoted else repr(text)


def shown(value: object) -> str:
    """``repr(value)`` cut to 40 characters."""
    return _short(repr(value), quoted=True)
