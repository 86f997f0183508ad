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
    secret_rotated_at: dt.datetime | None  # the last rotation
    previous_secret_expires_at: dt.datetime | None  # the replaced secret signs too until then


class CreatedWebhookEndpoint(WebhookEndpointView):
    secret: str  # shown once: verify signatures with it (Standard Webhooks, whsec_…)


MAX_OVERLAP_SECONDS = 7 * 24 * 3600


class SecretRotation(CamelStruct):
    # How long the replaced secret keeps signing beside the new one (0: it stops at once).
    overlap_seconds: Annotated[int, msgspec.Meta(ge=0, le=MAX_OVERLAP_SECONDS, description="0-604800 (7 days)")] = 86400


class WebhookDeliveryView(CamelStruct):
    id: str
    message_id: str
    status: str  # PENDING | DELIVERED | FAILED
    attempts: int
    last_status_code: int | None
    last_error: str
    created_at: dt.datetime
    updated_at: dt.datetime
