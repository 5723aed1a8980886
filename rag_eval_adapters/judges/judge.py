""":class:`LLMJudge`: relevance (0-3), faithfulness and answer correctness from any chat LLM, a result for
every item."""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any

from ..answers.abstention import is_abstention
from ..answers.record import FIELD_NAMES
from ..modelcalls import (
    LLM_PROVIDERS,
    CallCache,
    CallLimiter,
    ModelCallError,
    Prices,
    RetryPolicy,
    Usage,
    UsageMeter,
    as_chat_llm,
    open_cache,
)
from ..progress import progress_bar
from ..validation import check_count, check_positive, check_seed
from .calls import FATAL_STATUS, NotCached, StructuredCaller, estimate_tokens
from .claims import check_claims, extract_claims
from .items import as_chunks, optional_text, text_field
from .prompts import CLAIMS_PROMPT, PROMPT_VERSION, RELEVANCE_PROMPT, VERIFY_PROMPT, relevance_messages
from .results import JudgeResult
from .schemas import ClaimsReply, RelevanceReply

__all__ = ["LLMJudge", "JUDGE_METRICS", "self_preference_warning"]

#: the judged metrics, and the fields each reads from an item (first name found wins)
JUDGE_METRICS = ("relevance", "faithfulness", "answer_correctness")
_QUESTION = FIELD_NAMES["question"]  # the names of each field: the answer records' one table
_ANSWER = FIELD_NAMES["prediction"]
_REFERENCE = FIELD_NAMES["references"]
_PASSAGE = ("passage", "text", "context")
_RELEVANCE_OUT, _CLAIM_OUT = 40, 45  # dry-run estimate of completion tokens: a grade; one claim's verdict


def _model_key(name: str) -> str:
    """The model of ``name`` without provider prefix (``openai:``, ``openai/``, ``org/``), case and date or
    ``latest`` suffix."""
    base = name.strip().lower()
    provider, sep, rest = base.partition(":")
    if sep and provider in LLM_PROVIDERS:
        base = rest
    base = base.rsplit("/", 1)[-1]
    return re.sub(r"[-_:@](\d{4}-?\d{2}-?\d{2}|latest|\d{8})$", "", base)


def self_preference_warning(judge_model: str, answer_model: str | None) -> str | None:
    """A warning when the judge is the model that wrote the answers (LLM judges prefer their own text), else
    None. Names are compared without provider prefixes, case and date or ``latest`` suffixes."""
    if not answer_model or _model_key(judge_model) != _model_key(answer_model):
        return None
    return (f"the judge {judge_model!r} also wrote the answers ({answer_model!r}): LLM judges favour their own "
            "text (self-preference bias); judge with another model family")


