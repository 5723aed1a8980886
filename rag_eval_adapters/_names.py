"""Metric names: ours, trec_eval's and ir_measures', read into metric objects of the registry.

One rule: a name is ``BASE[_OPTION...][(PARAM=VALUE,...)][@k]`` or trec_eval's ``BASE_k``, case-insensitive.
``BASE`` is a registry name or alias (:data:`rag_eval_adapters.measures.METRICS`); options are ``_granular``,
``_exp`` and ``_rel<N>``; parameters are ir_measures' ``rel=N``, ``gain=...``/``dcg=exp-log2`` and
``granular=true``. The metric is labelled with the name as given, so a report reads it back under that name.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from typing import Any, cast

from ._registry import METRICS, Metric, names_of, unknown_name

__all__ = ["MetricLike", "parse_metric", "parse_metrics"]

MetricLike = str | Metric

_OPTION_TOKENS: dict[str, dict[str, Any]] = {
    "granular": {"granular": True},
    "exp": {"gain": "exponential"},
    "exponential": {"gain": "exponential"},
}
_REL_TOKEN = re.compile(r"^rel(\d+(?:\.\d+)?)$")
_PATTERN = re.compile(r"^(?P<body>[A-Za-z][\w\-]*?)(?:\((?P<params>[^()]*)\))?(?:@(?P<k>\d+))?$")
_TREC_CUT = re.compile(r"^(?P<body>.+?)_(?P<k>\d+)$")
_DCG = {"log2": "linear", "exp-log2": "exponential", "linear": "linear", "exponential": "exponential"}
_BOOL = {"true": True, "false": False, "1": True, "0": False}


def _lookup() -> dict[str, type[Metric]]:
    # the retrieval family registers Metric subclasses only (measures.py)
    return {name: cast("type[Metric]", cls) for name, (cls, _) in names_of("retrieval").items()}


def parse_metric(spec: MetricLike) -> Metric:
    """A metric object from a name such as ``"ndcg@10"``, ``"P_5"``, ``"nDCG@10"``, ``"P(rel=2)@5"``.

    A metric object is returned as it is. A name is labelled as given (whitespace stripped), so
    ``evaluate(..., ["map@100"]).mean["map@100"]`` reads it back.

    Raises
    ------
    ValueError
        An unknown name (suggesting the closest valid one and listing the valid names) or an invalid option.
    TypeError
        ``spec`` is neither a string nor a metric.
    """
    if isinstance(spec, Metric):
        return spec
    if not isinstance(spec, str):
        raise TypeError(f"a metric is a name such as 'ndcg@10' or a Metric object, got {spec!r}")
    text = spec.strip()
    match = _PATTERN.match(text)
    if match is None:
        raise ValueError(_unknown(spec, text.lower(), None))
    body, k = match["body"].lower(), match["k"]
    cut = _TREC_CUT.match(body)
    if cut is not None and _resolve(cut["body"]) is not None:
        if k is not None:
            raise ValueError(f"metric {spec!r} gives two cutoffs; write {cut['body']}@{k} or {body}")
        body, k = cut["body"], cut["k"]
    resolved = _resolve(body)
    if resolved is None:
        raise ValueError(_unknown(spec, body, k))
    cls, options = resolved
    options.update(_params(spec, match["params"]))
    unknown = [name for name in options if name not in cls.model_fields]
    if unknown:
        raise ValueError(f"metric {spec!r}: {cls.name} has no option {unknown[0]!r}. " + _valid())
    if k is not None:
        options["k"] = int(k)
    try:
        metric = cls(**options)
    except (ValueError, TypeError) as exc:
        raise type(exc)(f"metric {spec!r}: {exc}") from None
    return metric.labelled(text)


def parse_metrics(specs: MetricLike | Iterable[MetricLike] | None) -> list[Metric]:
    """Metric objects from names and/or objects, repeated labels dropped, order kept."""
    if specs is None:
        raise TypeError("metrics is None: name at least one metric, e.g. ['ndcg@10', 'mrr']. " + _valid())
    if isinstance(specs, (str, Metric)):
        specs = [specs]
    out: dict[str, Metric] = {}
    for spec in specs:
        metric = parse_metric(spec)
        out.setdefault(metric.label, metric)
    if not out:
        raise ValueError("no metric given: name at least one, e.g. 'ndcg@10'. " + _valid())
    return list(out.values())


def _resolve(body: str) -> tuple[type[Metric], dict[str, Any]] | None:
    """The metric class and options of ``body`` (a name, then option tokens), or None."""
    tokens = body.split("_")
    lookup = _lookup()
    for i in range(len(tokens), 0, -1):
        cls = lookup.get("_".join(tokens[:i]))
        if cls is None:
            continue
        options: dict[str, Any] = {}
        for token in tokens[i:]:
            rel = _REL_TOKEN.match(token)
            if token in _OPTION_TOKENS:
                options.update(_OPTION_TOKENS[token])
            elif rel is not None:
                options["rel"] = float(rel[1])
            else:
                return None
        return cls, options
    return None


def _params(spec: str, text: str | None) -> dict[str, Any]:
    """ir_measures' parameters: ``rel=2``, ``gain=exponential``, ``dcg=exp-log2``, ``granular=true``."""
    out: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in (text or "").split(","))):
        name, sep, value = (part.strip().strip("'\"") for part in item.partition("="))
        name = name.lower()
        if not sep:
            raise ValueError(f"metric {spec!r}: a parameter is written name=value, got {item!r}")
        if name == "rel":
            try:
                out["rel"] = float(value)
            except ValueError:
                raise ValueError(f"metric {spec!r}: rel must be a number, got {value!r}") from None
        elif name in ("gain", "dcg") and value.lower() in _DCG:
            out["gain"] = _DCG[value.lower()]
        elif name == "granular" and value.lower() in _BOOL:
            out["granular"] = _BOOL[value.lower()]
        else:
            raise ValueError(
                f"metric {spec!r}: unknown parameter {item!r}; parameters are rel=N, gain=linear|exponential "
                "(or ir_measures' dcg=log2|exp-log2) and granular=true|false"
            )
    return out


