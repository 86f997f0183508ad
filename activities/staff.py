"""The staff check of an actor-carrying workflow update (models/temporal/staff.py): the actor
exists, is active, holds the role, is who the id says, and is not the other eye."""

from __future__ import annotations

from temporalio import activity
from temporalio.exceptions import ApplicationError

from models.db.staff import staff_by_actor, staff_by_id
from models.temporal.staff import SAME_PERSON, UNKNOWN_ACTOR, CheckedActor, StaffActorCheck


def _refuse(message: str, kind: str) -> ApplicationError:
    return ApplicationError(message, type=kind, non_retryable=True)


@activity.defn
async def check_staff_actor(check: StaffActorCheck) -> CheckedActor:
    """The acting staff member (CheckedActor), or a non-retryable ApplicationError:
    UNKNOWN_ACTOR when the actor is no active staff member holding `check.role` (or the
    name and the stable id given name two people), SAME_PERSON when they are the other eye
    (one stable id, or names or e-mails that fold or look alike)."""
    doing = check.action or "act"
    member = await (staff_by_id(check.actor_id) if check.actor_id else staff_by_actor(check.actor))
    if member is None or member.actor != check.actor:
        raise _refuse(f"{check.actor!r} is not a staff member (by that name and id): cannot {doing}", UNKNOWN_ACTOR)
    if not member.active:
        raise _refuse(f"staff member {member.name!r} is disabled: cannot {doing}", UNKNOWN_ACTOR)
    if check.role not in member.roles:
        raise _refuse(f"staff member {member.name!r} does not hold the {check.role} role: cannot {doing}", UNKNOWN_ACTOR)
    others = [o for o in (
        await staff_by_id(check.other_actor_id) if check.other_actor_id else None,
        await staff_by_actor(check.other_actor) if check.other_actor else None,
    ) if o is not None]
    if any(member.same_person(other) for other in others):
        raise _refuse(
            f"four eyes: {member.name} is the person who {'ran' if check.role == 'actuary' else 'submitted'} it "
            f"({check.other_actor.removeprefix('staff:')}); another staff member must {doing}",
            SAME_PERSON,
        )
    return CheckedActor(actor_id=member.id, name=member.name)
