"""Payout holds (docs/roles.md, "Payout holds"): operations staff hold a policy's payouts,
and release them. A hold does not stop settlement: every event and payout is still computed
and recorded (exactly once, as always); what waits is the instruction to pay, the policy's
`payout.recorded` and `adjustment.recorded` webhook messages, which the dispatcher leaves
in the outbox while the policy is HELD (models/db/webhooks.py `dispatch_pending`), and which
a delivery already on its way does not send while it is (`wait_for_release`)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from models.clock import utcnow
from models.db.tables import PayoutHold, Payout, Policy, WebhookMessage
from models.domain.webhooks import HELD_EVENT_TYPES

HELD, RELEASED = "HELD", "RELEASED"


class AlreadyHeld(Exception):
    """The policy's payouts are on hold already (`hold_id` names the hold)."""

    def __init__(self, hold_id: uuid.UUID) -> None:
        super().__init__(str(hold_id))
        self.hold_id = hold_id


class NotHeld(Exception):
    """The hold was released before."""


@dataclass(frozen=True, slots=True)
class HoldRecord:
    hold: dict  # the payout_hold row
    payouts: int  # payouts of the policy recorded while it was held
    amount_minor: int  # their sum (minor units of `currency`; adjustments may be negative)
    currency: str
    waiting_messages: int  # its payout messages not sent yet: in the outbox or on their way (0 once delivered)


async def policy_tenant(policy_id: uuid.UUID) -> uuid.UUID | None:
    """The tenant owning a policy, for operations staff (who act across tenants)."""
    row = await Policy.select(Policy.tenant_id).where(Policy.id == policy_id).first()
    return None if row is None else row["tenant_id"]


async def place_hold(policy_id: uuid.UUID, tenant_id: uuid.UUID, reason: str, actor: str) -> uuid.UUID:
    """Hold the policy's payouts; AlreadyHeld if a hold is in place (one at a time).

    The database decides (a partial unique index over the HELD holds of a policy, migration
    2026-11-26T06:30): of holds asked for at once exactly one is inserted, the others
    conflict and name it. (A check before the insert let both through on PostgreSQL.)"""
    for _ in range(3):
        hold_id = uuid.uuid4()
        placed = await PayoutHold.insert(PayoutHold(
            id=hold_id, tenant_id=tenant_id, policy_id=policy_id, state=HELD, reason=reason, held_by=actor,
            held_at=utcnow(),
        )).on_conflict(action="DO NOTHING").returning(PayoutHold.id)
        if placed:
            return hold_id
        current = await PayoutHold.select(PayoutHold.id).where(
            (PayoutHold.policy_id == policy_id) & (PayoutHold.state == HELD)
        ).first()
        if current is not None:
            raise AlreadyHeld(current["id"])
        # the hold in the way was released meanwhile: try again
    raise RuntimeError(f"policy {policy_id}: holds placed and released faster than this one could be placed")


async def release_hold(hold_id: uuid.UUID, reason: str, actor: str) -> None:
    """Release a hold (its payout messages go out at the next dispatch); NotHeld if it was
    released before. A conditional update: two releases at once release it once."""
    released = await PayoutHold.update({
        PayoutHold.state: RELEASED, PayoutHold.released_by: actor, PayoutHold.released_at: utcnow(),
        PayoutHold.release_reason: reason,
    }).where((PayoutHold.id == hold_id) & (PayoutHold.state == HELD)).returning(PayoutHold.id)
    if not released:
        raise NotHeld(str(hold_id))


async def hold_record(hold_id: uuid.UUID, tenant_id: uuid.UUID | None) -> HoldRecord | None:
    """A hold with what it holds; `tenant_id` None: any tenant's (operations staff)."""
    where = PayoutHold.id == hold_id
    if tenant_id is not None:
        where = where & (PayoutHold.tenant_id == tenant_id)
    row = await PayoutHold.select().where(where).first()
    return None if row is None else await _with_payouts(row)


async def list_holds(state: str | None, tenant_id: uuid.UUID | None, policy_id: uuid.UUID | None,
                     limit: int) -> list[HoldRecord]:
    """Holds, newest first; `tenant_id` None: every tenant's (operations staff)."""
    query = PayoutHold.select()
    if state:
        query = query.where(PayoutHold.state == state)
    if tenant_id is not None:
        query = query.where(PayoutHold.tenant_id == tenant_id)
    if policy_id is not None:
        query = query.where(PayoutHold.policy_id == policy_id)
    rows = await query.order_by(PayoutHold.held_at, ascending=False).limit(limit)
    return [await _with_payouts(r) for r in rows]


async def _with_payouts(row: dict) -> HoldRecord:
    while_held = (Payout.policy_id == row["policy_id"]) & (Payout.created_at >= row["held_at"])
    if row["released_at"] is not None:
        while_held = while_held & (Payout.created_at < row["released_at"])
    payouts = await Payout.select(Payout.amount_minor, Payout.currency).where(while_held)
    # Not sent yet: in the outbox (held back at dispatch), or with a delivery still PENDING
    # (a hold placed after the dispatch stops it before its next attempt, until the release).
    [waiting] = await WebhookMessage.raw(
        "SELECT COUNT(*) AS n FROM webhook_message m WHERE m.policy_id = {} "
        f"AND m.event_type IN ({', '.join('{}' for _ in HELD_EVENT_TYPES)}) AND (m.dispatched_at IS NULL OR EXISTS "
        "(SELECT 1 FROM webhook_delivery d WHERE d.message_id = m.id AND d.status = 'PENDING'))",
        row["policy_id"], *HELD_EVENT_TYPES,
    )
    currency = payouts[0]["currency"] if payouts else (
        (await Policy.select(Policy.currency).where(Policy.id == row["policy_id"]).first()) or {"currency": "INR"}
    )["currency"]
    return HoldRecord(row, len(payouts), sum(p["amount_minor"] for p in payouts), currency, int(waiting["n"]))
