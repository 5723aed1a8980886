"""``generate_testset``: typed questions with answers and evidence, from chunks, by any chat LLM."""

from __future__ import annotations

import json
import os
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from ..jsonl import read_jsonl_objects
from ..modelcalls import (
    FATAL_STATUS,
    CallCache,
    CallEstimate,
    CallLimiter,
    ChatCaller,
    ModelCallError,
    Prices,
    RetryPolicy,
    UsageMeter,
    ask_json,
    messages_tokens,
    open_cache,
)
from ..progress import progress_bar
from ..validation import check_count
from .build import DROP_REASONS, Corpus, Settings, Task, build_cases
from .case import SINGLE_CHUNK_TYPES, case_from_record
from .chunks import Chunk, as_chunks, sample_chunks
from .harder import Checks, build_multi_hop_cases, build_unanswerable_cases
from .journal import Journal, journal_path
from .language import text_length
from .llm import ChatLLM, as_chat_llm
from .parsing import parse_reply
from .prompts import (
    PROMPT_VERSION,
    QUESTION_TYPES,
    build_messages,
    build_multi_hop_messages,
    build_unanswerable_messages,
    repair_messages,
)
from .retrieval import retriever_rank
from .testset import TestCase, TestSet
from .verify import EMBEDDING_ANSWER_THRESHOLD, CandidateIndex, embedding_nearest

__all__ = ["generate_testset", "plan_tasks", "describe_shortfall", "OUTPUT_TOKENS_PER_QUESTION"]

#: the dry-run estimate of completion tokens per requested question
OUTPUT_TOKENS_PER_QUESTION = 80


def describe_shortfall(summary: dict[str, Any]) -> str | None:
    """One line saying why fewer cases were generated than requested, from a :func:`generate_testset` summary:
    ``"generated 9 of 15 requested questions; 6 dropped: evidence_not_found 4, not_enough_chunks 2 (3 chunks
    skipped as shorter than min_chunk_chars)"``; None when every requested case was generated."""
    requested, generated = summary.get("requested", 0), summary.get("generated", 0)
    if generated >= requested:
        return None
    dropped = summary.get("dropped") or {}
    reasons = ", ".join(f"{reason} {count}" for reason, count in sorted(dropped.items(), key=lambda kv: -kv[1]))
    line = (f"generated {generated} of {requested} requested questions; {requested - generated} dropped"
            + (f": {reasons}" if reasons else ""))
    skipped = summary.get("skipped_short_chunks") or 0
    if skipped:
        line += f" ({skipped} chunk(s) skipped as shorter than min_chunk_chars)"
    return line


def _check_args(samples: Any, types: Any, per_chunk: Any, max_concurrency: Any, min_chunk_chars: Any) -> tuple[str, ...]:
    for name, value in (("samples", samples), ("per_chunk", per_chunk), ("max_concurrency", max_concurrency)):
        check_count(value, name)
    check_count(min_chunk_chars, "min_chunk_chars", minimum=0)
    if isinstance(types, str):
        types = tuple(t.strip() for t in types.split(",") if t.strip())
    types = tuple(types)
    unknown = [t for t in types if t not in QUESTION_TYPES]
    if not types or unknown:
        raise ValueError(f"types must be a non-empty subset of {', '.join(QUESTION_TYPES)}; got {list(types)!r}")
    return tuple(dict.fromkeys(types))


def _check_cache_path(cache: Any, output: Any) -> None:
    """Refuse a cache file that is the output or its journal (the cache would be appended to, or overwrite it)."""
    if not isinstance(cache, (str, os.PathLike)) or output is None:
        return
    target = Path(output)
    for path, what in ((target, "the output"), (journal_path(target), "the output's journal")):
        if os.path.normcase(os.path.abspath(cache)) == os.path.normcase(os.path.abspath(path)) or (
                Path(cache).exists() and path.exists() and os.path.samefile(cache, path)):
            raise ValueError(f"cache {str(cache)!r} is {what}; give the cache its own file")


