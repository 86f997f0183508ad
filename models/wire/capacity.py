"""Wire types of capacity limits (docs/capacity.md): operations staff set them; quotes show
whether they fit; a bind that does not fit is a 409 naming the limit."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Annotated

import msgspec

from models.wire.common import CamelStruct, Money

Month = Annotated[str, msgspec.Meta(pattern=r"^\d{4}-(0[1-9]|1[0-2])$", description="a risk month, YYYY-MM",
                                    examples=["2027-01"])]
TargetId = Annotated[str, msgspec.Meta(min_length=1, max_length=40, description="a monitoring target's id")]


class NewCapacityLimit(CamelStruct, forbid_unknown_fields=True):
    """A limit on the most the book may pay under a key; a missing part of the key means all
    (no `monitoringTargetId`: every target; none of the three: the whole book)."""

    limit: Money
    monitoring_target_id: TargetId | None = None
    month: Month | None = None
    tenant_id: uuid.UUID | None = None


class CapacityLimitChange(CamelStruct, forbid_unknown_fields=True):
    limit: Money


class CapacityLimitKey(CamelStruct):
    """Which limit: its id and key (null: all), in words too."""

    id: uuid.UUID
    monitoring_target_id: str | None
    month: str | None
    tenant_id: uuid.UUID | None
    description: str  # "monitoring target X, month 2027-01, all tenants" or "the whole book"
    limit: Money


class CapacityLimitView(CamelStruct):
    id: uuid.UUID
    monitoring_target_id: str | None
    month: str | None
    tenant_id: uuid.UUID | None
    description: str
    limit: Money
    used: Money  # what policies in draft or in force take of it
    remaining: Money  # what binds may still take (0 when the limit is below what is used)
    created_by: str  # the operations staff member who set it
    created_at: dt.datetime
    updated_at: dt.datetime


class QuoteCapacity(CamelStruct):
    """Whether the quote fits the capacity limits now (binding decides, atomically), as its
    tenant may see it: never what other tenants hold of a limit (docs/capacity.md). `limit` is
    the limit it would be refused on (when it does not fit) or the tightest for the tenant's
    own book (when it fits); `required` what this quote would take of it; `used` what the
    tenant's own policies (draft or in force) take of it; `remaining` what it has left, only
    on a limit on the tenant's own book (null on a limit shared by all tenants). All null when
    no limit applies. Null on a quote that can no longer be bound."""

    fits: bool
    limit: CapacityLimitKey | None = None
    remaining: Money | None = None
    required: Money | None = None
    used: Money | None = None

