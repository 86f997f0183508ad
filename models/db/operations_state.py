"""What needs a person now, read from the database for the API's `/metrics` (gauges an alert
can hold a duration against: docs/runbook.md, "Metrics and alerts"). A handful of indexed
reads per scrape.

A FLAGGED settlement's row is written again at each look (weekly, and when observations
arrive) while it stays FLAGGED, so its `updated_at` says when it was last looked at, not
since when it needs a person; its age here is counted from the end of its period, which a
look never moves (it is flagged about 11 days after: workflows/settlement.py, due 4 days
after the period, then 7 days of waiting for data)."""

from __future__ import annotations

import dataclasses
import datetime as dt

from models.clock import utcnow
from models.db.tables import ObservationRevision, PayoutHold, PricingRun, Settlement, WebhookDelivery, WebhookMessage
from models.domain.webhooks import HELD_EVENT_TYPES


@dataclasses.dataclass(frozen=True)
class OperationsState:
    settlements_flagged: int
    flagged_period_ended_seconds: float  # since the period of the oldest flagged settlement ended
    revisions_held: int
    held_oldest_seconds: float  # since the oldest held observation revision was submitted
    pricing_candidates: int
    candidate_lapse_soonest_seconds: float  # until the first actuary candidate lapses (may be < 0)
    deliveries_pending: int
    pending_oldest_seconds: float  # since the oldest pending webhook delivery was committed
    deliveries_failed_day: int  # deliveries given up (FAILED) in the last 24 hours


def _age(now: dt.datetime, when: dt.datetime | None) -> float:
    return max(0.0, (now - when).total_seconds()) if when is not None else 0.0


def _day_end(day: dt.date | None) -> dt.datetime | None:
    """The end of a period's last day (UTC midnight after it; periods are dates)."""
    return None if day is None else dt.datetime.combine(day + dt.timedelta(days=1), dt.time(), dt.timezone.utc)


async def _oldest(table, column, where) -> tuple[int, dt.datetime | None]:
    count = await table.count().where(where)
    if not count:
        return 0, None
    first = await table.select(column).where(where).order_by(column).limit(1).first()
    return count, first and first[column._meta.name]


async def _held_message_ids() -> list[str]:
    """The messages a standing payout hold keeps from their receivers (their policies' payout
    messages: models/db/webhooks.py holds them)."""
    held_policies = [r["policy_id"] for r in await PayoutHold.select(PayoutHold.policy_id).where(PayoutHold.state == "HELD")]
    if not held_policies:
        return []
    rows = await WebhookMessage.select(WebhookMessage.id).where(
        WebhookMessage.policy_id.is_in(held_policies) & WebhookMessage.event_type.is_in(list(HELD_EVENT_TYPES))
    )
    return [r["id"] for r in rows]


async def operations_state(candidate_lifetime_seconds: int) -> OperationsState:
    now = utcnow()
    flagged, flagged_end = await _oldest(Settlement, Settlement.period_end, Settlement.state == "FLAGGED")
    held, held_at = await _oldest(ObservationRevision, ObservationRevision.created_at, ObservationRevision.state == "HELD")
    candidates, candidate_at = await _oldest(PricingRun, PricingRun.completed_at, PricingRun.status == "CANDIDATE")
    # a payout message a hold keeps waiting is not late: ops hold it on purpose
    held_messages = await _held_message_ids()
    pending_where = WebhookDelivery.status == "PENDING"
    if held_messages:
        pending_where &= WebhookDelivery.message_id.not_in(held_messages)
    pending, pending_at = await _oldest(WebhookDelivery, WebhookDelivery.created_at, pending_where)
    failed = await WebhookDelivery.count().where(
        (WebhookDelivery.status == "FAILED") & (WebhookDelivery.updated_at > now - dt.timedelta(days=1))
    )
    lapse = (
        (candidate_at + dt.timedelta(seconds=candidate_lifetime_seconds) - now).total_seconds()
        if candidate_at is not None else float(candidate_lifetime_seconds)
    )
    return OperationsState(
        settlements_flagged=flagged, flagged_period_ended_seconds=_age(now, _day_end(flagged_end)),
        revisions_held=held, held_oldest_seconds=_age(now, held_at),
        pricing_candidates=candidates, candidate_lapse_soonest_seconds=lapse,
        deliveries_pending=pending, pending_oldest_seconds=_age(now, pending_at),
        deliveries_failed_day=failed,
    )
