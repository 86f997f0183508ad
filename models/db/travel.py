"""The travel surface's coverages (a `coverage` row and its `travel_coverage` pricing per stay
and trigger) and the nearest monitoring target of a place (docs/travel.md)."""

from __future__ import annotations

import dataclasses
import math
import uuid
from dataclasses import dataclass
from decimal import Decimal

from models.clock import utcnow
from models.db.core import json_value, write_transaction
from models.db.records import CoverageRow, record
from models.db.tables import Coverage, MonitoringTarget, TravelCoverage
from models.domain.data_sets import INDEX_DATA
from models.domain.index_catalog import BY_CODE
from models.domain.money import to_minor
from models.domain.settlement_basis import basis_for, encode_basis
from models.domain.statuses import CoverageStatus
from models.domain.travel import CURRENCY, INDEX_CODE, Stay, TravelLoads, cover_name, price, travel_coverage_id
from models.domain.travel import PricedStay

EARTH_RADIUS_KM = 6371.0088
_TARGETS: list[tuple[str, float, float]] | None = None  # (id, lat, lon); reference data, fixed


@dataclass(frozen=True, slots=True)
class TravelCover:
    coverage: CoverageRow
    night_counts: list[int]
    replicate_counts: list[list[int]] | None = None  # the parameter band (None: priced before 2026.4)


async def nearest_target(latitude: float, longitude: float) -> tuple[str, float] | None:
    """The monitoring target nearest to the place and its great-circle distance (km)."""
    global _TARGETS
    if _TARGETS is None:
        rows = await MonitoringTarget.select(MonitoringTarget.id, MonitoringTarget.latitude, MonitoringTarget.longitude)
        targets = [(r["id"], float(r["latitude"]), float(r["longitude"])) for r in rows]
        if not targets:
            return None  # reference data not loaded yet: look again next time
        _TARGETS = targets
    la, lo = math.radians(latitude), math.radians(longitude)
    best, best_h = None, 2.0
    for target_id, lat, lon in _TARGETS:
        # haversine term; the smallest is the nearest
        h = math.sin((math.radians(lat) - la) / 2) ** 2 + math.cos(la) * math.cos(math.radians(lat)) * math.sin(
            (math.radians(lon) - lo) / 2
        ) ** 2
        if h < best_h:
            best, best_h = target_id, h
    return best, 2 * EARTH_RADIUS_KM * math.asin(math.sqrt(min(best_h, 1.0)))


async def travel_covers(ids: list[uuid.UUID]) -> dict[uuid.UUID, TravelCover]:
    if not ids:
        return {}
    travel = {r["coverage_id"]: r for r in await TravelCoverage.select().where(TravelCoverage.coverage_id.is_in(ids))}
    if not travel:
        return {}
    rows = await Coverage.select().where(Coverage.id.is_in(list(travel)))
    def replicates(row) -> list[list[int]] | None:
        value = json_value(row["replicate_counts"]) if row.get("replicate_counts") is not None else None
        return [[int(n) for n in counts] for counts in value] if value else None

    return {
        r["id"]: TravelCover(
            record(CoverageRow, r),
            [int(n) for n in json_value(travel[r["id"]]["night_counts"])],
            replicates(travel[r["id"]]),
        )
        for r in rows
    }


async def insert_travel_coverages(priced: PricedStay, risk_carrier: str, settings) -> list[uuid.UUID]:
    """The stay's coverages, ACTIVE with their price, and their distributions, in one
    transaction; rows that exist are left as they are (a retry, or a concurrent request).

    A coverage's price is that of one unit (1 INR a night, every night of the stay): its risk
    premium the expected loss, its gross indication the loaded premium without the per-stay
    minimum (which is in INR, not per unit: docs/travel.md), its expected loss ratio the
    ratio of the two. `settings`: models.settings.Settings (the loads)."""
    loads = TravelLoads.of(settings)
    unit_loads = dataclasses.replace(loads, min_premium=Decimal(0))
    stay = Stay(priced.first_night, priced.last_night)
    target = priced.site.target_id
    now = utcnow()
    # what a stay's covers settle on, as a catalogue cover's: the index's data set now and its
    # settlement basis (issue 34), frozen for the life of the cover
    data_set = INDEX_DATA[INDEX_CODE][0]
    basis = encode_basis(basis_for(INDEX_CODE, data_set))
    coverages, travel, ids = [], [], []
    for item in priced.by_trigger:
        coverage_id = travel_coverage_id(target, stay, item.trigger)
        ids.append(coverage_id)
        paths = sum(item.night_counts)
        unit = price(item.night_counts, Decimal(1), stay.nights, unit_loads, item.replicate_counts or None)
        expected_nights = unit.expected_nights
        rate = expected_nights / Decimal(stay.nights)  # expected loss per unit of limit
        elr = rate / unit.gross_rate if unit.gross_rate > 0 else settings.expected_loss_ratio
        coverages.append(Coverage(
            id=coverage_id,
            monitoring_target_id=target,
            index_definition_id=BY_CODE[INDEX_CODE].id,
            risk_period_start=stay.first_night,
            risk_period_end=stay.last_night,
            label=f"{cover_name(item.trigger, stay)} · {priced.site.target_name}",
            risk_carrier=risk_carrier,
            currency=CURRENCY,
            status=CoverageStatus.ACTIVE,
            ui_state="active",
            direction="ABOVE",
            trigger=item.trigger,
            exit=None,
            limit_minor=to_minor(Decimal(stay.nights), CURRENCY),  # one unit: 1 INR a night
            min_payout_minor=0,
            payout_per_unit_minor=to_minor(Decimal(1), CURRENCY),
            risk_premium_minor=int((expected_nights * 100).to_integral_value()),
            risk_premium_pct=rate.quantize(Decimal("0.0000000001")),
            gross_premium_indication_pct=unit.gross_rate,
            expected_loss_ratio=elr.quantize(Decimal("0.0001")),
            simulations=paths,
            pricing_version=1,
            created_by="travel",
            created_at=now,
            updated_at=now,
            data_set=data_set,
            settlement_basis=basis,
        ))
        travel.append(TravelCoverage(
            coverage_id=coverage_id,
            monitoring_target_id=target,
            first_night=stay.first_night,
            last_night=stay.last_night,
            trigger=item.trigger,
            night_counts=list(item.night_counts),
            replicate_counts=[list(c) for c in item.replicate_counts] or None,
            simulations=paths,
            seed=priced.seed,
            model_version=priced.model_version,
            data_hash=priced.data_hash,
            workflow_id=priced.workflow_id,
            created_at=now,
        ))
    async with write_transaction():
        await Coverage.insert(*coverages).on_conflict(action="DO NOTHING")
        await TravelCoverage.insert(*travel).on_conflict(action="DO NOTHING")
    return ids
