"""Shared pieces of the quote and policy lifecycles."""

from __future__ import annotations

from datetime import timedelta

import msgspec
from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError
from temporalio.exceptions import TimeoutError as ActivityTimeoutError

from models.temporal.lifecycle import CAPACITY_EXCEEDED, INVALID_TRANSITION, WRITE_FAILED, TransitionOutcome

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

# A background write retried as a local activity until it lands grows its workflow's history
# while the database is down: once the backoff passes the SDK's local retry threshold (1
# minute) every retry is a timer and a workflow task, about 5 events, for every waiting
# workflow. So (`background_write`) it gets BACKGROUND_LOCAL_RETRY's few attempts in the
# worker (their backoff well under the threshold: at most 4 × 10 s + 7 s), then the same
# write as a regular activity on the workflow's queue, retried by the server as
# BACKGROUND_WRITE_RETRY says until it lands: a regular activity's retries add no events.
BACKGROUND_LOCAL_RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=1), backoff_coefficient=2.0, maximum_interval=timedelta(seconds=4), maximum_attempts=4
)
# Per call site (`bounded-write-<site>`): a long-lived run switches at the first such write it
# makes after the deploy (a patch id is memoised per run: docs/workflow-versioning.md).
PATCH_BOUNDED_WRITE = "bounded-write-{}"

# What a failed local activity raises: its ApplicationError as such (SDK 1.35) or wrapped in an
# ActivityError, or a TimeoutError once its last attempt timed out.
LOCAL_ACTIVITY_FAILED = (ActivityError, ApplicationError, ActivityTimeoutError)


async def background_write(activity, arg, site: str | None, *, has_patch: bool = False):
    """A write no request waits on, with a bounded history cost (BACKGROUND_LOCAL_RETRY).
    `site` names the call site, whose patch id is `bounded-write-<site>` (runs that reached
    it before the patch retry it as a local activity, as they did); None: a path only new
    code takes, which needs no patch. `has_patch`: the run is known to have been started by
    code with the patch (workflows/policies.py's baseline), so it asks nothing and writes no
    marker."""
    if site is not None and not has_patch and not workflow.patched(PATCH_BOUNDED_WRITE.format(site)):
        return await workflow.execute_local_activity(activity, arg, **BACKGROUND_WRITE)
    try:
        return await workflow.execute_local_activity(
            activity, arg, start_to_close_timeout=WRITE_TIMEOUT, retry_policy=BACKGROUND_LOCAL_RETRY
        )
    except LOCAL_ACTIVITY_FAILED as err:
        workflow.logger.warning("%s failed in the worker (%s): retried by the server until it lands", activity.__name__, err)
        return await workflow.execute_activity(
            activity,
            arg,
            start_to_close_timeout=WRITE_TIMEOUT,
            retry_policy=BACKGROUND_WRITE_RETRY,
            summary=f"{activity.__name__}: retried until the database takes it",
        )


def refuse(what: str, state: str, detail: str = "") -> ApplicationError:
    """The error an update validator raises for a move the current state does not allow (→ 409)."""
    message = f"cannot {what} in state {state}" + (f": {detail}" if detail else "")
    return ApplicationError(message, type=INVALID_TRANSITION, non_retryable=True)


def capacity_refused(outcome: TransitionOutcome) -> ApplicationError:
    """The error of a bind that does not fit a capacity limit (→ 409 capacity-exceeded naming
    the limit); its detail is the refusal, for the API's problem body."""
    assert outcome.capacity is not None
    return ApplicationError(
        outcome.capacity.message(), msgspec.to_builtins(outcome.capacity), type=CAPACITY_EXCEEDED, non_retryable=True
    )


def write_failed(err: BaseException) -> ApplicationError:
    return ApplicationError(f"the database write failed: {getattr(err, 'cause', None) or err}", type=WRITE_FAILED)
