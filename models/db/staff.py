"""Staff members as people (issue 33): who an actor is, by stable id, and whether two actors
are the same person. Staff are the platform tenant's clients (api/auth/tenants.py); a staff
member's stable id is their client's id."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from models.db.tables import ApiClient, Tenant
from models.domain.actors import STAFF_PREFIX
from models.domain.identity import identity_key


@dataclass(frozen=True, slots=True)
class StaffMember:
    id: str  # the stable staff id (the client's id)
    name: str
    roles: tuple[str, ...]
    active: bool
    email_key: str | None  # null: created before e-mails were required

    @property
    def actor(self) -> str:
        return f"{STAFF_PREFIX}{self.name}"

    def same_person(self, other: StaffMember) -> bool:
        """One stable id, or names or e-mails that fold or look alike (models/domain/identity.py:
        a twin made before the keys were unique counts as the same person too)."""
        return (
            self.id == other.id
            or identity_key(self.name) == identity_key(other.name)
            or (self.email_key is not None and self.email_key == other.email_key)
        )


_COLUMNS = (ApiClient.id, ApiClient.name, ApiClient.roles, ApiClient.disabled, ApiClient.email_key)


async def _platform() -> uuid.UUID | None:
    row = await Tenant.select(Tenant.id).where(Tenant.kind == "PLATFORM").first()
    return row["id"] if row else None


def _member(row: dict) -> StaffMember:
    return StaffMember(
        id=str(row["id"]), name=row["name"], roles=tuple(r for r in row["roles"].split(",") if r),
        active=not row["disabled"], email_key=row["email_key"],
    )


async def staff_by_id(staff_id: str) -> StaffMember | None:
    """The staff member whose stable id is `staff_id`; None for anything else (a tenant's
    client, an unknown or malformed id)."""
    try:
        client_id = uuid.UUID(staff_id)
    except (ValueError, TypeError, AttributeError):
        return None
    platform = await _platform()
    if platform is None:
        return None
    row = await ApiClient.select(*_COLUMNS).where(
        (ApiClient.id == client_id) & (ApiClient.tenant_id == platform) & (ApiClient.roles != "")
    ).first()
    return None if row is None else _member(row)


async def staff_by_actor(actor: str) -> StaffMember | None:
    """The staff member an audit-trail actor ("staff:<name>") names; None for any other actor
    (the catalogue, a provider, a tenant's client) or an unknown name."""
    if not actor.startswith(STAFF_PREFIX):
        return None
    platform = await _platform()
    if platform is None:
        return None
    row = await ApiClient.select(*_COLUMNS).where(
        (ApiClient.tenant_id == platform) & (ApiClient.roles != "") & (ApiClient.name == actor[len(STAFF_PREFIX):])
    ).first()
    return None if row is None else _member(row)


class StaffRefused(Exception):
    """An actor may not take a staff action: not an active staff member holding the role
    (or the name and the stable id given name two people), or, with `same_person`, they
    are the other eye of a four-eyes action."""

    def __init__(self, message: str, same_person: bool = False) -> None:
        super().__init__(message)
        self.same_person = same_person


async def check_actor(
    actor: str, actor_id: str, role: str, *, other_actor: str = "", other_actor_id: str = "", action: str = "",
    other_did: str = "",
) -> StaffMember:
    """The acting staff member, checked against the staff table: `actor` ("staff:<name>")
    is who `actor_id` (their stable id; "": looked up by name) says, active, holding
    `role`, and not the other eye (`other_actor` / `other_actor_id`: who ran, submitted or
    proposed it, `other_did` in words; one stable id, or names or e-mails that fold or look
    alike). Raises `StaffRefused` naming what is wrong; `action` words the refusal."""
    doing = action or "act"
    member = await (staff_by_id(actor_id) if actor_id else staff_by_actor(actor))
    if member is None or member.actor != actor:
        raise StaffRefused(f"{actor!r} is not a staff member (by that name and id): cannot {doing}")
    if not member.active:
        raise StaffRefused(f"staff member {member.name!r} is disabled: cannot {doing}")
    if role not in member.roles:
        raise StaffRefused(f"staff member {member.name!r} does not hold the {role} role: cannot {doing}")
    others = [o for o in (
        await staff_by_id(other_actor_id) if other_actor_id else None,
        await staff_by_actor(other_actor) if other_actor else None,
    ) if o is not None]
    if any(member.same_person(other) for other in others):
        did = other_did or ("ran" if role == "actuary" else "submitted")
        raise StaffRefused(
            f"four eyes: {member.name} is the person who {did} it ({other_actor.removeprefix('staff:')}); "
            f"another staff member must {doing}",
            same_person=True,
        )
    return member
