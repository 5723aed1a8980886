"""The benchmark report as Markdown and plain text, from the ``report.json`` dictionary."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .left_out import left_out_lines

__all__ = ["sections", "render_markdown", "render_text", "intro_lines", "interval_note"]

Section = tuple[str, list[str], list[list[str]], list[str]]  # title, header, rows, notes


def _f(value: Any) -> str:
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def _with(c: dict, part: str, key: str, value: Any, group: str | None = None) -> str:
    """``value`` formatted, with its interval ``[low, high]`` when the report has intervals (``--ci``)."""
    by = (c.get("intervals") or {}).get(part)
    if not by or not isinstance(value, float):
        return _f(value)
    interval = (by["all"] if group in (None, "all") else by["by_query_type"].get(group, {})).get(key)
    return _f(value) + (f" [{interval['low']:.3f}, {interval['high']:.3f}]" if interval else "")


def interval_note(data: dict) -> list[str]:
    """The note naming the intervals of the means (``[]`` without ``--ci``)."""
    ci = data.get("intervals")
    if not ci:
        return []
    how = {"t": "Student's t", "normal": "normal", "bootstrap": "percentile bootstrap"}.get(ci["method"], ci["method"])
    return [f"[low, high]: the {ci['confidence']:.0%} interval of each mean over its queries ({ci['method']}: "
            f"{how})."]


def _cut(text: str, n: int = 160) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _ks(data: dict) -> list[int]:
    return list(data["provenance"]["settings"]["ks"])


def _retrieval(data: dict) -> Section:
    ks = [k for k in _ks(data) if k in (1, 5, 10)] or _ks(data)[:2]
    keys = [f"{m}@{k}" for m in ("hit_rate", "recall", "precision", "mrr", "ndcg") for k in ks]
    rows = [[name, c["stage"], *[_with(c, "retrieval", k, c["mean"][k]) for k in keys]]
            for name, c in data["configurations"].items()]
    notes = [f"{m}: {d}" for m, d in data["metric_definitions"].items()] + [data["relevance"]] + interval_note(data)
    return ("Retrieval, all evaluated queries", ["configuration", "stage", *keys], rows, notes)


def _by_type(data: dict) -> Section:
    metric = data["headline_metric"]
    types = list(data["query_types"])
    rows = [[name] + [_with(c, "retrieval", metric, c["by_query_type"].get(t, {}).get("mean", {}).get(metric, "-"), t)
                      for t in types] + [_with(c, "retrieval", metric, c["mean"][metric])]
            for name, c in data["configurations"].items()]
    header = ["configuration"] + [f"{t} ({data['query_types'][t]})" for t in types] + ["all"]
    return (f"{metric} by query type", header, rows, interval_note(data))


def _rerank(data: dict) -> Section:
    metric, confs = data["headline_metric"], data["configurations"]
    rows = []
    for name, c in confs.items():
        if c["reranker"]:
            first = confs[f"{c['chunking']}/{c['retriever']}"]
            base = first["mean"][metric]
            rows.append([name, _with(first, "retrieval", metric, base), _with(c, "retrieval", metric, c["mean"][metric]),
                         f"{c['mean'][metric] - base:+.3f}"])
    return (f"Before and after reranking ({metric})", ["configuration", "before", "after", "change"], rows,
            interval_note(data))


def _tests(data: dict) -> Section:
    comparison = data["comparison"] or {"tests": []}

    def adjusted(t: dict) -> float:
        return t["adjusted_p_value"] if t.get("adjusted_p_value") is not None else t["p_value"]

    tests = sorted(comparison["tests"], key=lambda t: (adjusted(t), t["p_value"], -abs(t["difference"])))
    rows = [[t["metric"], t["run_a"], t["run_b"], f"{t['difference']:+.3f}",
             f"[{t['ci_low']:+.3f}, {t['ci_high']:+.3f}]", f"{t['p_value']:.3g}", f"{adjusted(t):.3g}",
             "*" if adjusted(t) < 0.05 else ""] for t in tests[:40]]
    correction = comparison.get("correction")
    if correction and correction["method"] != "none":
        scope = correction.get("scope") or "of this table"
        family = (f"adjusted p: {correction['method']} over the {correction['family_size']} tests {scope}; "
                  f"* = significant {correction['text']}")
    else:
        family = "adjusted p: not corrected; * = p < 0.05"
    notes = [f"difference = B - A; p: paired randomization test; CI: paired bootstrap, 95%; {family}."]
    if correction and tests and correction["method"] != "none":
        cap = tests[0].get("max_permutations") or tests[0]["n_permutations"]  # n_permutations: the draws made
        smallest = min([1.0 / (cap + 1)] + [t["p_value"] for t in tests])  # a bound's p can go below the count's
        if correction["family_size"] * smallest >= correction["alpha"]:
            notes.append(f"No test can reach {correction['alpha']:g} after the correction: the smallest p-value "
                         f"{cap} permutations give is {smallest:.2g}; use more permutations.")
    if len(tests) > 40:
        notes.append(f"{len(tests) - 40} more pairs in report.json.")
    return ("Paired tests between configurations (most significant first)",
            ["metric", "A", "B", "B - A", "95% CI", "p", "adjusted p", ""], rows, notes)


_JUDGED = (("faithfulness", "faithfulness"), ("answer_correctness", "answer correctness"))


def _answers(data: dict) -> Section:
    rows = []
    judged = [(k, label) for k, label in _JUDGED
              if any(k in ((c.get("answers") or {}).get("mean") or {}) for c in data["configurations"].values())]
    for name, c in data["configurations"].items():
        a = c.get("answers") or {}
        groups = [("all", {"mean": a.get("mean"), "measured": a.get("measured")})]
        for group, values in groups + list((a.get("by_query_type") or {}).items()):
            means, measured = (values or {}).get("mean"), (values or {}).get("measured") or {}
            if means:
                row = [name, group] + [_with(c, "answers", k, means[k], group)
                                       for k in ("token_f1", "semantic_similarity")]
                row += [(_with(c, "answers", k, means[k], group) + (f" (n={measured[k]})" if k in measured else ""))
                        if k in means else "-" for k, _ in judged]
                rows.append(row)
    answerer = (data["usage"].get("answerer") or {}).get("name", "-")
    notes = ["semantic similarity: cosine of E5 embeddings; unrelated texts score about 0.75."] + interval_note(data)
    judge = (data.get("judgments") or {}).get("judge")
    if judge:
        notes.append(f"judged by {judge['judge_model']} (prompt {judge['prompt_version']}); means over the answers "
                     "it could judge (n), the others are unmeasured with their reason in report.json")
        notes += [f"warning: {w}" for w in judge.get("warnings") or []]
    return (f"Answers ({answerer})", ["configuration", "query type", "token F1", "semantic similarity"]
            + [label for _, label in judged], rows, notes)


def _human(data: dict) -> Section:
    rows = [[name, metric, _f(r["judge_mean"]), _f(r["estimate"]), f"[{r['low']:.3f}, {r['high']:.3f}]", str(r["n"]),
             f"{r['method']} {r['confidence']:.0%}"]
            for name, c in data["configurations"].items() for metric, r in (c.get("human_labels") or {}).items()]
    human = data.get("human_labels") or {}
    source = human.get("source")
    notes = ["corrected: the judge's or metric's mean corrected with the human labels (PPI++, Angelopoulos et al. "
             "2023), its interval over every scored query" + (f"; labels from {source}" if source else "") + "."]
    notes += [f"not corrected: {name} {metric}: {why}" for name, by in (human.get("not_corrected") or {}).items()
              for metric, why in by.items()]
    return ("Means corrected with human labels", ["configuration", "metric", "judge/metric mean", "corrected",
                                                   "interval", "human labels", "method"], rows, notes)


def _worst(data: dict) -> Section:
    metric, rows = data["headline_metric"], []
    for name, c in data["configurations"].items():
        for w in c["worst_queries"][:3]:
            top = w["retrieved"][0] if w["retrieved"] else None
            rows.append([name, w["query_id"], w["query_type"], _f(w[metric]), _cut(w["query"], 60),
                         _cut(" | ".join(w["evidence"]), 80),
                         _cut(f"[{top['grade']}] {top['text']}", 80) if top else "-"])
    return (f"Worst queries by {metric} (all of them, with chunk texts, in report.json)",
            ["configuration", "query", "type", metric, "question", "evidence", "top chunk [grade]"], rows, [])


def sections(data: dict) -> list[Section]:
    """The report's tables, in order."""
    out = [_retrieval(data), _by_type(data)]
    if any(c["reranker"] for c in data["configurations"].values()):
        out.append(_rerank(data))
    out.append(_tests(data))
    if any(c.get("answers") for c in data["configurations"].values()):
        out.append(_answers(data))
    if data.get("human_labels"):
        out.append(_human(data))
    out.append(_worst(data))
    return out


