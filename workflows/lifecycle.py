"""Shared pieces of the quote and policy lifecycles."""

from __future__ import annotations

from datetime import timedelta

from temporalio.common import RetryPolicy
from temporalio.exceptions import ApplicationError

WRITE_TIMEOUT = timedelta(seconds=10)
# A write that still fails after this many tries is refused with a WriteFailed error (the
# state is left as it was) instead of retrying forever behind a waiting HTTP call.
WRITE_RETRY = RetryPolicy(
    initial_interval=timedelta(milliseconds=100), maximum_interval=timedelta(seconds=2), maximum_attempts=8
)
WRITE_FAILED = "WriteFailed"
# Writes no request waits on (a policy turning ACTIVE at its risk start) retry until they land.
BACKGROUND_WRITE_RETRY = RetryPolicy(initial_interval=timedelta(seconds=1), maximum_interval=timedelta(minutes=5))

INVALID_TRANSITION = "InvalidTransition"


def refuse(what: str, state: str) -> ApplicationError:
    """The error an update validator raises for a move the current state does not allow (→ 409)."""
    return ApplicationError(f"cannot {what} in state {state}", type=INVALID_TRANSITION, non_retryable=True)


def write_failed(err: BaseException) -> ApplicationError:
    return ApplicationError(f"the database write failed: {getattr(err, 'cause', None) or err}", type=WRITE_FAILED)
