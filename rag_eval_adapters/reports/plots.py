"""Drawing mean scores against the cutoff k into a PNG (matplotlib, imported on use)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ._text import split_key

Curves = dict[str, list[tuple[int, str]]]


def _curves(keys: list[str]) -> tuple[Curves, list[str]]:
    """``({metric: [(k, key)...]}, keys without a range of cutoffs)``: a metric measured at two or more cutoffs
    is a curve, sorted by k."""
    curves: Curves = {}
    for key in keys:
        name, k = split_key(key)
        if k is not None:
            curves.setdefault(name, []).append((k, key))
    curves = {n: sorted(pts) for n, pts in curves.items() if len(pts) >= 2}
    in_curve = {key for pts in curves.values() for _, key in pts}
    return curves, [k for k in keys if k not in in_curve]


def _bars(ax: Any, means: Mapping[str, Mapping[str, float]], singles: list[str], titled: bool) -> None:
    runs = list(means)
    width = 0.8 / len(runs)
    for i, run in enumerate(runs):
        xs = [j + (i - (len(runs) - 1) / 2) * width for j in range(len(singles))]
        ax.bar(xs, [means[run][k] for k in singles], width=width, label=run)
    ax.set_xticks(range(len(singles)))
    ax.set_xticklabels(singles, rotation=30, ha="right")
    ax.set_title("metrics without a k range" if titled else "metrics")


def _panel(ax: Any, panel: str, means: Mapping[str, Mapping[str, float]], curves: Curves,
           singles: list[str]) -> None:
    """Draw one panel: ``"__bars__"`` (the metrics without a k range), ``"__all__"`` (every curve of the one
    run) or a metric's name (its curve for every run)."""
    if panel == "__bars__":
        _bars(ax, means, singles, bool(curves))
    elif panel == "__all__":
        run = next(iter(means))
        for name, pts in curves.items():
            ax.plot([k for k, _ in pts], [means[run][key] for _, key in pts], marker="o", label=name)
        ax.set_xlabel("k (cutoff)")
        ax.set_xticks(sorted({k for pts in curves.values() for k, _ in pts}))
        ax.set_title(f"{run}: metric at k")
    else:
        pts = curves[panel]
        for run in means:
            ax.plot([k for k, _ in pts], [means[run][key] for _, key in pts], marker="o", label=run)
        ax.set_xlabel("k (cutoff)")
        ax.set_xticks([k for k, _ in pts])
        ax.set_title(panel)
    ax.set_ylim(0, 1.02)
    ax.set_ylabel("mean score")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)


def plot_metrics(
    means: Mapping[str, Mapping[str, float]],
    path: str | Path,
    *,
    title: str | None = None,
) -> Path:
    """Draw each metric against k and write a PNG to ``path``; returns the path.

    ``means`` is ``{run_name: {metric_key: value}}``.  With one run, every metric measured at two or
    more cutoffs is a line on one axes; with several runs, each metric gets its own panel with one
    line per run.  Metrics without a range of cutoffs are drawn as (grouped) bars in a last panel.
    """
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    runs = list(means)
    if not runs:
        raise ValueError("nothing to plot: no runs given")
    curves, singles = _curves(list(means[runs[0]]))
    if len(runs) == 1:
        panels = (["__all__"] if curves else []) + (["__bars__"] if singles else [])
    else:
        panels = list(curves) + (["__bars__"] if singles else [])
    ncols = min(3, len(panels))
    nrows = math.ceil(len(panels) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(5.2 * ncols, 3.8 * nrows), squeeze=False)
    flat = axes.ravel()
    for ax, panel in zip(flat, panels, strict=False):
        _panel(ax, panel, means, curves, singles)
    for ax in flat[len(panels):]:
        ax.set_visible(False)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    out = Path(path)
    if out.parent and not out.parent.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