def plan_tasks(chunks: list[Chunk], samples: int, types: Sequence[str], per_chunk: int, seed: int,
               min_chunk_chars: int, index: CandidateIndex | None = None) -> tuple[list[Task], int, int]:
    """The requests for ``samples`` cases: ``(tasks, skipped_short_chunks, shortfall)``.

    Eligible chunks (at least ``min_chunk_chars`` non-blank characters, a CJK character counting as
    :data:`~rag_eval_adapters.testsets.language.CJK_CHAR_WEIGHT`: see
    :func:`~rag_eval_adapters.testsets.language.text_length`) are ordered by
    :func:`~rag_eval_adapters.testsets.chunks.sample_chunks`; chunk ``i`` of pass ``p`` is asked for
    ``per_chunk`` questions of type ``types[(i + p) % len(types)]``, so the types alternate and a chunk is
    reused (with another type) only when every chunk has been used. ``shortfall`` counts the requested cases
    no (chunk, type) pair was left for. A ``multi_hop`` task's ``partner`` is the eligible chunk sharing the
    rarest terms with its chunk (:meth:`~.verify.CandidateIndex.partner`; ``index`` defaults to one over
    ``chunks``), among the chunks not yet paired with it (a pair is asked about once, in either order); None
    when no such chunk shares one (the task's cases are dropped as ``no_pair``).
    """
    if "multi_hop" in types and index is None:
        index = CandidateIndex(chunks)
    eligible = [c for c in chunks if text_length(c.text) >= min_chunk_chars]
    order = sample_chunks(eligible, seed)
    tasks: list[Task] = []
    paired: dict[str, set[str]] = {}
    remaining = samples
    for rnd in range(len(types)):
        for i, chunk in enumerate(order):
            if remaining <= 0:
                break
            n = min(per_chunk, remaining)
            qtype = types[(i + rnd) % len(types)]
            partner = None
            if qtype == "multi_hop" and index is not None:  # a pair is asked about once, in either order
                partner = index.partner(chunk, order, exclude=frozenset(paired.get(chunk.chunk_id, ())))
                for a, b in ((chunk, partner), (partner, chunk)):
                    if a is not None and b is not None:
                        paired.setdefault(a.chunk_id, set()).add(b.chunk_id)
            tasks.append(Task(chunk, qtype, n, partner))
            remaining -= n
    return tasks, len(chunks) - len(eligible), max(remaining, 0)


class _Caller(ChatCaller):
    """Model calls for the generator: the prompt version and the model's temperature name every cache key."""

    def __init__(self, llm: ChatLLM, cache: CallCache | None, policy: RetryPolicy, limiter: CallLimiter,
                 meter: UsageMeter, timeout: float | None) -> None:
        super().__init__(llm, cache, policy, limiter, meter, timeout,
                         {"temperature": llm.temperature, "prompt_version": PROMPT_VERSION})


def task_messages(task: Task) -> list[dict[str, str]]:
    """The request of ``task``: its type's prompt about its chunk (and partner)."""
    if task.qtype == "multi_hop":
        assert task.partner is not None
        return build_multi_hop_messages(task.chunk.text, task.partner.text, task.n)
    if task.qtype == "unanswerable":
        return build_unanswerable_messages(task.chunk.text, task.n)
    return build_messages(task.chunk.text, task.qtype, task.n)


def _ask(caller: _Caller, task: Task) -> dict[str, Any]:
    """The model replies for one task (:func:`~rag_eval_adapters.modelcalls.ask_json`: a repair request when the
    first is not JSON, sending back a bounded excerpt of it)."""
    messages = task_messages(task)
    what = f"generation for chunk {task.chunk.chunk_id!r} ({task.qtype})"
    got = ask_json(caller.chat, messages, parse_reply, lambda sent, excerpt, _: repair_messages(sent, excerpt), what)
    return {"texts": list(got.texts), "refusal": got.refusal}


