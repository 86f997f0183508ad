"""Database operations of the coverage catalogue (catalogue rows belong to no tenant)."""

from __future__ import annotations

import uuid
from decimal import Decimal

from piccolo.columns.combination import WhereRaw

from models.clock import utcnow
from models.db.core import is_sqlite, write_transaction
from models.db.pricing import completed_run, ensure_pricing_run
from models.db.records import CoverageRow, record, records
from models.db.tables import (
    Coverage,
    MonitoringTarget,
    PincodeMapping,
    PricingRun,
)
from models.domain.data_sets import INDEX_DATA
from models.domain.index_catalog import BY_CODE, BY_ID, CATALOGUE_INDEX_IDS
from models.domain.money import to_minor
from models.domain.periods import coverage_period_label
from models.domain.statuses import CoverageStatus
from models.domain.pricing_runs import coverage_seed
from models.domain.quotes import pricing_settled
from models.domain.settlement_basis import basis_for, encode_basis
from models.domain.terms import CoverageSlot, CoverTerms, PlannedCoverage, ProposedTerms, SiteRef, catalogue_coverage_id


class UnknownTarget(LookupError):
    pass


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


async def find_coverages(target_id: str, slots: list[CoverageSlot]) -> dict[CoverageSlot, CoverageRow]:
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
    for row in records(CoverageRow, rows):
        slot = CoverageSlot(index_code=BY_ID[row.index_definition_id].code, start=row.risk_period_start, end=row.risk_period_end)
        if slot in wanted:
            found[slot] = row
    return found


def _label(site: SiteRef, slot: CoverageSlot) -> str:
    spec = BY_CODE[slot.index_code]
    # a partial period carries its dates (a Dec 1-28 cover was labelled "Dec 2026" like Dec 1-31)
    return f"{spec.name} · {site.target_name.split(' (')[0]} · {coverage_period_label(slot.start, slot.end)}"


def _coverage_row(site: SiteRef, terms: CoverTerms, risk_carrier: str, created_by: str, now, **state) -> Coverage:
    """A catalogue row for proposed terms; `state` gives its status, pricing version and,
    once priced, its price columns. It settles on the data set its index settles on now
    (the product its price is fitted on: `INDEX_DATA`) and on that data set's settlement basis
    (source ladder, calculation deadline, true-up window: `basis_for`), both fixed for the life
    of the cover."""
    slot = terms.slot
    data_set = INDEX_DATA[slot.index_code][0]
    return Coverage(
        data_set=data_set,
        settlement_basis=encode_basis(basis_for(slot.index_code, data_set)),
        id=catalogue_coverage_id(site.target_id, slot),
        monitoring_target_id=site.target_id,
        index_definition_id=BY_CODE[slot.index_code].id,
        risk_period_start=slot.start,
        risk_period_end=slot.end,
        label=_label(site, slot),
        risk_carrier=risk_carrier,
        currency=terms.currency,
        direction=terms.direction,
        trigger=terms.trigger,
        exit=terms.exit,
        limit_minor=to_minor(terms.limit, terms.currency),
        min_payout_minor=to_minor(terms.min_payout, terms.currency),
        payout_per_unit_minor=to_minor(terms.payout_per_unit, terms.currency),
        created_by=created_by,
        created_at=now,
        updated_at=now,
        **state,
    )


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
    async with write_transaction():  # one commit for the batch
        existing = await find_coverages(site.target_id, [p.slot for p in proposals])
        now = utcnow()
        for p in proposals:
            terms = p.terms
            if terms is None or p.slot in existing:
                continue
            coverage_id = catalogue_coverage_id(site.target_id, terms.slot)
            row = _coverage_row(
                site, terms, risk_carrier, created_by, now,
                status=CoverageStatus.PRICING,
                ui_state="pricing",
                expected_loss_ratio=expected_loss_ratio,
                simulations=0,
                pricing_version=0,
            )
            # A concurrent creator may win (the target, index and period are unique): its row stands.
            await Coverage.insert(row).on_conflict(action="DO NOTHING")
            await ensure_pricing_run(coverage_id, 1, default_simulations, coverage_seed(coverage_id),
                                     expected_loss_ratio, created_by, terms.currency)
    rows = await find_coverages(site.target_id, [p.slot for p in proposals])
    reasons = {p.slot: p.reason for p in proposals}
    return [
        PlannedCoverage(
            slot=p.slot,
            coverage_id=rows[p.slot].id if p.slot in rows else None,
            reason="" if p.slot in rows else (reasons[p.slot] or "not viable"),
            priced=p.slot in rows and pricing_settled(rows[p.slot].status, rows[p.slot].pricing_version),
        )
        for p in proposals
    ]


