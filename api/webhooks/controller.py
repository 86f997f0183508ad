"""Internal surface: a tenant's webhook endpoints and their deliveries (docs/webhooks.md)."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Annotated

from api.responses import DecimalNumberResponse
from litestar import Controller, Response, delete, get, post
from litestar.di import NamedDependency
from litestar.params import Body, FromPath, JSONBody, QueryParameter

from api.auth.tokens import Principal
from api.openapi_docs import AUTHED, problems, tenant_header
from api.pagination import check_size
from api.problems import InvalidInput, NotFound
from models.db import webhooks as webhooks_db
from models.db.core import json_value
from models.domain.webhooks import EVENT_TYPES
from models.settings import Settings
from models.webhook_resolution import Refused, Unresolved, policy_of, resolve
from models.wire.common import FieldError
from models.wire.webhooks import (
    CreatedWebhookEndpoint,
    NewWebhookEndpoint,
    SecretRotation,
    WebhookDeliveryView,
    WebhookEndpointView,
)
from api.auth.roles import Caller, callers


def _view(row: dict, cls=WebhookEndpointView, **extra):
    return cls(
        id=row["id"], url=row["url"], event_types=json_value(row["event_types"]), description=row["description"],
        status=row["status"], disabled_reason=row["disabled_reason"], failed_deliveries=row["failed_deliveries"],
        created_at=row["created_at"], secret_rotated_at=row["secret_rotated_at"],
        previous_secret_expires_at=row["previous_secret_expires_at"], **extra,
    )


async def _check(data: NewWebhookEndpoint, settings: Settings) -> None:
    """The URL leads to a public receiver now (it is checked again before every attempt),
    and the event types are known."""
    try:
        await resolve(data.url, policy_of(settings))
    except (Refused, Unresolved) as exc:
        raise InvalidInput(f"url: {exc}", errors=[FieldError("url", str(exc))]) from None
    unknown = [t for t in data.event_types if t != "*" and t not in EVENT_TYPES]
    if not data.event_types or unknown:
        message = f"unknown event type(s) {', '.join(unknown)}; known: {', '.join(EVENT_TYPES)} or *" if unknown else "at least one event type (or *)"
        raise InvalidInput(f"eventTypes: {message}", errors=[FieldError("eventTypes", message)])


async def _endpoint_or_404(principal: Principal, endpoint_id: uuid.UUID) -> dict:
    row = await webhooks_db.endpoint_of(principal.tenant_id, endpoint_id)
    if row is None:
        raise NotFound(f"webhook endpoint {endpoint_id} does not exist")
    return row


class WebhookEndpointController(Controller):
    opt = callers(Caller.TENANT_INTERNAL)
    path = "/internal/webhook-endpoints"
    tags = ["Internal surface"]
    parameters = tenant_header()

    @post(operation_id="createWebhookEndpoint", summary="Register a webhook endpoint; its signing secret is shown once",
          responses=problems(*AUTHED, 413))
    async def create(
        self, data: JSONBody[NewWebhookEndpoint], principal: NamedDependency[Principal], settings: NamedDependency[Settings]
    ) -> Response[CreatedWebhookEndpoint]:
        await _check(data, settings)
        row = await webhooks_db.create_endpoint(principal.tenant_id, data.url, list(dict.fromkeys(data.event_types)), data.description)
        body = _view(row, CreatedWebhookEndpoint, secret=row["secret"])
        return DecimalNumberResponse(body, status_code=201, headers={"Location": f"/internal/webhook-endpoints/{row['id']}"})

    @get(operation_id="listWebhookEndpoints", summary="The tenant's webhook endpoints", responses=problems(*AUTHED))
    async def list_endpoints(self, principal: NamedDependency[Principal]) -> list[WebhookEndpointView]:
        return [_view(r) for r in await webhooks_db.endpoints_of(principal.tenant_id)]

    @get("/{endpoint_id:uuid}", operation_id="getWebhookEndpoint", summary="One webhook endpoint", responses=problems(*AUTHED, 404))
    async def get_endpoint(self, principal: NamedDependency[Principal], endpoint_id: FromPath[uuid.UUID]) -> WebhookEndpointView:
        return _view(await _endpoint_or_404(principal, endpoint_id))

    @post("/{endpoint_id:uuid}/disable", operation_id="disableWebhookEndpoint", status_code=200,
          summary="Stop sending to the endpoint", responses=problems(*AUTHED, 404))
    async def disable(self, principal: NamedDependency[Principal], endpoint_id: FromPath[uuid.UUID]) -> WebhookEndpointView:
        await _endpoint_or_404(principal, endpoint_id)
        return _view(await webhooks_db.set_endpoint_status(principal.tenant_id, endpoint_id, "DISABLED", "disabled by the tenant"))

    @post("/{endpoint_id:uuid}/enable", operation_id="enableWebhookEndpoint", status_code=200,
          summary="Send to the endpoint again (new messages; its failure count starts at 0)", responses=problems(*AUTHED, 404))
    async def enable(self, principal: NamedDependency[Principal], endpoint_id: FromPath[uuid.UUID]) -> WebhookEndpointView:
        await _endpoint_or_404(principal, endpoint_id)
        return _view(await webhooks_db.set_endpoint_status(principal.tenant_id, endpoint_id, "ENABLED"))

    @post("/{endpoint_id:uuid}/rotate-secret", operation_id="rotateWebhookSecret", status_code=200,
          summary="A new signing secret, shown once; the replaced one signs too for overlapSeconds (default 24 h)",
          responses=problems(*AUTHED, 404))
    async def rotate_secret(
        self, principal: NamedDependency[Principal], endpoint_id: FromPath[uuid.UUID],
        data: Annotated[SecretRotation | None, Body(description="Optional: {overlapSeconds: 0-604800}")] = None,
    ) -> CreatedWebhookEndpoint:
        overlap = dt.timedelta(seconds=(data or SecretRotation()).overlap_seconds)
        rotated = await webhooks_db.rotate_secret(principal.tenant_id, endpoint_id, overlap)
        if rotated is None:
            raise NotFound(f"webhook endpoint {endpoint_id} does not exist")
        row, secret = rotated
        return _view(row, CreatedWebhookEndpoint, secret=secret)

    @delete("/{endpoint_id:uuid}", operation_id="deleteWebhookEndpoint", status_code=204,
            summary="Delete the endpoint: nothing more is sent to it, its secrets are erased", responses=problems(*AUTHED, 404))
    async def delete_endpoint(self, principal: NamedDependency[Principal], endpoint_id: FromPath[uuid.UUID]) -> None:
        if not await webhooks_db.delete_endpoint(principal.tenant_id, endpoint_id):
            raise NotFound(f"webhook endpoint {endpoint_id} does not exist")

    @get("/{endpoint_id:uuid}/deliveries", operation_id="listWebhookDeliveries",
         summary="The endpoint's latest deliveries: status, attempts, last answer", responses=problems(*AUTHED, 404))
    async def deliveries(
        self, principal: NamedDependency[Principal], settings: NamedDependency[Settings], endpoint_id: FromPath[uuid.UUID],
        size: Annotated[int, QueryParameter(description="1-100")] = 100,
    ) -> list[WebhookDeliveryView]:
        check_size(size, settings.max_page_size)
        await _endpoint_or_404(principal, endpoint_id)
        return [
            WebhookDeliveryView(
                id=r["id"], message_id=r["message_id"], status=r["status"], attempts=r["attempts"],
                last_status_code=r["last_status_code"], last_error=r["last_error"], created_at=r["created_at"],
                updated_at=r["updated_at"],
            )
            for r in await webhooks_db.deliveries_of(principal.tenant_id, endpoint_id, size)
        ]
