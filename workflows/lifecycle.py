"""Shared pieces of the quote and policy lifecycles."""

from __future__ import annotations

from datetime import timedelta

from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError
from temporalio.exceptions import TimeoutError as ActivityTimeoutError

from models.temporal.lifecycle import INVALID_TRANSITION, WRITE_FAILED

WRITE_TIMEOUT = timedelta(seconds=10)
# A write that still fails after this many tries is refused with a WriteFailed error (the
# state is left as it was) instead of retrying forever behind a waiting HTTP call.
# (Workflows started before the outcome-checked lifecycle; new writes use REQUEST_WRITE.)
WRITE_RETRY = RetryPolicy(
    initial_interval=timedelta(milliseconds=100), maximum_interval=timedelta(seconds=2), maximum_attempts=8
)
# Writes no request waits on (a policy turning ACTIVE at its risk start) retry until they land.
BACKGROUND_WRITE_RETRY = RetryPolicy(initial_interval=timedelta(seconds=1), maximum_interval=timedelta(minutes=5))

# A write a request waits on: REQUEST_WRITE_ATTEMPTS attempts of at most REQUEST_WRITE_ATTEMPT
# each (and the backoff between them) fit in REQUEST_WRITE_BUDGET (models.domain.lifecycle), then
# WriteFailed → 503 with Retry-After. The attempts bound it, not a schedule-to-close timeout:
# the SDK (1.35) does not end a local activity's retries at its schedule-to-close timeout.
REQUEST_WRITE_ATTEMPT = timedelta(seconds=3.5)
REQUEST_WRITE_ATTEMPTS = 3
REQUEST_WRITE_RETRY = RetryPolicy(
    initial_interval=timedelta(milliseconds=200),
    backoff_coefficient=2.0,
    maximum_interval=timedelta(seconds=1),
    maximum_attempts=REQUEST_WRITE_ATTEMPTS,
)
REQUEST_WRITE = dict(start_to_close_timeout=REQUEST_WRITE_ATTEMPT, retry_policy=REQUEST_WRITE_RETRY)


def request_write_worst_case() -> timedelta:
    """Every attempt timing out, plus the backoff between them (tested < the budget)."""
    backoff = sum(
        (
            min(REQUEST_WRITE_RETRY.initial_interval * REQUEST_WRITE_RETRY.backoff_coefficient**i, REQUEST_WRITE_RETRY.maximum_interval)
            for i in range(REQUEST_WRITE_ATTEMPTS - 1)
        ),
        timedelta(0),
    )
    return REQUEST_WRITE_ATTEMPT * REQUEST_WRITE_ATTEMPTS + backoff


BACKGROUND_WRITE = dict(start_to_close_timeout=WRITE_TIMEOUT, retry_policy=BACKGROUND_WRITE_RETRY)

# What a failed local activity raises: its ApplicationError as such (SDK 1.35) or wrapped in an
# ActivityError, or a TimeoutError once its last attempt timed out.
LOCAL_ACTIVITY_FAILED = (ActivityError, ApplicationError, ActivityTimeoutError)


def refuse(what: str, state: str, detail: str = "") -> ApplicationError:
    """The error an update validator raises for a move the current state does not allow (→ 409)."""
    message = f"cannot {what} in state {state}" + (f": {detail}" if detail else "")
    return ApplicationError(message, type=INVALID_TRANSITION, non_retryable=True)


def write_failed(err: BaseException) -> ApplicationError:
    return ApplicationError(f"the database write failed: {getattr(err, 'cause', None) or err}", type=WRITE_FAILED)
