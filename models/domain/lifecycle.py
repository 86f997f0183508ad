"""Rules of the quote and policy lifecycles that the API, the workflows and the stores share.

Pure: dates and ids in, dates and ids out (docs/quotes-and-policies.md, "Deadlines").

- A quote can be converted or rejected until its **deadline**: the end of its validity day
  (`valid_until`, 30 days after it was given) or the start of its risk period, whichever
  comes first. Cover is never sold once its risk period has started: part of the weather
  would already be known. Days here are UTC days (risk periods, validity and monitoring):
  the last day a quote can be accepted is `last_acceptance_day`, the date the API's
  `validUntil` and every document print; acceptance closes at 00:00 UTC the day after it.
- A policy draft **lapses** at the same moment: it can no longer be activated once the
  quote it came from could no longer be converted.
- Ids that a retry must find again are derived, not drawn: a quote's id from the client's
  Idempotency-Key, a business partner's from the key and the request, a policy's from its
  quote, a line item's from its policy and position.
"""

from __future__ import annotations

import datetime as dt
import uuid

# Namespace of every derived id of the service (UUIDv5).
ID_NAMESPACE = uuid.UUID("0b6c2f5e-7d0a-4c55-9a53-3f1c2d9e4b70")

UTC = dt.timezone.utc


def day_start(day: dt.date) -> dt.datetime:
    """00:00 UTC of `day`: risk periods, validity and monitoring run on UTC days."""
    return dt.datetime.combine(day, dt.time(0, 0), tzinfo=UTC)


def last_acceptance_day(valid_until: dt.date, risk_period_from: dt.date) -> dt.date:
    """The last (UTC) day a quote can be accepted: its validity day (`valid_until` as stored,
    the day it was given + 30), or the day before its risk period starts, whichever is
    earlier. This is the `validUntil` the API answers and the date documents print: acceptance
    is open through that whole UTC day and closes at 00:00 UTC the day after
    (`quote_deadline`), 05:30 IST."""
    return min(valid_until, risk_period_from - dt.timedelta(days=1))


def quote_deadline(valid_until: dt.date, risk_period_from: dt.date) -> dt.datetime:
    """The moment a quote stops being convertible and a draft of it lapses (UTC): 00:00 UTC
    of the day after `last_acceptance_day` (the earlier of the validity day's end and the
    risk period's start)."""
    return day_start(last_acceptance_day(valid_until, risk_period_from) + dt.timedelta(days=1))


def quote_id_for_key(tenant_id: str, idempotency_key: str) -> uuid.UUID:
    """A retried `POST /quotes` with the same Idempotency-Key finds the first quote."""
    return uuid.uuid5(ID_NAMESPACE, f"quote:{tenant_id}:{idempotency_key}")


def partner_id_for_key(tenant_id: str, idempotency_key: str, request_sha256: str) -> uuid.UUID:
    """A retried `POST /internal/business-partners` with the same Idempotency-Key and body
    finds the first partner (also once the key's record expired); after its expiry the key
    with another body is a new request, so a new partner."""
    return uuid.uuid5(ID_NAMESPACE, f"business-partner:{tenant_id}:{idempotency_key}:{request_sha256}")


def policy_id_for_quote(quote_id: uuid.UUID) -> uuid.UUID:
    """One policy per quote, found again by any retry of the conversion."""
    return uuid.uuid5(ID_NAMESPACE, f"policy:{quote_id}")


def line_item_ids(policy_id: uuid.UUID, count: int) -> list[uuid.UUID]:
    """The policy's line-item ids, by position (a retried write writes the same rows)."""
    return [uuid.uuid5(policy_id, f"line-item:{position}") for position in range(count)]


def update_id(operation: str, idempotency_key: str | None) -> str | None:
    """The Workflow Update id of a transition: from the client's Idempotency-Key, so a
    retried call gets the first call's answer; None lets Temporal draw one."""
    return None if idempotency_key is None else f"{operation}:{idempotency_key}"


# How long an HTTP call waits on a workflow (an update, or an update-with-start) before it
# answers 503 with Retry-After; the workflow goes on, and an Idempotency-Key makes the
# client's retry find the first call's outcome.
REQUEST_DEADLINE = dt.timedelta(seconds=20)
# Every attempt of a write a request waits on, retries included, ends within this budget, so
# a failed write is answered (503) before the request's deadline instead of landing after it.
REQUEST_WRITE_BUDGET = dt.timedelta(seconds=12)
