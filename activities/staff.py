"""The staff check of an actor-carrying workflow update (models/temporal/staff.py): the actor
exists, is active, holds the role, is who the id says, and is not the other eye."""

from __future__ import annotations

from temporalio import activity
from temporalio.exceptions import ApplicationError

from models.db.staff import StaffRefused, check_actor
from models.temporal.staff import SAME_PERSON, UNKNOWN_ACTOR, CheckedActor, StaffActorCheck


@activity.defn
async def check_staff_actor(check: StaffActorCheck) -> CheckedActor:
    """The acting staff member (CheckedActor), or a non-retryable ApplicationError:
    UNKNOWN_ACTOR when the actor is no active staff member holding `check.role` (or the
    name and the stable id given name two people), SAME_PERSON when they are the other eye
    (one stable id, or names or e-mails that fold or look alike): `models.db.staff.check_actor`."""
    try:
        member = await check_actor(check.actor, check.actor_id, check.role, other_actor=check.other_actor,
                                   other_actor_id=check.other_actor_id, action=check.action)
    except StaffRefused as refused:
        raise ApplicationError(str(refused), type=SAME_PERSON if refused.same_person else UNKNOWN_ACTOR,
                               non_retryable=True) from None
    return CheckedActor(actor_id=member.id, name=member.name)
