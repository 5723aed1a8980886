"""Retry policy for rerank calls (the shared model-call layer's, re-exported)."""

from __future__ import annotations

from ..modelcalls.retry import RETRYABLE_STATUS, RetryPolicy, is_retryable_status, parse_retry_after

__all__ = ["RetryPolicy", "parse_retry_after", "RETRYABLE_STATUS", "is_retryable_status"]
