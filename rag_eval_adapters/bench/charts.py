"""The benchmark's PNG charts: metrics by configuration and query type (grouped bars), metrics against k.

Every series has its own style (colour, dash and marker together: no two lines look alike, however many
configurations there are), legends sit outside the plotting area (they never cover data), and past
:data:`MAX_SERIES` configurations the metrics-against-k chart becomes small multiples: one panel per
configuration, its lines the metrics.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from .scoring import METRIC_DEFINITIONS, headline_metric

__all__ = ["plot_by_type", "plot_vs_k", "by_type_figure", "vs_k_figure", "series_style", "MAX_SERIES"]

MAX_SERIES = 10
"""The most configurations drawn as lines in one panel; more make small multiples."""

_COLORS = [f"C{i}" for i in range(10)]
_DASHES = ["-", "--", ":", "-."]
_MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]


def series_style(index: int) -> dict[str, str]:
    """The style of the ``index``-th series: ``color``, ``linestyle`` and ``marker``; distinct for every index
    below 320 (10 colours x 4 dashes x 8 markers), (colour, dash and the step ``index // 40`` decide it; the first eight also differ in marker)."""
    if index < 0 or index >= len(_COLORS) * len(_DASHES) * len(_MARKERS):
        raise ValueError(f"series index {index} out of range: at most 320 styled series")
    return {"color": _COLORS[index % 10], "linestyle": _DASHES[(index // 10) % 4],
            "marker": _MARKERS[(index % 10 + index // 40) % 8]}


def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _legend_outside(fig: Any, ax: Any, ncol: int = 1) -> None:
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        fig.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8, ncol=ncol,
                   frameon=False)


def _save(fig: Any, path: Path, *, tight: bool = True) -> Path:
    # a tight box includes the legends outside the axes (one more drawing pass); a fixed layout already has them
    fig.savefig(path, dpi=100, bbox_inches="tight" if tight else None)
    _pyplot().close(fig)
    return path


def _fixed_layout(fig: Any, ax: Any) -> None:
    """Margins set in inches, the legend in a column kept free to the right of the panels: the layout of the
    metrics-against-k charts without a measuring pass (their tick labels are the cutoffs, their titles short).
    Legend labels too long for a third of the width get the measured layout and a tight box instead."""
    handles, labels = ax.get_legend_handles_labels()
    width, height = fig.get_size_inches()
    legend_in = 0.6 + 0.075 * max((len(label) for label in labels), default=0)  # a line sample, then the text
    if legend_in > width / 3:
        fig.tight_layout()
        _legend_outside(fig, ax)
        return
    fig.fixed_layout = True  # plot_vs_k saves it as it is
    right = 1.0 - (legend_in + 0.2) / width
    fig.subplots_adjust(left=0.6 / width, right=right, bottom=0.6 / height, top=1.0 - 0.45 / height,
                        wspace=0.25, hspace=0.45)
    if handles:
        fig.legend(handles, labels, loc="upper left", bbox_to_anchor=(right + 0.1 / width, 1.0 - 0.45 / height),
                   fontsize=8, frameon=False)


def by_type_figure(bench: Any) -> Any:
    """The grouped-bar figure of :func:`plot_by_type` (a matplotlib ``Figure``)."""
    plt = _pyplot()
    ks = bench.settings.ks
    metrics = [headline_metric(ks), f"hit_rate@{ks[min(2, len(ks) - 1)]}"]
    types = ["all"] + sorted({c.query_type for c in bench.cases})
    names = [r.name for r in bench.results]
    fig, axes = plt.subplots(len(metrics), 1, figsize=(max(7, 0.6 * len(names) * len(types) / 2 + 3),
                                                       3.6 * len(metrics)), squeeze=False)
    width = 0.8 / len(types)
    for ax, metric in zip(axes[:, 0], metrics, strict=False):
        for i, qtype in enumerate(types):
            values = [r.report.mean[metric] if qtype == "all" else r.by_type.mean(metric).get(qtype, 0.0)
                      for r in bench.results]
            xs = [j + (i - (len(types) - 1) / 2) * width for j in range(len(names))]
            ax.bar(xs, values, width=width, label=qtype, color=_COLORS[i % 10],
                   hatch=["", "//", "..", "xx"][(i // 10) % 4])
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names, rotation=30 if len(names) <= MAX_SERIES else 90, ha="right", fontsize=8)
        ax.set_ylim(0, 1.02)
        ax.set_title(f"{metric} by configuration and query type")
        ax.grid(alpha=0.3, axis="y")
    fig.tight_layout()
    _legend_outside(fig, axes[0, 0])
    return fig


def plot_by_type(bench: Any, path: Path) -> Path:
    """Grouped bars: for the headline metric and hit rate, one group per configuration, one bar per query type."""
    return _save(by_type_figure(bench), path)


def _lines_by_metric(plt: Any, bench: Any, ks: list[int]) -> Any:
    families = list(METRIC_DEFINITIONS)
    ncols = 3
    fig, axes = plt.subplots(math.ceil(len(families) / ncols), ncols, figsize=(15, 8), squeeze=False)
    flat = axes.ravel()
    for ax, family in zip(flat, families, strict=False):
        for i, r in enumerate(bench.results):
            ax.plot(ks, [r.report.mean[f"{family}@{k}"] for k in ks], label=r.name, **series_style(i))
        ax.set_title(f"{family}@k")
        ax.set_xlabel("k")
        ax.set_xticks(ks)
        ax.set_ylim(0, 1.02)
        ax.grid(alpha=0.3)
    for ax in flat[len(families):]:
        ax.set_visible(False)
    _fixed_layout(fig, flat[0])
    return fig


def _panels_by_configuration(plt: Any, bench: Any, ks: list[int]) -> Any:
    families = list(METRIC_DEFINITIONS)
    ncols = 4
    nrows = math.ceil(len(bench.results) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4 * ncols, 3 * nrows), squeeze=False, sharex=True,
                             sharey=True)
    flat = axes.ravel()
    for ax, r in zip(flat, bench.results, strict=False):
        for i, family in enumerate(families):
            ax.plot(ks, [r.report.mean[f"{family}@{k}"] for k in ks], label=family, **series_style(i))
        ax.set_title(r.name, fontsize=8)
        ax.set_xticks(ks)
        ax.set_ylim(0, 1.02)
        ax.grid(alpha=0.3)
    for ax in flat[len(bench.results):]:
        ax.set_visible(False)
    fig.supxlabel("k", y=0.1 / fig.get_size_inches()[1], va="bottom")
    _fixed_layout(fig, flat[0])
    return fig


def vs_k_figure(bench: Any) -> Any:
    """The figure of :func:`plot_vs_k` (a matplotlib ``Figure``): one panel per metric with a line per
    configuration, or, past :data:`MAX_SERIES` configurations, one panel per configuration with a line per metric."""
    plt = _pyplot()
    ks = list(bench.settings.ks)
    if len(bench.results) > MAX_SERIES:
        return _panels_by_configuration(plt, bench, ks)
    return _lines_by_metric(plt, bench, ks)


def plot_vs_k(bench: Any, path: Path) -> Path:
    """Metrics (hit rate, recall, precision, MRR, nDCG) against k, as :func:`vs_k_figure` draws them."""
    fig = vs_k_figure(bench)
    return _save(fig, path, tight=not getattr(fig, "fixed_layout", False))
