"""Webhook endpoints, the outbox and deliveries (docs/webhooks.md)."""

from __future__ import annotations

import base64
import datetime as dt
import secrets
import uuid

from models.clock import utcnow
from models.db.core import bulk_insert, insert_rows, json_value, scoped_select, scoped_update, write_transaction
from models.db.tables import WebhookDelivery, WebhookEndpoint, WebhookMessage
from models.domain.webhooks import DISABLE_AFTER, envelope, subscribed
from models.domain.webhooks import message_id as derived_message_id


def new_secret() -> str:
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()


async def create_endpoint(tenant_id: str, url: str, event_types: list[str], description: str) -> dict:
    now = utcnow()
    row = WebhookEndpoint(
        id=uuid.uuid4(), tenant_id=uuid.UUID(tenant_id), url=url, description=description,
        event_types=event_types, secret=new_secret(), created_at=now, updated_at=now,
    )
    await WebhookEndpoint.insert(row)
    return await WebhookEndpoint.select().where(WebhookEndpoint.id == row.id).first()


async def endpoints_of(tenant_id: str) -> list[dict]:
    return await scoped_select(WebhookEndpoint, tenant_id).order_by(WebhookEndpoint.created_at)


async def endpoint_of(tenant_id: str, endpoint_id: uuid.UUID) -> dict | None:
    return await scoped_select(WebhookEndpoint, tenant_id).where(WebhookEndpoint.id == endpoint_id).first()


async def set_endpoint_status(tenant_id: str, endpoint_id: uuid.UUID, status: str, reason: str = "") -> dict | None:
    values = {WebhookEndpoint.status: status, WebhookEndpoint.disabled_reason: reason, WebhookEndpoint.updated_at: utcnow()}
    if status == "ENABLED":
        values[WebhookEndpoint.failed_deliveries] = 0
    await scoped_update(WebhookEndpoint, tenant_id, values).where(WebhookEndpoint.id == endpoint_id)
    return await endpoint_of(tenant_id, endpoint_id)


def outbox_values(tenant_id: uuid.UUID, event_type: str, key: str, at: dt.datetime, data: dict,
                  message_id: str | None = None) -> dict:
    """A message (as `webhook_message` columns) to write in the transaction of what it
    reports (`key`: its identity, so a retried write makes the same message; or the
    caller's own stable `message_id`)."""
    return {
        "id": message_id or derived_message_id(event_type, key), "tenant_id": tenant_id, "event_type": event_type,
        "payload": envelope(event_type, at, data), "created_at": at, "dispatched_at": None,
    }


def outbox_row(tenant_id: uuid.UUID, event_type: str, key: str, at: dt.datetime, data: dict) -> WebhookMessage:
    return WebhookMessage(**outbox_values(tenant_id, event_type, key, at, data))


async def write_outbox(rows: list) -> None:
    """Inside the caller's transaction (rows: `outbox_values` dicts or `outbox_row`s); a
    retry writes nothing twice."""
    await bulk_insert(WebhookMessage, [r if isinstance(r, dict) else r.to_dict() for r in rows], on_conflict_nothing=True)


async def dispatch_pending(limit: int) -> list[str]:
    """Turn up to `limit` undispatched messages into deliveries (one per subscribed, enabled
    endpoint of the tenant), mark them dispatched; returns the new delivery ids. Idempotent.
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
        messages = await WebhookMessage.raw(
            "SELECT id, tenant_id, event_type FROM webhook_message WHERE dispatched_at IS NULL "
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


async def delivery_job(delivery_id: str) -> tuple[dict, dict, dict] | None:
    """(delivery, message, endpoint) rows, or None if any is gone."""
    d = await WebhookDelivery.select().where(WebhookDelivery.id == delivery_id).first()
    if d is None:
        return None
    m = await WebhookMessage.select().where(WebhookMessage.id == d["message_id"]).first()
    e = await WebhookEndpoint.select().where(WebhookEndpoint.id == d["endpoint_id"]).first()
    return (d, m, e) if m and e else None


async def record_attempt(delivery_id: str, status_code: int | None, error: str, delivered: bool) -> None:
    values = {
        WebhookDelivery.attempts: WebhookDelivery.attempts + 1,
        WebhookDelivery.last_status_code: status_code,
        WebhookDelivery.last_error: error[:2000],
        WebhookDelivery.updated_at: utcnow(),
    }
    if delivered:
        values[WebhookDelivery.status] = "DELIVERED"
    await WebhookDelivery.update(values).where(WebhookDelivery.id == delivery_id)


async def finish_delivery(delivery_id: str, delivered: bool, reason: str) -> bool:
    """The delivery's outcome and the endpoint's failure count; disables the endpoint after
    DISABLE_AFTER failed messages in a row. Returns whether the endpoint is (now) disabled."""
    async with write_transaction():
        d = await WebhookDelivery.select().where(WebhookDelivery.id == delivery_id).first()
        if d is None:
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
