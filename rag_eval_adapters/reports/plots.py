"""Drawing mean scores against the cutoff k into a PNG (matplotlib, imported on use)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path

from ._text import split_key


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
    keys = list(means[runs[0]])
    curves: dict[str, list[tuple[int, str]]] = {}
    for key in keys:
        name, k = split_key(key)
        if k is not None:
            curves.setdefault(name, []).append((k, key))
    curves = {n: sorted(pts) for n, pts in curves.items() if len(pts) >= 2}
    in_curve = {key for pts in curves.values() for _, key in pts}
    singles = [k for k in keys if k not in in_curve]

    if len(runs) == 1:
        panels = (["__all__"] if curves else []) + (["__bars__"] if singles else [])
    else:
        panels = list(curves) + (["__bars__"] if singles else [])
    ncols = min(3, len(panels))
    nrows = math.ceil(len(panels) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(5.2 * ncols, 3.8 * nrows), squeeze=False)
    flat = axes.ravel()
    for ax, panel in zip(flat, panels, strict=False):
        if panel == "__bars__":
            width = 0.8 / len(runs)
            for i, run in enumerate(runs):
                xs = [j + (i - (len(runs) - 1) / 2) * width for j in range(len(singles))]
                ax.bar(xs, [means[run][k] for k in singles], width=width, label=run)
            ax.set_xticks(range(len(singles)))
            ax.set_xticklabels(singles, rotation=30, ha="right")
            ax.set_title("metrics without a k range" if curves else "metrics")
        elif panel == "__all__":
            run = runs[0]
            for name, pts in curves.items():
                ax.plot([k for k, _ in pts], [means[run][key] for _, key in pts], marker="o", label=name)
            ax.set_xlabel("k (cutoff)")
            ax.set_xticks(sorted({k for pts in curves.values() for k, _ in pts}))
            ax.set_title(f"{run}: metric at k")
        else:
            pts = curves[panel]
            for run in runs:
                ax.plot([k for k, _ in pts], [means[run][key] for _, key in pts], marker="o", label=run)
            ax.set_xlabel("k (cutoff)")
            ax.set_xticks([k for k, _ in pts])
            ax.set_title(panel)
        ax.set_ylim(0, 1.02)
        ax.set_ylabel("mean score")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
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
