"""Webhook endpoints, the outbox and deliveries (docs/webhooks.md).

Dispatch commits the deliveries it makes; their workflows are started after, and each
delivery records when (`started_at`). A dispatcher that dies in between leaves deliveries
PENDING and not started: every dispatch pass starts those too (`unstarted_deliveries`).

A payout message whose policy is held after its delivery was made is stopped before its
next attempt (`wait_for_release`): the delivery goes back to PENDING and not started, its
`held_times` one more, and the run that stopped it ends without sending or counting a
failure. The pass after the release starts it again as a new run (its workflow id carries
`held_times`: models/workflow_ids.py)."""

from __future__ import annotations

import base64
import datetime as dt
import secrets
import uuid
from collections.abc import Sequence

from models.clock import utcnow
from models.db.core import bulk_insert, insert_rows, json_value, scoped_select, scoped_update, write_transaction
from models.db.tables import WebhookDelivery, WebhookEndpoint, WebhookMessage
from models.db.webhook_secrets import seal, unseal
from models.domain.webhooks import DISABLE_AFTER, HELD_EVENT_TYPES, envelope, subscribed
from models.domain.webhooks import message_id as derived_message_id

DELETED = "DELETED"
# A message that instructs to pay a policy on hold (SQL over `webhook_message`): it waits.
_HELD = (
    f"(webhook_message.event_type IN ({', '.join(repr(t) for t in HELD_EVENT_TYPES)}) AND EXISTS "
    "(SELECT 1 FROM payout_hold h WHERE h.state = 'HELD' AND h.policy_id = webhook_message.policy_id))"
)


def new_secret() -> str:
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()


async def create_endpoint(tenant_id: str, url: str, event_types: list[str], description: str) -> dict:
    """The new endpoint's row, its `secret` in the clear (to be shown this once; the
    database holds it sealed)."""
    now = utcnow()
    endpoint_id = uuid.uuid4()
    secret = new_secret()
    row = WebhookEndpoint(
        id=endpoint_id, tenant_id=uuid.UUID(tenant_id), url=url, description=description,
        event_types=event_types, secret=seal(secret, endpoint_id), created_at=now, updated_at=now,
    )
    await WebhookEndpoint.insert(row)
    stored = await WebhookEndpoint.select().where(WebhookEndpoint.id == row.id).first()
    return {**stored, "secret": secret}


def _live(tenant_id: str):
    """The tenant's endpoints that are not deleted."""
    return scoped_select(WebhookEndpoint, tenant_id).where(WebhookEndpoint.status != DELETED)


async def endpoints_of(tenant_id: str) -> list[dict]:
    return await _live(tenant_id).order_by(WebhookEndpoint.created_at)


async def endpoint_of(tenant_id: str, endpoint_id: uuid.UUID) -> dict | None:
    return await _live(tenant_id).where(WebhookEndpoint.id == endpoint_id).first()


async def set_endpoint_status(tenant_id: str, endpoint_id: uuid.UUID, status: str, reason: str = "") -> dict | None:
    values = {WebhookEndpoint.status: status, WebhookEndpoint.disabled_reason: reason, WebhookEndpoint.updated_at: utcnow()}
    if status == "ENABLED":
        values[WebhookEndpoint.failed_deliveries] = 0
    await scoped_update(WebhookEndpoint, tenant_id, values).where(
        (WebhookEndpoint.id == endpoint_id) & (WebhookEndpoint.status != DELETED)
    )
    return await endpoint_of(tenant_id, endpoint_id)


async def rotate_secret(tenant_id: str, endpoint_id: uuid.UUID, overlap: dt.timedelta) -> tuple[dict, str] | None:
    """A new secret for the endpoint: (its row, the new secret in the clear), or None if the
    tenant has no such endpoint. For `overlap` the secret it replaces signs too (one
    statement moves it, so concurrent rotations never lose the one a receiver holds); with
    no overlap it stops at once. A secret older than the replaced one no longer signs."""
    now = utcnow()
    secret = new_secret()
    previous, expires = ("secret", now + overlap) if overlap > dt.timedelta(0) else ("''", None)
    await WebhookEndpoint.raw(
        f"UPDATE webhook_endpoint SET previous_secret = {previous}, previous_secret_expires_at = {{}}, "
        "secret = {}, secret_rotated_at = {}, updated_at = {} WHERE id = {} AND tenant_id = {} AND status != {}",
        expires, seal(secret, endpoint_id), now, now, endpoint_id, uuid.UUID(str(tenant_id)), DELETED,
    )
    row = await endpoint_of(tenant_id, endpoint_id)
    return (row, secret) if row is not None else None