class _Output:
    """The output JSONL and its journal (nothing when no output is given).

    Cases are appended as tasks finish. On resume the output is first reconciled with the journal: a cut last
    line is ignored, repeated cases and cases of tasks the journal does not call done are dropped, and a done
    task whose cases are missing from the output is done again from its journaled reply (no new call); when
    anything was dropped the output is rewritten (atomically) with the cases kept.
    """

    def __init__(self, output: str | os.PathLike[str] | None, settings: dict[str, Any], dry_run: bool) -> None:
        self.path = Path(output) if output is not None else None
        self.by_id: dict[str, TestCase] = {}
        self.journal: Journal | None = None
        if self.path is None:
            return
        if not self.path.parent.is_dir():
            raise ValueError(f"the folder of output {str(self.path)!r} does not exist; create it first")
        has_journal = journal_path(self.path).exists()
        if self.path.exists() and not has_journal and self.path.stat().st_size > 0:
            raise ValueError(
                f"output {str(self.path)!r} exists but has no {journal_path(self.path).name} journal (it was not "
                "written by generate_testset); choose another output path, it is never overwritten"
            )
        if has_journal or not dry_run:
            self.journal = Journal(self.path, settings)
        if has_journal:
            self._reconcile(rewrite=not dry_run)

    def _read_output(self) -> tuple[list[TestCase], bool]:
        """The cases of the output and whether a cut last line was ignored."""
        if self.path is None or not self.path.exists() or not self.path.stat().st_size:
            return [], False
        cases: list[TestCase] = []
        rows = list(read_jsonl_objects(self.path, bad_lines="yield"))
        cut = False
        for position, (number, row) in enumerate(rows):
            if isinstance(row, ValueError):
                if position == len(rows) - 1:  # the last line, cut short by an interruption or a full disk
                    cut = True
                    continue
                raise row
            cases.append(case_from_record(row, f"{self.path}:{number}", number))
        return cases, cut

    def _reconcile(self, rewrite: bool) -> None:
        assert self.journal is not None and self.path is not None
        cases, cut = self._read_output()
        done_ids = {qid for record in self.journal.done.values() for qid in record.get("kept") or []}
        for case in cases:
            if case.query_id in done_ids and case.query_id not in self.by_id:
                self.by_id[case.query_id] = case
        for key in [k for k, record in self.journal.done.items()
                    if any(qid not in self.by_id for qid in record.get("kept") or [])]:
            del self.journal.done[key]  # its cases are lost: done again from its journaled reply
        if rewrite and (cut or len(self.by_id) != len(cases)):
            kept = list(self.by_id.values())
            temporary = self.path.with_name(self.path.name + ".tmp")
            with open(temporary, "w", encoding="utf-8") as handle:
                for case in kept:
                    handle.write(json.dumps(case.to_dict(), ensure_ascii=False) + "\n")
            os.replace(temporary, self.path)

    def done(self, key: str) -> bool:
        return self.journal is not None and key in self.journal.done

    def reply(self, key: str) -> dict[str, Any] | None:
        return self.journal.replies.get(key) if self.journal is not None else None

    def cases_of(self, key: str) -> list[TestCase]:
        """The cases written for the done task ``key``."""
        if self.journal is None or key not in self.journal.done:
            return []
        return [self.by_id[qid] for qid in self.journal.done[key].get("kept") or [] if qid in self.by_id]

    def drops_of(self, key: str) -> Counter:
        """The drop counts of the done task ``key``."""
        if self.journal is None or key not in self.journal.done:
            return Counter()
        return Counter(self.journal.done[key].get("dropped") or {})

    def write(self, key: str, cases: list[TestCase], dropped: Counter) -> None:
        if self.path is None or self.journal is None:
            return
        with open(self.path, "a", encoding="utf-8") as handle:
            for case in cases:
                handle.write(json.dumps(case.to_dict(), ensure_ascii=False) + "\n")
            handle.flush()
        self.journal.add_done(key, [c.query_id for c in cases], dict(dropped))


