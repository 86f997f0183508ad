"""Internal surface: the coverage catalogue (created on demand per target; its pricing runs are
in api/pricing/)."""

from __future__ import annotations

import asyncio
import datetime as dt
import re
import uuid
from typing import Annotated

from litestar import Controller, get
from litestar.di import NamedDependency, Provide
from litestar.params import FromPath, QueryParameter
from temporalio.client import Client

from api.catalogue.responses import coverage_full
from api.catalogue.service import (
    MONTHLY_INDEX_CODES,
    catalogue_window,
    check_window,
    ensure_coverages,
)
from api.deps import WORKFLOW_DEADLINE, provide_temporal
from api.openapi_docs import AUTHED, problems, tenant_header
from api.pagination import PageParam, check_size, rich_page_of
from api.problems import InvalidInput, NotFound
from models.db import catalogue as catalogue_db
from models.db.catalogue import target_names
from models.db.records import CoverageRow, records
from models.db.tables import Coverage, MonitoringTarget
from models.domain.periods import month_slots
from models.settings import Settings
from models.wire.internal import CoverageFull, RichPage
from api.auth.roles import CATALOGUE_READERS

PIN_RE = re.compile(r"^[1-9][0-9]{5}$")
DEFAULT_SIZE = 15  # the page size of the spec's coverage list sample


async def _target_from_query(target_name: str | None, monitoring_target_id: str | None) -> str | None:
    if target_name is not None:
        if not PIN_RE.match(target_name):
            raise InvalidInput("targetName must be a 6-digit Indian pin code")
        target_id = await catalogue_db.target_for_pin(target_name)
        if target_id is None:
            raise NotFound(f"no monitoring target for pin code {target_name}")
        if monitoring_target_id is not None and monitoring_target_id != target_id:
            raise InvalidInput("targetName and monitoringTargetId name different targets")
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
            "when their pricing run completes (seconds)."
        ),
        responses=problems(*AUTHED, 404, 503),
    )
    async def list_coverages(
        self,
        temporal: NamedDependency[Client],
        settings: NamedDependency[Settings],
        target_name: Annotated[str | None, QueryParameter(name="targetName", description="6-digit pin code")] = None,
        monitoring_target_id: Annotated[str | None, QueryParameter(name="monitoringTargetId")] = None,
        period_from: Annotated[dt.date | None, QueryParameter(name="from", description="First month (YYYY-MM-DD)")] = None,
        period_to: Annotated[dt.date | None, QueryParameter(name="to", description="Last day (YYYY-MM-DD)")] = None,
        page: PageParam = 0,
        size: Annotated[int, QueryParameter(description="Items per page (max 100)")] = DEFAULT_SIZE,
    ) -> RichPage[CoverageFull]:
        check_size(size, settings.max_page_size)
        target_id = await _target_from_query(target_name, monitoring_target_id)
        query = Coverage.select().where(catalogue_db.in_catalogue())
        count = Coverage.count().where(catalogue_db.in_catalogue())
        if target_id is not None:
            if period_from or period_to:
                start = period_from or dt.date.today()
                end = period_to or start.replace(year=start.year + 1)
                check_window(start, end)
                months = (end.year - start.year) * 12 + end.month - start.month + 1
                slots = month_slots(MONTHLY_INDEX_CODES, start.replace(day=1), months)
            else:
                slots = catalogue_window(settings)
            await asyncio.wait_for(
                ensure_coverages(temporal, settings, target_id, slots, wait_for_pricing=False), WORKFLOW_DEADLINE
            )
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
