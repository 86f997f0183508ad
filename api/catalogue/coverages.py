"""Internal surface: the coverage catalogue (created on demand per target; its pricing runs are
in api/pricing/)."""

from __future__ import annotations

import asyncio
import re
import uuid
from typing import Annotated

from litestar import Controller, Request, get
from litestar.di import NamedDependency, Provide
from litestar.params import FromPath, QueryParameter
from temporalio.client import Client

from api.catalogue.responses import coverage_full
from api.catalogue.service import (
    catalogue_window,
    complete,
    ensure_coverages,
    period_slots,
    remember_nonviable,
)
from api.catalogue.window import check_sellable, parse_day, sellable_window
from api.auth.tokens import Principal
from api.deps import WORKFLOW_DEADLINE, provide_temporal
from api.openapi_docs import AUTHED, problems, tenant_header
from api.pagination import PageParam, check_size, rich_page_of
from api.problems import InvalidInput, NotFound
from models.db import catalogue as catalogue_db
from models.db.catalogue import find_coverages, target_names
from models.db.records import CoverageRow, records
from models.db.tables import Coverage, MonitoringTarget
from models.settings import Settings
from models.wire.internal import CoverageFull, RichPage
from api.auth.roles import CATALOGUE_READERS

PIN_RE = re.compile(r"^[1-9][0-9]{5}$")
DEFAULT_SIZE = 15  # the page size of the spec's coverage list sample


async def _target_from_query(target_name: str | None, monitoring_target_id: str | None) -> str | None:
    if target_name is not None:
        if not PIN_RE.match(target_name):
            raise InvalidInput.of_field("targetName", "must be a 6-digit Indian pin code")
        target_id = await catalogue_db.target_for_pin(target_name)
        if target_id is None:
            raise NotFound(f"no monitoring target for pin code {target_name}")
        if monitoring_target_id is not None and monitoring_target_id != target_id:
            raise InvalidInput.of_field("monitoringTargetId", "names another target than targetName")
        return target_id
    if monitoring_target_id is not None:
        if not await MonitoringTarget.exists().where(MonitoringTarget.id == monitoring_target_id):
            raise NotFound(f"monitoring target {monitoring_target_id} does not exist")
    return monitoring_target_id


class CoverageController(Controller):
    opt = CATALOGUE_READERS
    path = "/internal/coverages"
    tags = ["Internal surface"]
    parameters = tenant_header()
    dependencies = {"temporal": Provide(provide_temporal)}

    @get(
        operation_id="listCoverages",
        summary="The coverage catalogue, optionally for the target of a pin code",
        description=(
            "With `targetName` (pin code) or `monitoringTargetId`, the target's catalogue for the "
            "period (default: the next 12 calendar months) is created on demand: coverages appear "
            "at once with model-set triggers and status PRICING, and turn ACTIVE with their premium "
            "when their pricing run completes (seconds). `from`/`to` must lie in the sellable window "
            "(from the first day of next month, 24 months ahead: docs/catalogue.md); a read that needs "
            "pricing counts against the tenant's pricing quota (429 beyond it)."
        ),
        responses=problems(*AUTHED, 404, 429, 503),
    )
    async def list_coverages(
        self,
        request: Request,
        principal: NamedDependency[Principal],
        temporal: NamedDependency[Client],
        settings: NamedDependency[Settings],
        target_name: Annotated[str | None, QueryParameter(name="targetName", description="6-digit pin code")] = None,
        monitoring_target_id: Annotated[str | None, QueryParameter(name="monitoringTargetId")] = None,
        period_from: Annotated[str | None, QueryParameter(name="from", description="First month (YYYY-MM-DD)")] = None,
        period_to: Annotated[str | None, QueryParameter(name="to", description="Last day (YYYY-MM-DD)")] = None,
        page: PageParam = 0,
        size: Annotated[int, QueryParameter(description="Items per page (max 100)")] = DEFAULT_SIZE,
    ) -> RichPage[CoverageFull]:
        check_size(size, settings.max_page_size)
        window = sellable_window(settings.sellable_months)
        start, end = parse_day(period_from, "from"), parse_day(period_to, "to")
        for day, field in ((start, "from"), (end, "to")):
            if day is not None:
                check_sellable(day, field, window)
        target_id = await _target_from_query(target_name, monitoring_target_id)
        # whole months only: a partial period's cover (made to order for a tenant's quote) is
        # never listed beside its month's (issue 33)
        query = Coverage.select().where(catalogue_db.listed_in_catalogue())
        count = Coverage.count().where(catalogue_db.listed_in_catalogue())
        if target_id is not None:
            if start or end:
                slots = period_slots(start, end, window, settings.catalogue_months)
            else:
                slots = catalogue_window(settings)
            nonviable = request.app.state.nonviable
            if not complete(await find_coverages(target_id, slots), target_id, slots, nonviable):
                # A target-month never priced: the tenant's pricing quota first (api/admission.py).
                async with request.app.state.admission.pricing(principal.tenant_id) as priority:
                    planned = await asyncio.wait_for(
                        ensure_coverages(
                            temporal, settings, target_id, slots, wait_for_pricing=False, priority=priority
                        ),
                        WORKFLOW_DEADLINE,
                    )
                remember_nonviable(nonviable, target_id, planned)
            first, last = min(s.start for s in slots), max(s.end for s in slots)
            where = (
                (Coverage.monitoring_target_id == target_id)
                & (Coverage.risk_period_start >= first)
                & (Coverage.risk_period_end <= last)
            )
            query, count = query.where(where), count.where(where)
        rows = await query.order_by(Coverage.monitoring_target_id, Coverage.risk_period_start, Coverage.label).limit(
            size
        ).offset(page * size)
        total = await count
        coverages = records(CoverageRow, rows)
        names = await target_names({c.monitoring_target_id for c in coverages})
        items = [coverage_full(c, names.get(c.monitoring_target_id, "")) for c in coverages]
        return rich_page_of(items, total, page, size)

    @get(
        "/{coverage_id:uuid}",
        operation_id="getCoverage",
        summary="One coverage (full form)",
        responses=problems(*AUTHED, 404),
    )
    async def get_coverage(self, coverage_id: FromPath[uuid.UUID]) -> CoverageFull:
        row = await catalogue_db.catalogue_coverage_row(coverage_id)
        if row is None:
            raise NotFound(f"coverage {coverage_id} does not exist")
        names = await target_names({row.monitoring_target_id})
        return coverage_full(row, names.get(row.monitoring_target_id, ""))