async def delete_endpoint(tenant_id: str, endpoint_id: uuid.UUID) -> bool:
    """Delete the tenant's endpoint: gone from its lists and look-ups, nothing more is sent
    to it (deliveries under way end unsent), its secrets erased. The row stays, DELETED,
    for the delivery records that name it. False if there was no such endpoint."""
    if await endpoint_of(tenant_id, endpoint_id) is None:
        return False
    await scoped_update(WebhookEndpoint, tenant_id, {
        WebhookEndpoint.status: DELETED, WebhookEndpoint.disabled_reason: "deleted by the tenant",
        WebhookEndpoint.secret: "", WebhookEndpoint.previous_secret: "",
        WebhookEndpoint.previous_secret_expires_at: None, WebhookEndpoint.updated_at: utcnow(),
    }).where(WebhookEndpoint.id == endpoint_id)
    return True


def signing_secrets(endpoint: dict, now: dt.datetime) -> list[str]:
    """The secrets that sign a message sent now, in the clear: the current one, and the
    previous one during its overlap (Standard Webhooks: a receiver holding either verifies).
    Raises `SecretUnreadable` if the configured key does not open them."""
    out = [unseal(endpoint["secret"], endpoint["id"])]
    expires = endpoint.get("previous_secret_expires_at")
    if endpoint.get("previous_secret") and expires is not None and now < expires:
        out.append(unseal(endpoint["previous_secret"], endpoint["id"]))
    return out


async def seal_plain_secrets() -> int:
    """Seal the secrets stored in the clear (rows of before sealing at rest, or written by an
    older process since); returns how many. Reads and writes `id` and `secret` only, as the
    migration that introduced sealing runs it."""
    rows = await WebhookEndpoint.raw("SELECT id, secret FROM webhook_endpoint WHERE secret LIKE {}", "whsec%")
    sealed = 0
    for row in rows:
        if row["secret"].startswith("whsec_"):
            endpoint_id = uuid.UUID(str(row["id"]))
            await WebhookEndpoint.raw(
                "UPDATE webhook_endpoint SET secret = {} WHERE id = {} AND secret = {}",
                seal(row["secret"], endpoint_id), endpoint_id, row["secret"],
            )
            sealed += 1
    return sealed


async def unseal_all_secrets() -> int:
    """The reverse, for going back to code that reads secrets in the clear."""
    rows = await WebhookEndpoint.raw("SELECT id, secret FROM webhook_endpoint WHERE secret LIKE {}", "enc1:%")
    for row in rows:
        endpoint_id = uuid.UUID(str(row["id"]))
        await WebhookEndpoint.raw(
            "UPDATE webhook_endpoint SET secret = {} WHERE id = {}", unseal(row["secret"], endpoint_id), endpoint_id
        )
    return len(rows)


def outbox_values(tenant_id: uuid.UUID, event_type: str, key: str, at: dt.datetime, data: dict,
                  message_id: str | None = None, policy_id: uuid.UUID | None = None) -> dict:
    """A message (as `webhook_message` columns) to write in the transaction of what it
    reports (`key`: its identity, so a retried write makes the same message; or the
    caller's own stable `message_id`). `policy_id`: the policy a payout message pays (a
    held policy's are not sent until released)."""
    return {
        "id": message_id or derived_message_id(event_type, key), "tenant_id": tenant_id, "event_type": event_type,
        "payload": envelope(event_type, at, data), "created_at": at, "dispatched_at": None, "policy_id": policy_id,
    }


def outbox_row(tenant_id: uuid.UUID, event_type: str, key: str, at: dt.datetime, data: dict) -> WebhookMessage:
    return WebhookMessage(**outbox_values(tenant_id, event_type, key, at, data))


async def write_outbox(rows: list) -> None:
    """Inside the caller's transaction (rows: `outbox_values` dicts or `outbox_row`s); a
    retry writes nothing twice."""
    await bulk_insert(WebhookMessage, [r if isinstance(r, dict) else r.to_dict() for r in rows], on_conflict_nothing=True)