def intro_lines(data: dict) -> list[str]:
    """The opening line: package version, documents, questions by type, chunkings, configurations, time."""
    p = data["provenance"]
    return [f"rag-eval-adapters {p['version']}: {p['documents']['count']} documents "
            f"(sha256 {p['documents']['sha256'][:12]}), {p['testset']['cases']} questions "
            f"({', '.join(f'{n} {t}' for t, n in data['query_types'].items())}; sha256 {p['testset']['sha256'][:12]}), "
            f"chunkings {', '.join(f'{k} ({v} chunks)' for k, v in p['chunkings'].items())}, "
            f"{len(p['configurations'])} configurations, {data['timings']['total_s']:.1f} s."]


def render_markdown(data: dict) -> str:
    """The report as Markdown: every cell, verdict line, note and title escaped
    (:func:`rag_eval_adapters.reports.escape_markdown`), so texts, questions and ids are shown as written and
    never become links, images or HTML."""
    from ..reports import escape_markdown as esc

    lost = left_out_lines(data)
    lines = ["# rag-eval bench report", "", *map(esc, intro_lines(data)), ""]
    lines += [f"**Left out:** {esc(line)}" + ("  " if i < len(lost) - 1 else "") for i, line in enumerate(lost)]
    lines += [""] * bool(lost) + ["## Verdict", ""]
    lines += [f"- {esc(v)}" for v in data["verdict"]] + [""]
    for title, header, rows, notes in sections(data):
        lines += [f"## {esc(title)}", "", "| " + " | ".join(map(esc, header)) + " |",
                  "|" + "|".join("---" for _ in header) + "|"]
        lines += ["| " + " | ".join(map(esc, r)) + " |" for r in rows]
        lines += [""] + [f"- {esc(n)}" for n in notes] + ([""] if notes else [])
    return "\n".join(lines) + "\n"


def _plain(header: Sequence[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows, strict=False)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    return [fmt.format(*header), fmt.format(*("-" * w for w in widths))] + [fmt.format(*r) for r in rows]


def render_text(data: dict) -> str:
    """The report as plain fixed-width text."""
    lost = [f"Left out: {line}" for line in left_out_lines(data)]
    lines = ["rag-eval bench report", "", *intro_lines(data), "", *lost, *[""] * bool(lost), "Verdict:"]
    lines += [f"  {v}" for v in data["verdict"]]
    for title, header, rows, notes in sections(data):
        lines += ["", title, ""] + (_plain(header, rows) if rows else ["(none)"]) + [f"  {n}" for n in notes]
    return "\n".join(lines) + "\n"
