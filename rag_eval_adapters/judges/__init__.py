"""LLM judges: relevance (0-3), faithfulness and answer correctness from any chat LLM, with a result for
every item.

>>> from rag_eval_adapters.judges import LLMJudge                               # doctest: +SKIP
>>> from rag_eval_adapters.testsets import OpenAICompatibleLLM                  # doctest: +SKIP
>>> judge = LLMJudge(OpenAICompatibleLLM("gpt-4o-mini"), cache="judge.sqlite")  # doctest: +SKIP
>>> judge.faithfulness("Paris is the capital of France.", ["Paris is France's capital."]).score  # doctest: +SKIP
1.0

Every result is a score in [0, 1] or an explicit unmeasured result with its reason (refusal, invalid output
after one repair call, empty answer, no claims, call failed); never NaN. Calls go through
:mod:`rag_eval_adapters.modelcalls` (retries honouring ``retry-after``, timeouts, one limiter, the validated
cache, usage and cost). See ``docs/judges.md`` for the prompts, scales, failure results, costs and biases.
"""

from __future__ import annotations

from .agreement import Agreement, cohen_kappa
from .answers import JUDGED_ANSWER_METRICS, RECORD_FIELDS, is_judged_metric, judge_answers
from .calls import STRUCTURED_MODES
from .judge import JUDGE_METRICS, LLMJudge, self_preference_warning
from .prompts import CLAIMS_PROMPT, PROMPT_VERSION, RELEVANCE_PROMPT, REPAIR_PROMPT, VERIFY_PROMPT
from .qrels import FilledQrels, fill_judgments
from .results import UNMEASURED_REASONS, VERDICTS, ClaimVerdict, JudgeResult

__all__ = [
    "CLAIMS_PROMPT",
    "JUDGED_ANSWER_METRICS",
    "JUDGE_METRICS",
    "PROMPT_VERSION",
    "RECORD_FIELDS",
    "RELEVANCE_PROMPT",
    "REPAIR_PROMPT",
    "STRUCTURED_MODES",
    "UNMEASURED_REASONS",
    "VERDICTS",
    "VERIFY_PROMPT",
    "Agreement",
    "ClaimVerdict",
    "FilledQrels",
    "JudgeResult",
    "LLMJudge",
    "cohen_kappa",
    "fill_judgments",
    "is_judged_metric",
    "judge_answers",
    "self_preference_warning",
]