async def dispatch_pending(limit: int) -> list[str]:
    """Turn up to `limit` undispatched messages into deliveries (one per subscribed, enabled
    endpoint of the tenant), mark them dispatched; returns the new delivery ids, whose
    workflows are not started yet (`unstarted_deliveries` finds them again). Idempotent.
    Reads only the columns it matches on (not the payloads): a month end's settlement
    leaves thousands of messages, most of them for tenants with no endpoint."""
    now = utcnow()
    async with write_transaction():
        # Messages of tenants with no enabled endpoint have no one to go to: closed in one
        # statement (a month end leaves thousands), not read and matched a page at a time.
        await WebhookMessage.raw(
            "UPDATE webhook_message SET dispatched_at = {} WHERE dispatched_at IS NULL AND NOT EXISTS "
            "(SELECT 1 FROM webhook_endpoint e WHERE e.tenant_id = webhook_message.tenant_id AND e.status = 'ENABLED')",
            now,
        )
        # The instruction to pay of a policy on hold waits for its release (payout holds).
        messages = await WebhookMessage.raw(
            f"SELECT id, tenant_id, event_type FROM webhook_message WHERE dispatched_at IS NULL AND NOT {_HELD} "
            "ORDER BY created_at LIMIT {}",
            limit,
        )
        if not messages:
            return []
        tenants = list({m["tenant_id"] for m in messages})
        endpoints = await WebhookEndpoint.select(
            WebhookEndpoint.id, WebhookEndpoint.tenant_id, WebhookEndpoint.event_types
        ).where(WebhookEndpoint.tenant_id.is_in(tenants) & (WebhookEndpoint.status == "ENABLED"))
        by_tenant: dict = {}
        for e in endpoints:
            by_tenant.setdefault(str(e["tenant_id"]), []).append((e["id"], json_value(e["event_types"])))
        deliveries = []
        for m in messages:
            for endpoint_id, event_types in by_tenant.get(str(m["tenant_id"]), ()):
                if subscribed(event_types, m["event_type"]):
                    deliveries.append(
                        WebhookDelivery(
                            id=f"{m['id']}:{endpoint_id}", tenant_id=m["tenant_id"], message_id=m["id"],
                            endpoint_id=endpoint_id, created_at=now, updated_at=now,
                        )
                    )
        for i in range(0, len(deliveries), 200):
            await insert_rows(deliveries[i : i + 200], on_conflict_nothing=True)
        ids = [m["id"] for m in messages]
        await WebhookMessage.raw(
            f"UPDATE webhook_message SET dispatched_at = {{}} WHERE id IN ({', '.join('{}' for _ in ids)})", now, *ids
        )
    return [d.id for d in deliveries]


async def unstarted_deliveries(limit: int, created_before: dt.datetime,
                               leaving: Sequence[str] = ()) -> list[tuple[str, int]]:
    """Up to `limit` PENDING deliveries made before `created_before` whose workflow was not
    started (oldest first), each with its `held_times` (the run to start): a pass that made
    them died after its commit, or a hold stopped them on their way and was released since.
    `leaving`: ids the caller starts anyway. A held policy's payout messages wait, as in
    `dispatch_pending` (a hold placed since the delivery was made)."""
    rows = await WebhookDelivery.raw(
        "SELECT d.id, d.held_times FROM webhook_delivery d JOIN webhook_message ON webhook_message.id = d.message_id "
        f"WHERE d.started_at IS NULL AND d.status = 'PENDING' AND d.created_at < {{}} AND NOT {_HELD} "
        "ORDER BY d.created_at LIMIT {}",
        created_before, limit,
    )
    leave = set(leaving)
    return [(r["id"], r["held_times"]) for r in rows if r["id"] not in leave]


async def mark_started(started: Sequence[tuple[str, int]]) -> None:
    """The deliveries' workflows were started (or found running or closed): (id, the
    `held_times` of the run started). A delivery a hold put back since is left unstarted."""
    now = utcnow()
    by_round: dict[int, list[str]] = {}
    for delivery_id, held_times in started:
        by_round.setdefault(held_times, []).append(delivery_id)
    for held_times, ids in by_round.items():
        for i in range(0, len(ids), 500):
            await WebhookDelivery.update({WebhookDelivery.started_at: now}).where(
                WebhookDelivery.id.is_in(ids[i : i + 500]) & WebhookDelivery.started_at.is_null()
                & (WebhookDelivery.held_times == held_times)
            )


HOLD_WAIT = "not sent: the policy's payouts are on hold; sent after the release"


