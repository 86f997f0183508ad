"""Database operations of the coverage catalogue and its pricing runs.

Shared by the activities (which write) and the API (which reads and allocates pricing
versions). Catalogue rows belong to no tenant: the catalogue is the insurer's shelf.
"""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal
from typing import Any

from models.clock import utcnow
from models.db import write_transaction
from models.commands import (
    coverage_seed,
    CoverageSlot,
    CoverTermsIn,
    PlannedCoverage,
    PricingOutcome,
    ProposedTerms,
    SiteRef,
)
from models.index_catalog import BY_CODE, BY_ID
from models.money import to_minor, from_minor
from models.tables import Coverage, MonitoringTarget, PincodeMapping, PricingRun


class UnknownTarget(LookupError):
    pass


def is_unique_violation(exc: BaseException) -> bool:
    name = type(exc).__name__
    return name in {"IntegrityError", "UniqueViolationError"} and (
        "unique" in str(exc).lower() or name == "UniqueViolationError"
    )


async def site_of(target_id: str) -> SiteRef:
    row = await MonitoringTarget.select().where(MonitoringTarget.id == target_id).first()
    if row is None:
        raise UnknownTarget(target_id)
    return SiteRef(
        target_id=row["id"],
        target_name=row["name"],
        district=row["district"],
        state=row["state"],
        latitude=row["latitude"],
        longitude=row["longitude"],
    )


async def target_for_pin(pin_code: str) -> str | None:
    row = await PincodeMapping.select(PincodeMapping.monitoring_target_id).where(
        PincodeMapping.pin_code == pin_code
    ).first()
    return None if row is None else row["monitoring_target_id"]


async def find_coverages(target_id: str, slots: list[CoverageSlot]) -> dict[CoverageSlot, dict]:
    """Existing catalogue rows for the slots, keyed by slot."""
    if not slots:
        return {}
    first = min(s.start for s in slots)
    last = max(s.end for s in slots)
    rows = await Coverage.select().where(
        (Coverage.monitoring_target_id == target_id)
        & (Coverage.risk_period_start >= first)
        & (Coverage.risk_period_end <= last)
    )
    wanted = set(slots)
    found = {}
    for row in rows:
        slot = CoverageSlot(
            index_code=BY_ID[uuid.UUID(str(row["index_definition_id"]))].code,
            start=row["risk_period_start"],
            end=row["risk_period_end"],
        )
        if slot in wanted:
            found[slot] = row
    return found


def _label(site: SiteRef, slot: CoverageSlot) -> str:
    spec = BY_CODE[slot.index_code]
    period = f"{slot.start:%b %Y}" if slot.start.day == 1 else f"{slot.start:%d %b %Y} - {slot.end:%d %b %Y}"
    return f"{spec.name} · {site.target_name.split(' (')[0]} · {period}"


