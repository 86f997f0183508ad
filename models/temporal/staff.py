"""The staff check an actor-carrying workflow update runs before it takes effect (issue 33):
a validator cannot read the database, so an activity checks the actor against the staff
table. Fields only added, with defaults."""

from __future__ import annotations

import msgspec

# Update failures (ApplicationError types) the API maps to problems (403).
UNKNOWN_ACTOR = "UnknownActor"  # not an active staff member with the role, or name and id disagree
SAME_PERSON = "SamePerson"  # the other eye's stable id (or a name or e-mail alike): four eyes


class StaffActorCheck(msgspec.Struct, frozen=True):
    actor: str  # Principal.actor of who acts ("staff:bea")
    role: str  # the staff role the action needs (actuary, data)
    actor_id: str = ""  # their stable staff id ("": an update sent without one: looked up by name)
    other_actor: str = ""  # the first eye (who ran or submitted it); "" when there is none
    other_actor_id: str = ""
    action: str = ""  # in words, for the refusal ("publish pricing run v3")


class CheckedActor(msgspec.Struct, frozen=True):
    actor_id: str
    name: str
