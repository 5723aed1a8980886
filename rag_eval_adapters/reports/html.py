"""``report.html``: one self-contained page to read a benchmark or an evaluation, from a page-data mapping.

The page holds its styles, its script and its data; charts are inline SVG drawn by the script. It requests
nothing: a Content-Security-Policy forbids every fetch, and lets only the page's own script run (by its
SHA-256), so text from documents, questions, answers or ids can never run as code. The data are embedded as one
``<script type="application/json">`` block in which ``<``, ``>``, ``&``, U+2028 and U+2029 are written as
``\\u003c``-style escapes (no text can close the element), and the script puts every text on the page with
``textContent`` and DOM calls, never as markup.

The page data (:func:`check_page` checks the shape; every key but ``title`` and ``configurations`` is optional):

``title`` : str
    The page's title.
``verdict`` : list of str
    The verdict sentences, first on the page.
``warnings`` : list of str
    Shown under the verdict (e.g. a judge grading its own model's answers).
``left_out`` : list of {``chunking`` or ``configuration``, ``reason``, ``query_ids`` (list of str)}
    Questions left out of a chunking's (configuration's) scores, shown under the verdict, each id a link to
    its question.
``summary`` : list of str
    Lines under the verdict (what was run, on what).
``human_labels`` : list of str
    The means corrected with human labels, one line each, listed under the configurations table.
``interval_note`` : str
    What the intervals under the means are (``"[low, high]: the 95% interval ..."``).
``headline`` : str
    The metric that orders questions (worst first) and the by-type chart, e.g. ``"ndcg@10"``.
``metrics`` : list of str
    The table's metric columns, when ``families`` and ``ks`` do not give them.
``families``, ``ks`` : list of str, list of int
    Metric families (``"ndcg"``) and cutoffs: the table shows every family at one k (a selector picks k) and
    the chart draws each family against k. ``extra_metrics`` (list of str) are columns shown at every k
    (answer metrics).
``query_types`` : {type: number of questions}
``configurations`` : list of {``name``, ``info`` ({label: text}), ``mean`` ({metric: value}), ``by_type``
    ({type: {metric: value}}), ``intervals`` ({metric: [low, high]}, optional: shown under each mean),
    ``intervals_by_type`` ({type: {metric: [low, high]}}, optional)}
``tests`` : list of {``metric``, ``a``, ``b``, ``difference``, ``ci_low``, ``ci_high``, ``p``, ``p_adjusted``
    (optional), ``n``}
    Paired tests, difference = B - A.
``questions`` : list of {``id``, ``text``, ``type``, ``reference``, ``evidence`` (list of str)}
    Each question has an anchor, ``report.html#q003``: its id when that is a plain id (a letter, then
    letters, digits, ``_ . : -``) the page does not use itself, else ``question-N`` (N from 1, in this order);
    opening the page at an anchor opens that question.
``query_metrics`` : list of str
    The metrics of ``per_query``.
``per_query`` : list (one per configuration) of lists (one per question) of ``null`` or values in the order
    of ``query_metrics``.
``chunks`` : {``ids``: list of str, ``texts``: list of str}
``retrieved`` : list (one per configuration) of lists (one per question) of ``null`` or the ranking, best
    first: ``[chunk index, score, grade, [start, end, ...]]``, the offsets marking the evidence inside the
    chunk's text.
``answers`` : list (one per configuration) of lists (one per question) of ``null`` or {``text``, ``scores``
    ({metric: value}), ``error``, ``claims``}; a claim is {``text``, ``verdict``, ``quote``, ``chunk_id``,
    ``start``, ``end``}: the quote that supports it is ``chunk text[start:end]`` of ``chunk_id``.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .html_assets import PAGE_SCRIPT, PAGE_STYLE

__all__ = ["render_html", "write_html_report", "check_page", "json_for_script", "escape_html"]

_JSON_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def escape_html(text: Any) -> str:
    """``text`` as HTML text or attribute value: ``& < > " '`` escaped."""
    return html.escape(str(text), quote=True)


def _finite(value: Any, where: str) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"page data {where}: {value!r} is not a finite number; a report holds no NaN or infinity")
    if isinstance(value, Mapping):
        return {str(k): _finite(v, f"{where}.{k}") for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v, f"{where}[{i}]") for i, v in enumerate(value)]
    return value


def json_for_script(data: Any) -> str:
    """``data`` as JSON safe inside a ``<script>`` element: ``< > &`` and U+2028/2029 written as ``\\uXXXX``.

    Raises ``ValueError`` on a non-finite number, naming where it is.
    """
    try:
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except ValueError:
        _finite(data, "data")  # names where the non-finite number is
        raise
    for char, escaped in _JSON_ESCAPES.items():
        text = text.replace(char, escaped)
    return text