async def create_coverages(
    site: SiteRef,
    proposals: list[ProposedTerms],
    created_by: str,
    risk_carrier: str,
    expected_loss_ratio: Decimal,
    default_simulations: int,
) -> list[PlannedCoverage]:
    """Insert the viable proposals that are not in the catalogue yet (idempotent), each with
    its version-1 pricing run queued; returns what the catalogue holds for every slot."""
    existing = await find_coverages(site.target_id, [p.slot for p in proposals])
    now = utcnow()
    for p in proposals:
        if not p.viable or p.slot in existing:
            continue
        coverage_id = uuid.uuid5(uuid.NAMESPACE_URL, f"coverage:{site.target_id}:{p.slot.index_code}:{p.slot.start}:{p.slot.end}")
        row = Coverage(
            id=coverage_id,
            monitoring_target_id=site.target_id,
            index_definition_id=BY_CODE[p.slot.index_code].id,
            risk_period_start=p.slot.start,
            risk_period_end=p.slot.end,
            label=_label(site, p.slot),
            risk_carrier=risk_carrier,
            currency=p.currency,
            status="PRICING",
            ui_state="pricing",
            direction=p.direction,
            trigger=p.trigger,
            exit=p.exit,
            limit_minor=to_minor(p.limit, p.currency),
            min_payout_minor=to_minor(p.min_payout, p.currency),
            payout_per_unit_minor=to_minor(p.payout_per_unit, p.currency),
            expected_loss_ratio=expected_loss_ratio,
            simulations=0,
            pricing_version=0,
            created_by=created_by,
            created_at=now,
            updated_at=now,
        )
        try:
            await Coverage.insert(row)
        except Exception as exc:  # a concurrent creator won: its row stands
            if not is_unique_violation(exc):
                raise
        await ensure_pricing_run(coverage_id, 1, default_simulations, coverage_seed(coverage_id),
                                 expected_loss_ratio, created_by, p.currency)
    rows = await find_coverages(site.target_id, [p.slot for p in proposals])
    reasons = {p.slot: p.reason for p in proposals}
    return [
        PlannedCoverage(
            slot=p.slot,
            coverage_id=rows[p.slot]["id"] if p.slot in rows else None,
            reason="" if p.slot in rows else (reasons[p.slot] or "not viable"),
            priced=p.slot in rows and rows[p.slot]["pricing_version"] > 0,
        )
        for p in proposals
    ]


async def ensure_pricing_run(
    coverage_id: uuid.UUID,
    version: int,
    simulations: int,
    seed: int,
    expected_loss_ratio: Decimal,
    requested_by: str,
    currency: str,
) -> None:
    if await PricingRun.exists().where((PricingRun.coverage_id == coverage_id) & (PricingRun.version == version)):
        return
    try:
        await PricingRun.insert(_queued(coverage_id, version, simulations, seed, expected_loss_ratio, requested_by, currency))
    except Exception as exc:
        if not is_unique_violation(exc):
            raise


def _queued(coverage_id, version, simulations, seed, elr, requested_by, currency) -> PricingRun:
    from models.workflow_ids import coverage_pricing_workflow_id

    return PricingRun(
        id=uuid.uuid4(),
        coverage_id=coverage_id,
        version=version,
        status="QUEUED",
        workflow_id=coverage_pricing_workflow_id(coverage_id, version),
        simulations=simulations,
        seed=seed,
        expected_loss_ratio=elr,
        currency=currency,
        requested_by=requested_by,
        created_at=utcnow(),
    )


async def allocate_pricing_run(
    coverage_id: uuid.UUID, simulations: int, seed: int, expected_loss_ratio: Decimal, requested_by: str, currency: str
) -> int:
    """Reserve the next pricing version of a coverage (the unique key settles races)."""
    for _ in range(20):
        last = await PricingRun.select(PricingRun.version).where(PricingRun.coverage_id == coverage_id).order_by(
            PricingRun.version, ascending=False
        ).first()
        version = (last["version"] if last else 0) + 1
        try:
            await PricingRun.insert(_queued(coverage_id, version, simulations, seed, expected_loss_ratio, requested_by, currency))
            return version
        except Exception as exc:
            if not is_unique_violation(exc):
                raise
    raise RuntimeError("could not allocate a pricing version")


async def coverage_row(coverage_id: uuid.UUID) -> dict | None:
    return await Coverage.select().where(Coverage.id == coverage_id).first()


def terms_of(row: dict) -> CoverTermsIn:
    currency = row["currency"]
    return CoverTermsIn(
        index_code=BY_ID[uuid.UUID(str(row["index_definition_id"]))].code,
        start=row["risk_period_start"],
        end=row["risk_period_end"],
        direction=row["direction"],
        trigger=Decimal(str(row["trigger"])),
        exit=None if row["exit"] is None else Decimal(str(row["exit"])),
        limit=from_minor(row["limit_minor"], currency),
        min_payout=from_minor(row["min_payout_minor"], currency),
        payout_per_unit=from_minor(row["payout_per_unit_minor"], currency),
        currency=currency,
    )


