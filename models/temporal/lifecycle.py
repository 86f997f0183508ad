"""What a lifecycle write reports back to its workflow."""

from __future__ import annotations

import uuid

import msgspec

# Error types the lifecycle workflows raise from their updates (the API maps them: 409, 503).
INVALID_TRANSITION = "InvalidTransition"
WRITE_FAILED = "WriteFailed"



class TransitionOutcome(msgspec.Struct, frozen=True):
    """What a lifecycle write found and did: `status` is the row's status afterwards,
    `applied` whether this write changed it (False: refused, or already so)."""

    status: str
    applied: bool
    policy_id: uuid.UUID | None = None  # quotes: the policy it was converted to
    detail: str = ""
