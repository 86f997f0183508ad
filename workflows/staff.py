"""The staff check an actor-carrying update awaits before it takes effect (issue 33)."""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from activities.staff import check_staff_actor
    from models.temporal.staff import SAME_PERSON, UNKNOWN_ACTOR, CheckedActor, StaffActorCheck

CHECK_TIMEOUT = timedelta(seconds=10)
# A refusal is final (non-retryable); a database that does not answer gets a few quick tries,
# then the update fails (the API answers 503) and the workflow is as it was.
CHECK_RETRY = RetryPolicy(
    initial_interval=timedelta(milliseconds=200), maximum_interval=timedelta(seconds=2), maximum_attempts=5,
    non_retryable_error_types=[UNKNOWN_ACTOR, SAME_PERSON],
)


async def check_actor(check: StaffActorCheck) -> CheckedActor:
    """The checked actor, or the activity's refusal as the update's ApplicationError (same
    message and type: the API maps UNKNOWN_ACTOR and SAME_PERSON to 403)."""
    try:
        return await workflow.execute_local_activity(
            check_staff_actor, check, start_to_close_timeout=CHECK_TIMEOUT, retry_policy=CHECK_RETRY,
            summary=f"Staff check · {check.actor}",
        )
    except ActivityError as err:
        cause = err.cause
        if isinstance(cause, ApplicationError):
            raise ApplicationError(cause.message, type=cause.type) from None
        raise ApplicationError(f"the staff check could not be made: {cause or err}", type="StaffCheckFailed") from None