class LLMJudge:
    """An LLM as a judge of relevance, faithfulness and answer correctness.

    Parameters
    ----------
    llm : ChatLLM, LlamaIndex LLM or LangChain chat model
        E.g. ``OpenAICompatibleLLM("gpt-4o-mini")`` or any OpenAI-compatible server through ``base_url``.
    cache : path or CallCache, optional
        Replies keyed by prompt version, model and inputs (an SQLite path keeps them): a re-run sends no
        request and gives identical numbers; an interrupted batch resumes.
    max_concurrency : int
        Calls in flight at once (one :class:`~rag_eval_adapters.modelcalls.CallLimiter` for every call).
    max_per_second : float, optional
        Start-rate limit of the calls.
    max_retries, retry_base_delay, timeout :
        Retries of 429, 5xx and timeouts (waiting what ``retry-after`` asks), seconds per call.
    prices : Prices, optional
        Prices per million tokens, for :attr:`usage` ``.cost``.
    seed : int or None
        Sent with every call where the chat model takes a seed (temperature is always 0 where it takes one).
    structured : str
        ``auto`` (the API's JSON-schema output when the chat model takes ``response_format``, falling back to
        the prompt when the server rejects it), ``json_schema`` or ``prompt``.
    progress : bool, optional
        A progress bar for batches (default: on a terminal, unless ``TQDM_DISABLE`` says no).
    """

    def __init__(self, llm: Any, *, cache: CallCache | str | os.PathLike[str] | None = None,
                 max_concurrency: int = 8, max_per_second: float | None = None, max_retries: int = 4,
                 retry_base_delay: float = 0.5, timeout: float | None = 120.0, prices: Prices | None = None,
                 seed: int | None = 0, structured: str = "auto", progress: bool | None = None) -> None:
        if prices is not None and not isinstance(prices, Prices):
            raise TypeError("prices must be a rag_eval_adapters.modelcalls.Prices(input_per_million, output_per_million)")
        seed = check_seed(seed)
        max_concurrency = check_count(max_concurrency, "max_concurrency")
        if timeout is not None:
            timeout = check_positive(timeout, "timeout", unit="seconds")
        self.llm = as_chat_llm(llm)
        self.cache = open_cache(cache)
        self.max_concurrency = max_concurrency
        self.limiter = CallLimiter(max_concurrency, max_per_second)
        self.meter = UsageMeter(prices)
        self.progress = progress
        self.caller = StructuredCaller(self.llm, self.cache, RetryPolicy(max_retries, retry_base_delay), self.limiter,
                                       self.meter, timeout, seed, structured)

    def __repr__(self) -> str:
        return f"LLMJudge({self.llm!r}, prompt_version={PROMPT_VERSION!r})"

    @property
    def name(self) -> str:
        """The judge model's name."""
        return self.llm.name

    @property
    def prompt_version(self) -> str:
        """The version of the judges' prompts (part of every cache key)."""
        return PROMPT_VERSION

    @property
    def usage(self) -> Usage:
        """Calls, cache hits, retries, failures, tokens and cost so far."""
        return self.meter.usage

    def share_limiter(self, limiter: CallLimiter) -> None:
        """Make every call of this judge go through ``limiter`` (e.g. one rate limit shared by the judges of
        several processes); it replaces the judge's own."""
        if not isinstance(limiter, CallLimiter):
            raise TypeError(f"limiter must be a CallLimiter, got {type(limiter).__name__}")
        self.limiter = self.caller.limiter = limiter

    def describe(self, answer_model: str | None = None) -> dict[str, Any]:
        """What every report names: ``judge_model``, ``prompt_version``, ``structured_output``, ``temperature``
        and ``seed`` as sent (a chat model that takes neither keeps its own temperature, reported here, and no
        seed), and ``warnings`` (self-preference, when ``answer_model`` is the judge)."""
        warning = self_preference_warning(self.name, answer_model)
        sent = self.caller.params  # what the calls send (and their cache keys name)
        return {"judge_model": self.name, "prompt_version": PROMPT_VERSION, "structured_output": self.caller.mode,
                "temperature": sent["temperature"], "seed": sent["seed"], "warnings": [warning] if warning else []}

    # ------------------------------------------------------------------ one item
    def relevance(self, query: str, passage: str) -> JudgeResult:
        """The passage's grade for the query: 0 unrelated, 1 related but does not answer, 2 partly answers,
        3 answers it (``score`` = grade / 3)."""
        given = optional_text(query, "query", "relevance"), optional_text(passage, "passage", "relevance")
        return self._relevance(given[0] or "", given[1] or "")

    def _relevance(self, query: str, passage: str) -> JudgeResult:
        if not query.strip() or not passage.strip():
            return JudgeResult.failed("relevance", "empty_input", "the query or the passage is empty")
        outcome = self.caller.ask(relevance_messages(query, passage), RelevanceReply, "relevance grade")
        reply = outcome.reply
        if not isinstance(reply, RelevanceReply):
            return JudgeResult.failed("relevance", outcome.reason or "invalid_output", outcome.detail)
        return JudgeResult("relevance", reply.grade / 3, grade=reply.grade, reasoning=reply.reasoning)

    def faithfulness(self, answer: str, contexts: Any, question: str | None = None) -> JudgeResult:
        """Supported claims / claims of ``answer`` against ``contexts`` (strings, ``{chunk_id: text}`` or
        ``{"chunk_id", "text"}`` mappings); each supported claim keeps its chunk id and located quote."""
        where = "faithfulness"
        return self._faithfulness(optional_text(answer, "answer", where) or "", as_chunks(contexts, where),
                                  optional_text(question, "question", where))

    def _faithfulness(self, answer: str, chunks: list[tuple[str, str]], question: str | None) -> JudgeResult:
        metric = "faithfulness"
        if not answer.strip():
            return JudgeResult.failed(metric, "empty_answer", "the answer is empty")
        if is_abstention(answer):
            return JudgeResult.failed(metric, "no_claims", "the answer abstains", abstained=True)
        chunks = [c for c in chunks if c[1].strip()]
        if not chunks:
            return JudgeResult.failed(metric, "empty_input", "no context to check the answer against")
        claims = extract_claims(self.caller, answer, question, "the answer")
        if not isinstance(claims.reply, ClaimsReply):
            return JudgeResult.failed(metric, claims.reason or "invalid_output", claims.detail,
                                      abstained=claims.reason == "no_claims")
        checked = check_claims(self.caller, claims.reply.claims, chunks, "the answer's claims")
        if checked.reason is not None:
            return JudgeResult.failed(metric, checked.reason, checked.detail)
        return JudgeResult(metric, checked.supported_share, claims=checked.verdicts)

    def correctness(self, answer: str, reference: str, question: str | None = None, *,
                    answerable: bool | None = None) -> JudgeResult:
        """F1 of claim precision (the answer's claims supported by the reference) and claim recall (the
        reference's claims supported by the answer); ``parts`` holds all three. An answer that abstains scores 0
        against a reference; with ``answerable=False`` (no answer exists) an abstention scores 1 and any other
        answer 0, without a reference."""
        where = "answer_correctness"
        return self._correctness(optional_text(answer, "answer", where) or "",
                                 optional_text(reference, "reference", where) or "",
                                 optional_text(question, "question", where), answerable)

    def abstains(self, answer: str, question: str | None = None) -> bool | JudgeResult:
        """Whether ``answer`` abstains: the lexical fast path (:func:`~rag_eval_adapters.answers.is_abstention`),
        else the judge's claim split finding no claim; the failed result when that call fails."""
        if is_abstention(answer):
            return True
        claims = extract_claims(self.caller, answer, question, "the answer")
        if claims.reply is None and claims.reason != "no_claims":
            return JudgeResult.failed("answer_correctness", claims.reason or "invalid_output", claims.detail)
        return claims.reply is None

    def _correctness(self, answer: str, reference: str, question: str | None,
                     answerable: bool | None = None) -> JudgeResult:
        metric = "answer_correctness"
        if not answer.strip():
            return JudgeResult.failed(metric, "empty_answer", "the answer is empty")
        if answerable is False:
            abstained = self.abstains(answer, question)
            if isinstance(abstained, JudgeResult):
                return abstained
            value = 1.0 if abstained else 0.0
            return JudgeResult(metric, value, parts={"precision": value, "recall": value, "f1": value},
                               abstained=abstained, detail="the question has no answer (answerable: false)")
        if not reference.strip():
            return JudgeResult.failed(metric, "empty_input", "the reference is empty")
        if is_abstention(answer):
            return _abstained_correctness()
        sides = []
        for text, other, name, other_name in ((answer, reference, "the answer", "reference"),
                                              (reference, answer, "the reference", "answer")):
            claims = extract_claims(self.caller, text, question, name)
            if claims.reply is None and claims.reason == "no_claims" and text is answer:
                return _abstained_correctness()
            if not isinstance(claims.reply, ClaimsReply):
                return JudgeResult.failed(metric, claims.reason or "invalid_output", claims.detail)
            checked = check_claims(self.caller, claims.reply.claims, [(other_name, other)], f"{name}'s claims")
            if checked.reason is not None:
                return JudgeResult.failed(metric, checked.reason, checked.detail)
            sides.append(checked)
        precision, recall = sides[0].supported_share, sides[1].supported_share
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        return JudgeResult(metric, f1, claims=sides[0].verdicts, reference_claims=sides[1].verdicts,
                           parts={"precision": precision, "recall": recall, "f1": f1})

    # ------------------------------------------------------------------ many items
    def _prepared(self, metric: str, items: Iterable[Mapping[str, Any]]) -> list[Callable[[], JudgeResult]]:
        if metric not in JUDGE_METRICS:
            raise ValueError(f"metric must be one of {', '.join(JUDGE_METRICS)}, got {metric!r}")
        if isinstance(items, (Mapping, str, bytes)):
            raise TypeError("items must be an iterable of mappings (one per item), not a single mapping or string")
        jobs: list[Callable[[], JudgeResult]] = []
        for i, item in enumerate(items):
            where = f"item {i}" + (f" (query {item['query_id']!r})" if isinstance(item, Mapping)
                                   and "query_id" in item else "")
            if not isinstance(item, Mapping):
                raise TypeError(f"{where} must be a mapping, got {type(item).__name__}")
            question = text_field(item, _QUESTION, where, required=metric == "relevance")
            if metric == "relevance":
                jobs.append(partial(self._relevance, question or "", text_field(item, _PASSAGE, where) or ""))
                continue
            answer = text_field(item, _ANSWER, where) or ""
            if metric == "faithfulness":
                jobs.append(partial(self._faithfulness, answer, as_chunks(item.get("contexts"), where), question))
            else:
                answerable = item.get("answerable")
                reference = text_field(item, _REFERENCE, where, required=answerable is not False) or ""
                jobs.append(partial(self._correctness, answer, reference, question, answerable))
        return jobs

    def judge_many(self, metric: str, items: Iterable[Mapping[str, Any]]) -> list[JudgeResult]:
        """One :class:`JudgeResult` per item, in order, judged concurrently.

        Items are mappings: ``relevance`` reads ``query``/``question`` and ``passage``/``text``;
        ``faithfulness`` reads ``answer``/``prediction``, ``contexts`` and optionally ``question``;
        ``answer_correctness`` reads the answer, ``reference`` and optionally ``question``. A failed item is an
        unmeasured result, never an exception; only a configuration error (HTTP 401/403/404) stops the batch.
        Interrupted (Ctrl-C), the calls in flight finish and are cached, so a re-run with the same cache
        resumes without paying twice.

        Raises
        ------
        ValueError, TypeError
            A malformed item (naming it and the field), before any call is made.
        """
        return self._run(metric, self._prepared(metric, items))

    def context_relevance(self, items: Sequence[tuple[str, Sequence[str]]]) -> list[JudgeResult]:
        """For each ``(question, passages)``, the mean relevance grade / 3 of its passages, judged concurrently
        (unmeasured ``empty_input`` without a passage, or with the first passage's reason when none was graded)."""
        graded = iter(self.judge_many("relevance", [{"query": q, "passage": p} for q, ps in items for p in ps]))
        out = []
        for _, passages in items:
            mine = [next(graded) for _ in passages]
            scores = [g.score for g in mine if g.score is not None]
            if scores:
                out.append(JudgeResult("relevance", sum(scores) / len(scores)))
            elif not mine:
                out.append(JudgeResult.failed("relevance", "empty_input", "no context to grade"))
            else:
                out.append(JudgeResult.failed("relevance", mine[0].unmeasured or "invalid_output", mine[0].detail))
        return out

    def _run(self, metric: str, jobs: Sequence[Callable[[], JudgeResult]]) -> list[JudgeResult]:
        def safe(job: Callable[[], JudgeResult]) -> JudgeResult:
            try:
                return job()
            except ModelCallError as exc:
                if exc.status_code in FATAL_STATUS:
                    raise
                return JudgeResult.failed(metric, "call_failed", str(exc)[:500])
            except Exception as exc:  # noqa: BLE001 - one item's failure never aborts the batch
                return JudgeResult.failed(metric, "call_failed", f"{type(exc).__name__}: {exc}"[:500])

        if len(jobs) <= 1:
            return [safe(job) for job in jobs]
        pool = ThreadPoolExecutor(max_workers=min(self.max_concurrency, len(jobs)), thread_name_prefix="judge")
        futures = [pool.submit(safe, job) for job in jobs]
        bar = progress_bar(total=len(jobs), desc=f"judging {metric}", unit="item", show=self.progress)
        finished = False
        try:
            results = []
            for future in futures:
                results.append(future.result())
                bar.update(1)
            finished = True
        finally:  # interrupted: no new calls; those in flight finish and are cached (they are paid for)
            pool.shutdown(wait=not finished, cancel_futures=True)
            bar.close()
        return results

    def dry_run(self, metric: str, items: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
        """The calls and tokens judging ``items`` would cost, without calling the model.

        Cached replies are followed (a fully cached item costs nothing); the first call not in the cache and
        the calls after it are estimated from the texts (one token per CJK character, one per four other
        characters; completions: a grade, or the claims and one verdict per claim). Repair calls, needed
        only for unreadable replies, are not counted.

        Returns
        -------
        dict
            ``items``, ``calls``, ``cached_calls``, ``estimated_input_tokens``, ``estimated_output_tokens`` and
            ``estimated_cost`` (None without prices).
        """
        if metric not in JUDGE_METRICS:
            raise ValueError(f"metric must be one of {', '.join(JUDGE_METRICS)}, got {metric!r}")
        items = list(items)
        jobs = self._prepared(metric, items)
        dry = StructuredCaller(self.llm, self.cache, self.caller.policy, self.limiter, UsageMeter(),
                               self.caller.timeout, self.caller.seed, "prompt")
        dry.dry = True
        real, self.caller = self.caller, dry
        calls = input_tokens = output_tokens = 0
        try:
            for job, item in zip(jobs, items, strict=True):
                hits = dry.meter.usage.cache_hits
                try:
                    job()
                except NotCached:
                    steps = _estimate(metric, item)[dry.meter.usage.cache_hits - hits:]
                    calls += len(steps)
                    input_tokens += sum(s[0] for s in steps)
                    output_tokens += sum(s[1] for s in steps)
        finally:
            self.caller = real
        prices = self.meter.prices
        return {"dry_run": True, "metric": metric, "items": len(items), "calls": calls,
                "cached_calls": dry.meter.usage.cache_hits, "estimated_input_tokens": input_tokens,
                "estimated_output_tokens": output_tokens,
                "estimated_cost": prices.cost(input_tokens, output_tokens) if prices else None}


def _abstained_correctness() -> JudgeResult:
    """Correctness of an answer that abstains on a question with a reference answer: 0."""
    return JudgeResult("answer_correctness", 0.0, parts={"precision": 0.0, "recall": 0.0, "f1": 0.0},
                       abstained=True, detail="the answer abstains, and the question has a reference answer")


def _first(item: Mapping[str, Any], names: Sequence[str]) -> str:
    return next((item[n] for n in names if isinstance(item.get(n), str)), "")


def _estimate(metric: str, item: Mapping[str, Any]) -> list[tuple[int, int]]:
    """Estimated ``(input, output)`` tokens of each call judging ``item``, in call order."""
    question = _first(item, _QUESTION)
    if metric == "relevance":
        return [(estimate_tokens(RELEVANCE_PROMPT + question + _first(item, _PASSAGE)) + 10, _RELEVANCE_OUT)]
    answer = _first(item, _ANSWER)

    def claims_and_check(text: str, context: str) -> list[tuple[int, int]]:
        size = estimate_tokens(text)
        n = max(1, math.ceil(size / 15))
        return [(estimate_tokens(CLAIMS_PROMPT + question + text) + 10, math.ceil(size * 1.3) + 10),
                (estimate_tokens(VERIFY_PROMPT + context) + size + 10, n * _CLAIM_OUT)]

    if metric == "faithfulness":
        context = "".join(text for _, text in as_chunks(item.get("contexts"), "dry run"))
        return claims_and_check(answer, context)
    reference = _first(item, _REFERENCE)
    there, back = claims_and_check(answer, reference), claims_and_check(reference, answer)
    return there + back  # the order of the calls: the answer's claims and their check, then the reference's
