"""Capacity limits (docs/capacity.md): operations staff set the most the book may pay per
monitoring target, risk month and tenant (or for the whole book) and read what is used of
each. One limit per key: a second POST on a key answers 409 naming the one in place; PUT
changes its amount, DELETE removes it."""

from __future__ import annotations

import uuid

from litestar import Controller, Response, delete, get, post, put
from litestar.di import NamedDependency
from litestar.params import FromPath, JSONBody

from api.auth.roles import Caller, callers
from api.auth.tokens import Principal
from api.capacity.views import limit_view
from api.openapi_docs import AUTHED, problems, tenant_header
from api.problems import Conflict, InvalidInput, NotFound
from api.responses import DecimalNumberResponse
from models.db import capacity as capacity_db
from models.db.tables import MonitoringTarget, Tenant
from models.domain.capacity import LimitKey, parse_month
from models.settings import Settings
from models.wire.capacity import CapacityLimitChange, CapacityLimitView, NewCapacityLimit
from models.wire.common import Money


def _limit_minor(limit: Money, settings: Settings) -> int:
    """Limits are in the book's currency (CATALOGUE_CURRENCY, INR): every cover is sold in it."""
    if limit.currency != settings.catalogue_currency:
        raise InvalidInput.of_field("limit.currency", f"capacity limits are in {settings.catalogue_currency}, the book's currency")
    return limit.minor


async def _key(data: NewCapacityLimit) -> LimitKey:
    if data.monitoring_target_id is not None and not await MonitoringTarget.exists().where(
        MonitoringTarget.id == data.monitoring_target_id
    ):
        raise InvalidInput.of_field("monitoringTargetId", f"no monitoring target {data.monitoring_target_id}")
    if data.tenant_id is not None and not await Tenant.exists().where(
        (Tenant.id == data.tenant_id) & (Tenant.kind == "TENANT")
    ):
        raise InvalidInput.of_field("tenantId", f"no tenant {data.tenant_id}")
    if data.month is not None:
        try:
            parse_month(data.month)
        except ValueError as bad:
            raise InvalidInput.of_field("month", str(bad)) from None
    return LimitKey(data.monitoring_target_id, data.month, data.tenant_id)


class CapacityLimitController(Controller):
    opt = callers(Caller.OPERATIONS)
    path = "/internal/capacity-limits"
    tags = ["Internal surface"]
    parameters = tenant_header()

    @post(operation_id="setCapacityLimit", summary="Set a capacity limit (operations staff)",
          description="The most the book may pay under a key: a monitoring target, a risk month (YYYY-MM) and a "
                      "tenant, each missing for all (none: the whole book). It starts from what policies in draft "
                      "or in force already take of it. One limit per key: 409 names the one in place.",
          responses=problems(*AUTHED, 409))
    async def create(
        self, data: JSONBody[NewCapacityLimit], principal: NamedDependency[Principal], settings: NamedDependency[Settings]
    ) -> Response[CapacityLimitView]:
        limit_minor = _limit_minor(data.limit, settings)
        key = await _key(data)
        try:
            record = await capacity_db.create_limit(key, data.limit.currency, limit_minor, principal.actor)
        except capacity_db.LimitExists as exists:
            raise Conflict(
                f"a capacity limit on {key.label()} is in place ({exists.limit_id}): change it with PUT {self.path}/"
                f"{exists.limit_id}", headers={"Location": f"{self.path}/{exists.limit_id}"},
            ) from None
        return DecimalNumberResponse(limit_view(record), status_code=201, headers={"Location": f"{self.path}/{record.id}"})

    @get(operation_id="listCapacityLimits", summary="Capacity limits with what is used and what remains",
         responses=problems(*AUTHED))
    async def list_limits(self) -> list[CapacityLimitView]:
        return [limit_view(r) for r in await capacity_db.list_limits()]

    @get("/{limit_id:uuid}", operation_id="getCapacityLimit", summary="One capacity limit", responses=problems(*AUTHED, 404))
    async def get_limit(self, limit_id: FromPath[uuid.UUID]) -> CapacityLimitView:
        record = await capacity_db.get_limit(limit_id)
        if record is None:
            raise NotFound(f"capacity limit {limit_id} does not exist")
        return limit_view(record)

    @put("/{limit_id:uuid}", operation_id="changeCapacityLimit", summary="Change a capacity limit's amount",
         description="Lowering it below what is used refuses the binds that need of it; nothing bound is undone.",
         responses=problems(*AUTHED, 404))
    async def change(
        self, limit_id: FromPath[uuid.UUID], data: JSONBody[CapacityLimitChange], settings: NamedDependency[Settings]
    ) -> CapacityLimitView:
        record = await capacity_db.change_limit(limit_id, data.limit.currency, _limit_minor(data.limit, settings))
        if record is None:
            raise NotFound(f"capacity limit {limit_id} does not exist")
        return limit_view(record)

    @delete("/{limit_id:uuid}", operation_id="removeCapacityLimit", summary="Remove a capacity limit",
            responses=problems(*AUTHED, 404))
    async def remove(self, limit_id: FromPath[uuid.UUID]) -> None:
        if not await capacity_db.delete_limit(limit_id):
            raise NotFound(f"capacity limit {limit_id} does not exist")