async def mark_run(coverage_id: uuid.UUID, version: int, status: str, error: str | None = None) -> None:
    values: dict[Any, Any] = {PricingRun.status: status}
    if error is not None:
        values[PricingRun.error] = error[:2000]
        values[PricingRun.completed_at] = utcnow()
    await PricingRun.update(values).where((PricingRun.coverage_id == coverage_id) & (PricingRun.version == version))


async def publish_run(coverage_id: uuid.UUID, version: int, outcome: PricingOutcome) -> None:
    """Store the run's results and make it the coverage's current pricing if it is the newest.

    Idempotent: publishing the same run twice writes the same values."""
    row = await coverage_row(coverage_id)
    currency = row["currency"]
    async with write_transaction():
        await PricingRun.update(
            {
                PricingRun.status: "COMPLETED",
                PricingRun.model_version: outcome.model_version,
                PricingRun.data_hash: outcome.data_hash,
                PricingRun.simulations: outcome.simulations,
                PricingRun.risk_premium_minor: to_minor(outcome.risk_premium, currency),
                PricingRun.risk_premium_pct: outcome.risk_premium_pct,
                PricingRun.gross_premium_minor: to_minor(outcome.gross_premium, currency),
                PricingRun.gross_premium_indication_pct: outcome.gross_premium_indication_pct,
                PricingRun.metrics: outcome.metrics,
                PricingRun.burn: outcome.burn,
                PricingRun.report: outcome.report,
                PricingRun.completed_at: utcnow(),
            }
        ).where((PricingRun.coverage_id == coverage_id) & (PricingRun.version == version))
        run = await PricingRun.select(PricingRun.expected_loss_ratio).where(
            (PricingRun.coverage_id == coverage_id) & (PricingRun.version == version)
        ).first()
        await Coverage.update(
            {
                Coverage.pricing_version: version,
                Coverage.simulations: outcome.simulations,
                Coverage.risk_premium_minor: to_minor(outcome.risk_premium, currency),
                Coverage.risk_premium_pct: outcome.risk_premium_pct,
                Coverage.gross_premium_indication_pct: outcome.gross_premium_indication_pct,
                Coverage.expected_loss_ratio: run["expected_loss_ratio"],
                Coverage.status: "ACTIVE",
                Coverage.ui_state: "active",
                Coverage.updated_at: utcnow(),
            }
        ).where((Coverage.id == coverage_id) & (Coverage.pricing_version <= version))


async def attach_documents(
    coverage_id: uuid.UUID, version: int, fact_sheet_id: uuid.UUID, technical_report_id: uuid.UUID
) -> None:
    await PricingRun.update(
        {PricingRun.fact_sheet_file_id: fact_sheet_id, PricingRun.technical_report_file_id: technical_report_id}
    ).where((PricingRun.coverage_id == coverage_id) & (PricingRun.version == version))
    await Coverage.update(
        {Coverage.fact_sheet_file_id: fact_sheet_id, Coverage.technical_report_file_id: technical_report_id}
    ).where((Coverage.id == coverage_id) & (Coverage.pricing_version == version))


async def pricing_runs(coverage_id: uuid.UUID) -> list[dict]:
    return await PricingRun.select().where(PricingRun.coverage_id == coverage_id).order_by(PricingRun.version)


def month_slots(index_codes: list[str], first_month: dt.date, months: int) -> list[CoverageSlot]:
    """Calendar-month slots for each index, starting at the month of `first_month`."""
    slots = []
    year, month = first_month.year, first_month.month
    for _ in range(months):
        start = dt.date(year, month, 1)
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
        end = dt.date(year, month, 1) - dt.timedelta(days=1)
        slots.extend(CoverageSlot(index_code=code, start=start, end=end) for code in index_codes)
    return slots