def _summary(samples: int, cases: list[TestCase], dropped: Counter, skipped: int, meter: UsageMeter,
             resumed: int, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    usage = meter.usage
    by_type: dict[str, list[float]] = {}
    flags: Counter = Counter()
    for case in cases:
        by_type.setdefault(case.query_type, []).append(case.lexical_overlap)
        flags.update(case.flags)
    return {
        "requested": samples,
        "generated": len(cases),
        "dropped": {reason: dropped[reason] for reason in DROP_REASONS if dropped[reason]},
        "skipped_short_chunks": skipped,
        "resumed_cases": resumed,
        "calls": usage.calls,
        "failed_calls": usage.failures,
        "cache_hits": usage.cache_hits,
        "retries": usage.retries,
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cost": usage.cost,
        "flagged": dict(flags),
        "lexical_overlap_by_type": {t: round(sum(v) / len(v), 4) for t, v in sorted(by_type.items())},
        **(extra or {}),
    }


def _dry_run(tasks: list[Task], out: _Output, caller: _Caller, settings: Settings, prices: Prices | None,
             samples: int, skipped: int, shortfall: int) -> TestSet:
    estimate = CallEstimate()
    for task in tasks:
        if out.done(task.key(settings)) or out.reply(task.key(settings)) or _unpaired(task):
            continue
        messages = task_messages(task)
        if caller.cached(messages) is not None:
            estimate.cached_calls += 1
            continue
        estimate.add(messages_tokens(messages), task.n * OUTPUT_TOKENS_PER_QUESTION)
    resumed = [case for task in tasks for case in out.cases_of(task.key(settings))]
    summary = {
        "dry_run": True, "requested": samples, "tasks": len(tasks), **estimate.summary(prices),
        "skipped_short_chunks": skipped, "not_enough_chunks": shortfall, "resumed_cases": len(resumed),
    }
    return TestSet(resumed, summary)


def generate_testset(
    chunks: Iterable[Any],
    llm: Any,
    samples: int = 30,
    types: Sequence[str] | str = SINGLE_CHUNK_TYPES,
    per_chunk: int = 1,
    seed: int = 0,
    max_concurrency: int = 8,
    cache: CallCache | str | os.PathLike[str] | None = None,
    output: str | os.PathLike[str] | None = None,
    *,
    retriever: Any = None,
    dry_run: bool = False,
    prices: Prices | None = None,
    max_retries: int = 4,
    retry_base_delay: float = 0.5,
    timeout: float | None = 120.0,
    max_per_second: float | None = None,
    min_chunk_chars: int = 80,
    progress: bool | None = None,
    judge: Any = None,
    embedder: Any = None,
    embedding_threshold: float = EMBEDDING_ANSWER_THRESHOLD,
) -> TestSet:
    """Generate ``samples`` test cases (question, answer, verbatim evidence, relevant chunk ids) from chunks.

    Parameters
    ----------
    chunks : iterable
        LlamaIndex nodes, LangChain Documents (metadata ``id``, ``source``, ``start_index``) or mappings
        with ``chunk_id``, ``text`` and optionally ``doc_id``, ``start``. All of them are searched for the
        evidence of every case (overlapping chunks count as relevant).
    llm : ChatLLM, LlamaIndex LLM or LangChain chat model
        E.g. ``OpenAICompatibleLLM("gpt-4o-mini")``. Give framework LLMs ``max_retries=0`` so that the
        generator's retries (which honour ``retry-after``) are the only ones.
    samples : int
        Cases requested; each is generated or dropped with a reason (``summary["dropped"]``).
    types : sequence of str
        Question types among ``literal``, ``paraphrase``, ``scenario``, alternated across chunks.
    per_chunk : int
        Questions asked per request (per chunk and type).
    seed : int
        Seed of the chunk sampling (across documents).
    max_concurrency : int
        Requests in flight at once.
    cache : path or cache, optional
        Model replies keyed by model, prompt and parameters (an SQLite path or a
        :class:`~rag_eval_adapters.modelcalls.CallCache`): a re-run costs nothing.
    output : path, optional
        JSONL the cases are appended to as they finish, with a ``.progress`` journal beside it; a re-run
        with the same output resumes: finished chunks send no request.
    retriever : optional
        A function ``query -> ids/nodes/Documents``, a LlamaIndex or LangChain retriever: each case records
        ``retriever_rank`` of its source chunk (recorded, not filtered).
    dry_run : bool
        Plan and estimate calls and tokens (and cost with ``prices``) without calling the model.
    prices : Prices, optional
        Prices per million input/output tokens, for ``summary["cost"]``.
    max_retries, retry_base_delay, timeout, max_per_second :
        Retries (429, 5xx, timeouts; waiting what ``retry-after`` asks), seconds per call, start-rate limit.
    min_chunk_chars : int
        Chunks with fewer non-blank characters are skipped (counted in ``summary["skipped_short_chunks"]``); a
        Chinese, Japanese or Korean character counts as 4 (``CJK_CHAR_WEIGHT``), so a two-sentence Chinese
        chunk is not skipped as short.
    progress : bool, optional
        A progress bar (default: when stderr is a terminal and ``TQDM_DISABLE`` allows it; see
        :mod:`rag_eval_adapters.progress`).
    judge : ChatLLM, optional
        Asked, for a ``multi_hop`` question, whether either of its chunks answers it alone, and for an
        ``unanswerable`` one, whether any of its candidate chunks answers it (a yes drops the question).
    embedder : optional
        An embedder (``embed_queries``, ``embed_passages``; e.g. ``modelcalls.resolve_embedder("e5")``): an
        ``unanswerable`` question is dropped when a chunk's cosine with it reaches ``embedding_threshold``.

    Returns
    -------
    TestSet
        The cases (those resumed from ``output`` first) and ``summary``: requested, generated, dropped by
        reason, skipped chunks, calls, cache hits, retries, tokens, cost, flags, mean lexical overlap per type.
    """
    types = _check_args(samples, types, per_chunk, max_concurrency, min_chunk_chars)
    if prices is not None and not isinstance(prices, Prices):
        raise TypeError("prices must be a rag_eval_adapters.modelcalls.Prices(input_per_million, output_per_million)")
    _check_cache_path(cache, output)
    all_chunks = as_chunks(chunks)
    chat_llm = as_chat_llm(llm)
    settings = Settings(chat_llm.name, PROMPT_VERSION, chat_llm.temperature)
    index = CandidateIndex(all_chunks)
    tasks, skipped, shortfall = plan_tasks(all_chunks, samples, types, per_chunk, seed, min_chunk_chars, index)
    out = _Output(output, {
        "model": settings.model, "prompt_version": PROMPT_VERSION, "temperature": settings.temperature,
        "types": list(types), "per_chunk": per_chunk, "seed": seed, "min_chunk_chars": min_chunk_chars,
    }, dry_run)
    meter = UsageMeter(prices)
    caller = _Caller(chat_llm, open_cache(cache), RetryPolicy(max_retries, retry_base_delay), CallLimiter(
        max_concurrency, max_per_second), meter, timeout)
    if dry_run:
        return _dry_run(tasks, out, caller, settings, prices, samples, skipped, shortfall)
    checks = Checks(index, _judge(judge, caller, meter) if judge is not None else None,
                    embedding_nearest(embedder, all_chunks, embedding_threshold) if embedder is not None else None)
    return _run(tasks, out, caller, settings, Corpus(all_chunks), retriever, samples, skipped, shortfall, meter,
                max_concurrency, progress, checks)


JUDGE_PROMPT = """\
Does the passage alone answer the question? Answer true only when the passage states the answer.
Reply with JSON only: {"answers": true} or {"answers": false}"""


def _read_verdict(text: str) -> bool:
    from ..modelcalls import json_candidates

    for data in json_candidates(text):
        if isinstance(data, dict) and isinstance(data.get("answers"), bool):
            return bool(data["answers"])
    raise ValueError('no JSON object {"answers": true|false} in the reply')


def _judge(llm: Any, generator: _Caller, meter: UsageMeter) -> Callable[[str, str], bool]:
    """``judge(question, passage) -> bool`` asking ``llm`` (through the generator's cache, retries and limits);
    a reply that cannot be read even after one repair counts as yes (the question is dropped)."""
    judge_llm = as_chat_llm(llm)
    caller = ChatCaller(judge_llm, generator.cache, generator.policy, generator.limiter, meter, generator.timeout,
                        {"temperature": judge_llm.temperature, "prompt_version": PROMPT_VERSION + "-judge"})

    def verdict(question: str, passage: str) -> bool:
        messages = [{"role": "system", "content": JUDGE_PROMPT},
                    {"role": "user", "content": f"Question: {question}\n<passage>\n{passage}\n</passage>"}]
        got = ask_json(caller.chat, messages, _read_verdict,
                       lambda sent, excerpt, _: repair_messages(sent, excerpt), "judging a generated question")
        return got.value if isinstance(got.value, bool) else True

    return verdict


def _unpaired(task: Task) -> bool:
    """A multi-hop task for which no chunk shares a term: no request is sent, its cases are ``no_pair``."""
    return task.qtype == "multi_hop" and task.partner is None


def _build(task: Task, reply: dict[str, Any], corpus: Corpus, settings: Settings, kept: list[str],
           checks: Checks) -> Any:
    """The cases of one task's reply, by its type's rules."""
    if reply.get("no_pair"):
        outcome = build_cases(task, {"texts": []}, corpus, settings, kept)
        outcome.dropped = Counter(no_pair=task.n)
        return outcome
    if task.qtype == "multi_hop":
        return build_multi_hop_cases(task, reply, corpus, settings, kept, checks)
    if task.qtype == "unanswerable":
        return build_unanswerable_cases(task, reply, settings, kept, checks)
    return build_cases(task, reply, corpus, settings, kept)


def _rank(retriever: Any, case: TestCase) -> bool:
    """Record ``case.retriever_rank``; False (the case flagged ``retriever_failed``) when the retriever raised
    or returned something that is not a list of results."""
    try:
        case.retriever_rank = retriever_rank(retriever, case.query, case.source_chunk_id)
    except Exception as exc:  # a retriever's own failure must not lose the paid replies of the run
        warnings.warn(f"the retriever failed for query {case.query_id!r} ({type(exc).__name__}: {exc}); "
                      "its retriever_rank is left empty and the case flagged 'retriever_failed'", stacklevel=3)
        case.retriever_rank = None
        case.flags.append("retriever_failed")
        return False
    return True


def _run(tasks: list[Task], out: _Output, caller: _Caller, settings: Settings, corpus: Corpus, retriever: Any,
         samples: int, skipped: int, shortfall: int, meter: UsageMeter, workers: int,
         progress: bool | None, checks: Checks) -> TestSet:
    keys = [t.key(settings) for t in tasks]
    dropped: Counter = Counter(not_enough_chunks=shortfall)
    cases: list[TestCase] = []
    resumed = retriever_failed = 0
    kept_questions = [c.query for key in keys for c in out.cases_of(key)]
    bar = progress_bar(total=len(tasks), desc="generate test set", unit="chunk", show=progress)

    def work(task: Task, key: str) -> dict[str, Any]:
        reply = _ask(caller, task)
        if out.journal is not None:
            out.journal.add_reply(key, reply)
        return reply

    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="testset")
    futures: list[Future | dict[str, Any] | None] = []
    for task, key in zip(tasks, keys, strict=False):
        if out.done(key):
            futures.append(None)
        elif _unpaired(task):
            futures.append({"no_pair": True})
        else:
            futures.append(out.reply(key) or pool.submit(work, task, key))
    finished = False
    try:
        for task, key, pending in zip(tasks, keys, futures, strict=False):
            if pending is None:  # done in an earlier run: its cases are in the output
                done = out.cases_of(key)
                cases.extend(done)
                resumed += len(done)
                dropped.update(out.drops_of(key))
            else:
                try:
                    reply = pending.result() if isinstance(pending, Future) else pending
                except ModelCallError as exc:
                    if exc.status_code in FATAL_STATUS:  # every further call would fail the same way
                        raise
                    dropped["call_failed"] += task.n
                    reply = None
                if reply is not None:
                    outcome = _build(task, reply, corpus, settings, kept_questions, checks)
                    if retriever is not None:
                        retriever_failed += sum(not _rank(retriever, case) for case in outcome.cases if case.answerable)
                    out.write(key, outcome.cases, outcome.dropped)
                    cases.extend(outcome.cases)
                    dropped.update(outcome.dropped)
            bar.update(1)
        finished = True
    finally:  # interrupted: no new calls; the ones in flight finish and are journaled (they are paid for)
        pool.shutdown(wait=not finished, cancel_futures=True)
        bar.close()
    extra = {"retriever_failed": retriever_failed} if retriever is not None else None
    return TestSet(cases, _summary(samples, cases, dropped, skipped, meter, resumed, extra))
