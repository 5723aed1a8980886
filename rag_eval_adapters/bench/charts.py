"""The benchmark's PNG charts: metrics by configuration and query type (grouped bars), metrics against k."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from .scoring import METRIC_DEFINITIONS, headline_metric

__all__ = ["plot_by_type", "plot_vs_k"]


def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def plot_by_type(bench: Any, path: Path) -> Path:
    """Grouped bars: for the headline metric and hit rate, one group per configuration, one bar per query type."""
    plt = _pyplot()
    ks = bench.settings.ks
    metrics = [headline_metric(ks), f"hit_rate@{ks[min(2, len(ks) - 1)]}"]
    types = ["all"] + sorted({c.query_type for c in bench.cases})
    names = [r.name for r in bench.results]
    fig, axes = plt.subplots(len(metrics), 1, figsize=(max(7, 1.1 * len(names) + 2), 3.6 * len(metrics)),
                             squeeze=False)
    width = 0.8 / len(types)
    for ax, metric in zip(axes[:, 0], metrics, strict=False):
        for i, qtype in enumerate(types):
            values = [r.report.mean[metric] if qtype == "all" else r.by_type.mean(metric).get(qtype, 0.0)
                      for r in bench.results]
            xs = [j + (i - (len(types) - 1) / 2) * width for j in range(len(names))]
            ax.bar(xs, values, width=width, label=qtype)
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names, rotation=30, ha="right", fontsize=8)
        ax.set_ylim(0, 1.02)
        ax.set_title(f"{metric} by configuration and query type")
        ax.grid(alpha=0.3, axis="y")
        ax.legend(fontsize=8, ncol=len(types))
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def plot_vs_k(bench: Any, path: Path) -> Path:
    """One panel per metric (hit rate, recall, precision, MRR, nDCG), one line per configuration, against k."""
    plt = _pyplot()
    ks = list(bench.settings.ks)
    families = list(METRIC_DEFINITIONS)
    ncols = 3
    fig, axes = plt.subplots(math.ceil(len(families) / ncols), ncols, figsize=(15, 8), squeeze=False)
    flat = axes.ravel()
    for ax, family in zip(flat, families, strict=False):
        for r in bench.results:
            ax.plot(ks, [r.report.mean[f"{family}@{k}"] for k in ks], marker="o", label=r.name,
                    linestyle="--" if r.reranker else "-")
        ax.set_title(f"{family}@k")
        ax.set_xlabel("k")
        ax.set_xticks(ks)
        ax.set_ylim(0, 1.02)
        ax.grid(alpha=0.3)
    flat[0].legend(fontsize=7)
    for ax in flat[len(families):]:
        ax.set_visible(False)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
