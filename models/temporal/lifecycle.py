"""What a lifecycle write reports back to its workflow."""

from __future__ import annotations

import uuid

import msgspec


class TransitionOutcome(msgspec.Struct, frozen=True):
    """What a lifecycle write found and did: `status` is the row's status afterwards,
    `applied` whether this write changed it (False: refused, or already so)."""

    status: str
    applied: bool
    policy_id: uuid.UUID | None = None  # quotes: the policy it was converted to
    detail: str = ""
