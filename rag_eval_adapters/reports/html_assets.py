"""The style sheet and the script of ``report.html`` (see :mod:`rag_eval_adapters.reports.html`).

Both are package data files, ``reports/assets/report.css`` and ``reports/assets/report.js``, read once with
:mod:`importlib.resources` (so they work from a wheel, a zip or a checkout alike).

The script reads the page data from the ``report-data`` JSON block and builds the page with DOM calls only
(``textContent``, ``setAttribute`` of non-URL attributes, ``createElementNS`` for SVG): no data is ever parsed
as markup. When the page is built it marks ``report-ready`` in the performance timeline and sets ``data-ready``
on the root element (what the tests and ``benchmarks/bench_html.py`` wait for).
"""

from __future__ import annotations

from importlib import resources

__all__ = ["PAGE_STYLE", "PAGE_SCRIPT", "PALETTE", "asset_text"]

# Okabe-Ito, without its yellow (too pale on white); each series also gets its own marker and dash.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")


def asset_text(name: str) -> str:
    """The text of the package data file ``reports/assets/<name>`` (UTF-8).

    Raises ``FileNotFoundError`` naming the file when the package was installed without it.
    """
    source = resources.files("rag_eval_adapters.reports") / "assets" / name
    if not source.is_file():
        raise FileNotFoundError(f"report.html asset {name!r} is missing from the installed package "
                                f"(rag_eval_adapters/reports/assets/{name}); reinstall rag-eval-adapters")
    return source.read_text(encoding="utf-8")


PAGE_STYLE = "\n" + asset_text("report.css")
PAGE_SCRIPT = "\n" + asset_text("report.js").replace(
    "__PALETTE__", "[" + ", ".join(f'"{c}"' for c in PALETTE) + "]")
if "</script" in PAGE_SCRIPT.lower():  # the script sits inside a <script> element
    raise ValueError("report.js must not contain '</script'")