def _require(page: Mapping, key: str, kind: type | tuple, what: str) -> None:
    if key in page and page[key] is not None and not isinstance(page[key], kind):
        raise TypeError(f"page data: {key!r} must be {what}, got {type(page[key]).__name__}")


def _aligned(page: Mapping, key: str, n_configs: int, n_questions: int) -> None:
    table = page.get(key)
    if table is None:
        return
    if not isinstance(table, list) or len(table) != n_configs:
        raise ValueError(f"page data: {key!r} must hold one list per configuration ({n_configs}), "
                         f"got {len(table) if isinstance(table, list) else type(table).__name__}")
    for i, rows in enumerate(table):
        if not isinstance(rows, list) or len(rows) != n_questions:
            raise ValueError(f"page data: {key}[{i}] must hold one entry per question ({n_questions})")


def _check_left_out(entries: list) -> None:
    for i, entry in enumerate(entries):
        if not isinstance(entry, Mapping) or not isinstance(entry.get("query_ids"), list):
            raise TypeError(f"page data: left_out[{i}] must be a mapping with a list 'query_ids'")


def _check_configurations(configs: list) -> None:
    for i, config in enumerate(configs):
        if not isinstance(config, Mapping) or not isinstance(config.get("name"), str):
            raise TypeError(f"page data: configurations[{i}] must be a mapping with a string 'name'")
        for key in ("mean", "intervals", "intervals_by_type"):
            if not isinstance(config.get(key, {}), Mapping):
                raise TypeError(f"page data: configurations[{i}].{key} must be a mapping of metric to value")


def check_page(page: Mapping[str, Any]) -> None:
    """Check the page data's shape (see the module doc); ``TypeError``/``ValueError`` naming the field."""
    if not isinstance(page, Mapping):
        raise TypeError(f"page data must be a mapping, got {type(page).__name__}")
    if not isinstance(page.get("title"), str):
        raise TypeError("page data: 'title' must be a string")
    configs = page.get("configurations")
    if not isinstance(configs, list):
        raise TypeError("page data: 'configurations' must be a list")
    _check_configurations(configs)
    for key in ("summary", "verdict", "tests", "questions", "ks", "families", "metrics", "extra_metrics",
                "query_metrics", "warnings", "human_labels", "left_out"):
        _require(page, key, list, "a list")
    _require(page, "interval_note", str, "a string")
    _check_left_out(page.get("left_out") or [])
    _require(page, "query_types", Mapping, "a mapping")
    _require(page, "chunks", Mapping, "a mapping with 'ids' and 'texts'")
    questions = page.get("questions") or []
    for i, question in enumerate(questions):
        if not isinstance(question, Mapping) or "id" not in question:
            raise TypeError(f"page data: questions[{i}] must be a mapping with an 'id'")
    for key in ("per_query", "retrieved", "answers"):
        _aligned(page, key, len(configs), len(questions))
    chunks = page.get("chunks")
    if chunks is not None and len(chunks.get("ids", ())) != len(chunks.get("texts", ())):
        raise ValueError("page data: chunks.ids and chunks.texts must have the same length")


def _script_hash(script: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")


def render_html(page: Mapping[str, Any]) -> str:
    """The whole self-contained HTML page for ``page`` (see the module doc for its shape)."""
    check_page(page)
    data = json_for_script(page)
    script = "\n" + PAGE_SCRIPT + "\n"
    policy = ("default-src 'none'; style-src 'unsafe-inline'; "
              f"script-src '{_script_hash(script)}'; base-uri 'none'; form-action 'none'")
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f"<meta http-equiv=\"Content-Security-Policy\" content=\"{escape_html(policy)}\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        "<meta name=\"referrer\" content=\"no-referrer\">\n"
        f"<title>{escape_html(page['title'])}</title>\n<style>\n{PAGE_STYLE}\n</style>\n</head>\n<body>\n"
        "<a class=\"skip\" href=\"#main\">Skip to the report</a>\n"
        "<noscript><p>This report draws its tables and charts with JavaScript; the same numbers are in "
        "report.json and report.md.</p></noscript>\n"
        "<main id=\"main\" tabindex=\"-1\"><h1 id=\"page-title\"></h1></main>\n"
        f"<script type=\"application/json\" id=\"report-data\">{data}</script>\n"
        f"<script>{script}</script>\n</body>\n</html>\n"
    )


def write_html_report(page: Mapping[str, Any], path: str | os.PathLike) -> Path:
    """Write :func:`render_html` of ``page`` to ``path`` (UTF-8); returns the path."""
    target = Path(path)
    target.write_text(render_html(page), encoding="utf-8")
    return target
