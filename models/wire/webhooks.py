"""Wire types of webhook endpoints and deliveries (internal surface)."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Annotated

import msgspec

from models.wire.common import CamelStruct, OptionalText


class NewWebhookEndpoint(CamelStruct):
    url: Annotated[str, msgspec.Meta(min_length=8, max_length=2000)]
    event_types: list[str] = msgspec.field(default_factory=lambda: ["*"])
    description: OptionalText = ""


class WebhookEndpointView(CamelStruct):
    id: uuid.UUID
    url: str
    event_types: list[str]
    description: str
    status: str  # ENABLED | DISABLED
    disabled_reason: str
    failed_deliveries: int  # messages in a row not accepted
    created_at: dt.datetime


class CreatedWebhookEndpoint(WebhookEndpointView):
    secret: str  # shown once: verify signatures with it (Standard Webhooks, whsec_…)


class WebhookDeliveryView(CamelStruct):
    id: str
    message_id: str
    status: str  # PENDING | DELIVERED | FAILED
    attempts: int
    last_status_code: int | None
    last_error: str
    created_at: dt.datetime
    updated_at: dt.datetime