async def insert_priced_coverages(
    site: SiteRef,
    proposals: list[ProposedTerms],
    priced: list,
    created_by: str,
    risk_carrier: str,
    expected_loss_ratio: Decimal,
    workflow_id: str,
) -> list[PlannedCoverage]:
    """Insert new coverages already priced (the catalogue's joint first pricing): each viable
    proposal's row ACTIVE with its version-1 price, and that run COMPLETED, in one transaction
    of two multi-row inserts. Idempotent: rows that exist are left as they are (a retry, or a
    slot another request created first). `priced`: each with the `run` it priced and its `outcome`
    (a pricing activity's PublishPricingInput). An outcome held for an actuary writes its
    coverage REVIEW, without a price, and its run HELD (docs/catalogue.md)."""
    by_id = {item.run.coverage_id: item for item in priced}
    now = utcnow()
    async with write_transaction():
        existing = await find_coverages(site.target_id, [p.slot for p in proposals])
        coverages, runs = [], []
        for p in proposals:
            terms = p.terms
            if terms is None or p.slot in existing:
                continue
            coverage_id = catalogue_coverage_id(site.target_id, terms.slot)
            item = by_id.get(coverage_id)
            if item is None:
                continue
            o = item.outcome
            elr = o.expected_loss_ratio if o.expected_loss_ratio is not None else expected_loss_ratio
            if o.hold_reason is not None:  # held for an actuary: no price, not offered
                state = dict(status=CoverageStatus.REVIEW, ui_state="review", expected_loss_ratio=elr,
                             simulations=0, pricing_version=0)
            else:
                state = dict(
                    status=CoverageStatus.ACTIVE,
                    ui_state="active",
                    expected_loss_ratio=elr,
                    simulations=o.simulations,
                    pricing_version=1,
                    risk_premium_minor=to_minor(o.risk_premium, terms.currency),
                    risk_premium_pct=o.risk_premium_pct,
                    gross_premium_indication_pct=o.gross_premium_indication_pct,
                )
            coverages.append(_coverage_row(site, terms, risk_carrier, created_by, now, **state))
            runs.append(completed_run(item.run, o, terms.currency, elr, workflow_id, now))
        if coverages:
            await Coverage.insert(*coverages).on_conflict(action="DO NOTHING")
            await PricingRun.insert(*runs).on_conflict(action="DO NOTHING")
        rows = await find_coverages(site.target_id, [p.slot for p in proposals])
    return [
        PlannedCoverage(
            slot=p.slot,
            coverage_id=rows[p.slot].id if p.slot in rows else None,
            reason="" if p.slot in rows else (p.reason or "not viable"),
            priced=p.slot in rows and pricing_settled(rows[p.slot].status, rows[p.slot].pricing_version),
        )
        for p in proposals
    ]


async def coverage_row(coverage_id: uuid.UUID) -> CoverageRow | None:
    """Any coverage row (catalogue or a travel stay's)."""
    return record(CoverageRow, await Coverage.select().where(Coverage.id == coverage_id).first())


def in_catalogue():
    """The condition that keeps the monthly catalogue's rows (not travel stays' covers)."""
    return Coverage.index_definition_id.is_in(list(CATALOGUE_INDEX_IDS))


def whole_months():
    """The condition that keeps covers of whole calendar months (`periods.is_whole_month`; a
    catalogue period lies in one month). A partial period's cover is made to order for the
    quote that needed it: a catalogue listing never shows it beside the month's own cover
    (docs/catalogue.md, "Partial periods")."""
    if is_sqlite():  # dates are ISO text
        return WhereRaw(
            "substr(risk_period_start, 9, 2) = '01' AND strftime('%d', date(risk_period_end, '+1 day')) = '01'"
        )
    return WhereRaw(
        "EXTRACT(DAY FROM risk_period_start) = 1 AND EXTRACT(DAY FROM risk_period_end + 1) = 1"
    )


def listed_in_catalogue():
    """What a catalogue listing shows: the monthly catalogue's covers of whole months, so each
    index appears once per target and period."""
    return in_catalogue() & whole_months()


async def catalogue_coverage_row(coverage_id: uuid.UUID) -> CoverageRow | None:
    """A coverage of the shared catalogue; None for a travel stay's cover (one tenant's)."""
    return record(CoverageRow, await Coverage.select().where((Coverage.id == coverage_id) & in_catalogue()).first())


async def target_names(target_ids: set[str]) -> dict[str, str]:
    if not target_ids:
        return {}
    rows = await MonitoringTarget.select(MonitoringTarget.id, MonitoringTarget.name).where(
        MonitoringTarget.id.is_in(list(target_ids))
    )
    return {r["id"]: r["name"] for r in rows}
