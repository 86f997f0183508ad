"""Internal surface: the coverage catalogue and its pricing runs (audit and reruns)."""

from __future__ import annotations

import asyncio
import datetime as dt
import re
import uuid
from typing import Annotated

from litestar import Controller, Response, get, post
from litestar.di import NamedDependency, Provide
from litestar.params import Body, FromPath, QueryParameter
from temporalio.client import Client
from temporalio.common import SearchAttributePair, TypedSearchAttributes

from api.auth.tokens import Principal
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
from models.db import pricing as pricing_db
from models.db.catalogue import target_names
from models.db.core import json_value
from models.db.tables import Coverage, MonitoringTarget
from models.domain.money import from_minor
from models.domain.periods import month_slots
from models.settings import Settings
from models.temporal.ids import coverage_pricing_workflow_id
from models.temporal.pricing import PriceCoverageInput, coverage_seed
from models.temporal.queues import task_queue
from models.temporal.search_attributes import COVERAGE_ID, MONITORING_TARGET_ID
from models.wire.common import Money, iso_millis
from models.wire.internal import (
    BurnYearOut,
    CoverageFull,
    NewPricingRun,
    PricingRunOut,
    RichPage,
    RiskMetricsOut,
)
from workflows.pricing import CoveragePricingWorkflow

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
        query = Coverage.select()
        count = Coverage.count()
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
        names = await target_names({r["monitoring_target_id"] for r in rows})
        items = [coverage_full(r, names.get(r["monitoring_target_id"], "")) for r in rows]
        return rich_page_of(items, total, page, size)

    @get(
        "/{coverage_id:uuid}",
        operation_id="getCoverage",
        summary="One coverage (full form)",
        responses=problems(*AUTHED, 404),
    )
    async def get_coverage(self, coverage_id: FromPath[uuid.UUID]) -> CoverageFull:
        row = await catalogue_db.coverage_row(coverage_id)
        if row is None:
            raise NotFound(f"coverage {coverage_id} does not exist")
        names = await target_names({row["monitoring_target_id"]})
        return coverage_full(row, names.get(row["monitoring_target_id"], ""))

    @get(
        "/{coverage_id:uuid}/pricing-runs",
        operation_id="listPricingRuns",
        summary="Every pricing run of a coverage, oldest first (audit)",
        responses=problems(*AUTHED, 404),
    )
    async def list_runs(self, coverage_id: FromPath[uuid.UUID]) -> list[PricingRunOut]:
        if await catalogue_db.coverage_row(coverage_id) is None:
            raise NotFound(f"coverage {coverage_id} does not exist")
        return [pricing_run_out(r) for r in await pricing_db.pricing_runs(coverage_id)]

    @get(
        "/{coverage_id:uuid}/pricing-runs/{version:int}",
        operation_id="getPricingRun",
        summary="One pricing run",
        responses=problems(*AUTHED, 404),
    )
    async def get_run(self, coverage_id: FromPath[uuid.UUID], version: FromPath[int]) -> PricingRunOut:
        for row in await pricing_db.pricing_runs(coverage_id):
            if row["version"] == version:
                return pricing_run_out(row)
        raise NotFound(f"coverage {coverage_id} has no pricing run {version}")

    @post(
        "/{coverage_id:uuid}/pricing-runs",
        operation_id="startPricingRun",
        summary="Rerun the pricing with other settings (simulations, seed, expected loss ratio)",
        description="Answers 202 with the queued run and its Location; poll it until COMPLETED.",
        status_code=202,
        responses=problems(*AUTHED, 404, 503),
    )
    async def start_run(
        self,
        coverage_id: FromPath[uuid.UUID],
        principal: NamedDependency[Principal],
        temporal: NamedDependency[Client],
        settings: NamedDependency[Settings],
        data: Annotated[NewPricingRun | None, Body(description="All fields optional")] = None,
    ) -> Response[PricingRunOut]:
        row = await catalogue_db.coverage_row(coverage_id)
        if row is None:
            raise NotFound(f"coverage {coverage_id} does not exist")
        run = await start_pricing_run(temporal, settings, row, data or NewPricingRun(), principal.client_id)
        out = pricing_run_out(next(r for r in await pricing_db.pricing_runs(coverage_id) if r["version"] == run.version))
        return Response(
            content=out,
            status_code=202,
            headers={"Location": f"/internal/coverages/{coverage_id}/pricing-runs/{run.version}"},
        )