def _valid() -> str:
    aliases = "; ".join(f"{cls.name}: {', '.join(_distinct(cls.aliases))}" for cls in METRICS.values() if cls.aliases)
    granular = " and ".join(cls.name for cls in METRICS.values() if "granular" in cls.model_fields)
    gain = " and ".join(cls.name for cls in METRICS.values() if "gain" in cls.model_fields)
    return (
        f"Valid metrics: {', '.join(sorted(METRICS))} (aliases: {aliases}), each optionally with '@k' "
        "(or trec_eval's '_k': P_5, ndcg_cut_10); "
        f"options: '_granular' for {granular}, '_exp' for {gain}, '(rel=N)' or '_relN' for the others "
        "(e.g. 'hit_rate@3', 'ndcg_exp@10', 'P(rel=2)@5')"
    )


def _distinct(names: Iterable[str]) -> list[str]:
    """``names`` without case-insensitive repeats, first spelling kept."""
    seen: dict[str, str] = {}
    for name in names:
        seen.setdefault(name.lower(), name)
    return list(seen.values())


def _unknown(spec: str, body: str, k: str | None) -> str:
    candidates = sorted(_lookup()) + [
        f"{cls.name}{suffix}" for cls in METRICS.values() for field, suffix in (("granular", "_granular"),
                                                                               ("gain", "_exp"))
        if field in cls.model_fields
    ]
    close = difflib.get_close_matches(body, candidates, n=1, cutoff=0.5)
    hint = f" (did you mean {close[0] + ('' if k is None else f'@{k}')!r}?)" if close else ""
    claimed = unknown_name("retrieval", body)  # another family's name, when that family is loaded
    if claimed:
        hint = f" ({claimed})"
    return (f"unknown metric {spec!r}{hint}. " + _valid()
            + ". Answer metrics (the registry's answer family) are scored by rag_eval_adapters.answers.evaluate_answers")
