"""Shared pieces of the quote and policy lifecycles."""

from __future__ import annotations

from datetime import timedelta

from temporalio.common import RetryPolicy
from temporalio.exceptions import ApplicationError

WRITE_TIMEOUT = timedelta(seconds=10)
WRITE_RETRY = RetryPolicy(initial_interval=timedelta(milliseconds=100), maximum_interval=timedelta(seconds=5))

INVALID_TRANSITION = "InvalidTransition"


def refuse(what: str, state: str) -> ApplicationError:
    """The error an update validator raises for a move the current state does not allow (→ 409)."""
    return ApplicationError(f"cannot {what} in state {state}", type=INVALID_TRANSITION, non_retryable=True)