async def wait_for_release(delivery_id: str, held_times: int) -> bool:
    """Before an attempt: if the delivery is a payout message of a policy on hold, put it
    back (PENDING, not started, `held_times` one more: the pass after the release starts a
    new run) and answer True: the run `held_times` must not send it. One statement, so an
    attempt and a hold placed at the same time cannot both pass."""
    now = utcnow()
    put_back = await WebhookDelivery.raw(
        "UPDATE webhook_delivery SET started_at = NULL, held_times = held_times + 1, last_error = {}, updated_at = {} "
        "WHERE id = {} AND status = 'PENDING' AND held_times = {} AND EXISTS (SELECT 1 FROM webhook_message "
        f"WHERE webhook_message.id = webhook_delivery.message_id AND {_HELD}) RETURNING id",
        HOLD_WAIT, now, delivery_id, held_times,
    )
    return bool(put_back)


async def delivery_job(delivery_id: str) -> tuple[dict, dict, dict] | None:
    """(delivery, message, endpoint) rows, or None if any is gone."""
    d = await WebhookDelivery.select().where(WebhookDelivery.id == delivery_id).first()
    if d is None:
        return None
    m = await WebhookMessage.select().where(WebhookMessage.id == d["message_id"]).first()
    e = await WebhookEndpoint.select().where(WebhookEndpoint.id == d["endpoint_id"]).first()
    return (d, m, e) if m and e else None


async def record_attempt(delivery_id: str, status_code: int | None, error: str, delivered: bool,
                         attempted: bool = True) -> None:
    """An attempt's outcome: the receiver's status code and a reason in our own words, never
    what the receiver answered (`attempted=False`: refused before connecting, not counted)."""
    values = {
        WebhookDelivery.last_status_code: status_code,
        WebhookDelivery.last_error: error[:2000],
        WebhookDelivery.updated_at: utcnow(),
    }
    if attempted:
        values[WebhookDelivery.attempts] = WebhookDelivery.attempts + 1
    if delivered:
        values[WebhookDelivery.status] = "DELIVERED"
    await WebhookDelivery.update(values).where(WebhookDelivery.id == delivery_id)


async def finish_delivery(delivery_id: str, delivered: bool, reason: str, held_times: int | None = None) -> bool:
    """The delivery's outcome and the endpoint's failure count; disables the endpoint after
    DISABLE_AFTER failed messages in a row. Returns whether the endpoint is (now) disabled.
    `held_times`: the run finishing; a run a payout hold stopped (the delivery was put back
    since) records nothing: the run after the release finishes it."""
    async with write_transaction():
        d = await WebhookDelivery.select().where(WebhookDelivery.id == delivery_id).first()
        if d is None or (held_times is not None and d["held_times"] != held_times):
            return False
        e = await WebhookEndpoint.select().where(WebhookEndpoint.id == d["endpoint_id"]).first()
        now = utcnow()
        if delivered:
            await WebhookEndpoint.update({WebhookEndpoint.failed_deliveries: 0, WebhookEndpoint.updated_at: now}).where(
                WebhookEndpoint.id == d["endpoint_id"]
            )
            return False
        await WebhookDelivery.update({WebhookDelivery.status: "FAILED", WebhookDelivery.updated_at: now}).where(
            WebhookDelivery.id == delivery_id
        )
        if e is None:
            return False
        # Counted in the database (which also locks the row until commit): deliveries failing
        # at once must each count; a read-then-write lost increments on PostgreSQL.
        await WebhookEndpoint.update(
            {WebhookEndpoint.failed_deliveries: WebhookEndpoint.failed_deliveries + 1, WebhookEndpoint.updated_at: now}
        ).where(WebhookEndpoint.id == d["endpoint_id"])
        e = await WebhookEndpoint.select().where(WebhookEndpoint.id == d["endpoint_id"]).first()
        failures = e["failed_deliveries"]
        if e["status"] != "ENABLED" or failures < DISABLE_AFTER:
            return False
        await WebhookEndpoint.update({
            WebhookEndpoint.status: "DISABLED",
            WebhookEndpoint.disabled_reason: f"disabled after {failures} messages in a row were not accepted; the last: {reason}",
        }).where(WebhookEndpoint.id == d["endpoint_id"])
        return True


async def deliveries_of(tenant_id: str, endpoint_id: uuid.UUID, limit: int) -> list[dict]:
    return await scoped_select(WebhookDelivery, tenant_id).where(WebhookDelivery.endpoint_id == endpoint_id).order_by(
        WebhookDelivery.created_at, ascending=False
    ).limit(limit)