async def start_pricing_run(
    temporal: Client, settings: Settings, row: dict, request: NewPricingRun, requested_by: str
) -> PriceCoverageInput:
    """Allocate the next version and start its CoveragePricingWorkflow (shared with the CLI)."""
    coverage_id = row["id"]
    simulations = request.simulations or settings.simulations
    seed = coverage_seed(coverage_id) if request.seed is None else request.seed
    elr = request.expected_loss_ratio or settings.expected_loss_ratio
    version = await pricing_db.allocate_pricing_run(coverage_id, simulations, seed, elr, requested_by, row["currency"])
    run = PriceCoverageInput(
        coverage_id=coverage_id,
        version=version,
        simulations=simulations,
        seed=seed,
        expected_loss_ratio=elr,
        requested_by=requested_by,
    )
    await temporal.start_workflow(
        CoveragePricingWorkflow.run,
        run,
        id=coverage_pricing_workflow_id(coverage_id, version),
        task_queue=task_queue(settings.task_queue, "pricing"),
        search_attributes=TypedSearchAttributes(
            [
                SearchAttributePair(COVERAGE_ID, str(coverage_id)),
                SearchAttributePair(MONITORING_TARGET_ID, row["monitoring_target_id"]),
            ]
        ),
        static_summary=f"Pricing · {row['label']} · v{version} · by {requested_by}",
    )
    return run


def _money(minor: int | None, currency: str) -> Money | None:
    return None if minor is None else Money(amount=from_minor(minor, currency), currency=currency)


def pricing_run_out(row: dict) -> PricingRunOut:
    from decimal import Decimal

    currency = row["currency"]
    metrics = json_value(row["metrics"])
    burn = json_value(row["burn"])
    return PricingRunOut(
        coverage_id=row["coverage_id"],
        version=row["version"],
        status=row["status"],
        workflow_id=row["workflow_id"],
        simulations=row["simulations"],
        seed=row["seed"],
        expected_loss_ratio=row["expected_loss_ratio"],
        model_version=row["model_version"],
        data_hash=row["data_hash"],
        currency=currency,
        risk_premium=_money(row["risk_premium_minor"], currency),
        risk_premium_pct=row["risk_premium_pct"],
        gross_premium=_money(row["gross_premium_minor"], currency),
        gross_premium_indication_pct=row["gross_premium_indication_pct"],
        metrics=None
        if not metrics
        else RiskMetricsOut(
            expected_loss=Decimal(metrics["expectedLoss"]),
            expected_loss_standard_error=Decimal(metrics["expectedLossStandardError"]),
            standard_deviation=Decimal(metrics["standardDeviation"]),
            probability_of_attachment=Decimal(metrics["probabilityOfAttachment"]),
            probability_of_exhaustion=Decimal(metrics["probabilityOfExhaustion"]),
            var99=Decimal(metrics["var99"]),
            tvar99=Decimal(metrics["tvar99"]),
            var995=Decimal(metrics["var995"]),
            tvar995=Decimal(metrics["tvar995"]),
        ),
        burn_cost=None if not burn else Money(amount=Decimal(burn["burn_cost"]), currency=currency),
        burn_payout_frequency=None if not burn else Decimal(repr(burn["payout_frequency"])),
        burn_method=None if not burn else burn["trend_method"],
        burn_years=None
        if not burn
        else [
            BurnYearOut(year=y["year"], index_value=Decimal(repr(y["index_used"])), payout=Decimal(y["payout"]))
            for y in burn["years"]
        ],
        fact_sheet_report_file_id=row["fact_sheet_file_id"],
        technical_pricing_report_file_id=row["technical_report_file_id"],
        requested_by=row["requested_by"],
        error=row["error"],
        created_at=iso_millis(row["created_at"]),
        completed_at=None if row["completed_at"] is None else iso_millis(row["completed_at"]),
    )
