"""Shaping coverages and monitoring targets for the wire (rows in, wire types out)."""

from __future__ import annotations

from decimal import Decimal

from models.db.records import CoverageRow
from models.domain.basis_terms import CALIBRATION_RULE, rungs
from models.domain.index_catalog import BY_ID
from models.domain.settlement_basis import FALLBACK, SettlementBasis
from models.domain.periods import day_end, day_start
from models.wire.common import Money, MonitoringTargetOut, Point, iso_millis
from models.wire.internal import CoverageFull, FallbackOut, LadderRungOut, SettlementBasisOut


def _money(minor: int | None, currency: str) -> Money | None:
    return None if minor is None else Money.of_minor(minor, currency)


def coverage_full(row: CoverageRow, target_name: str) -> CoverageFull:
    spec = BY_ID[row.index_definition_id]
    currency = row.currency
    priced = row.priced
    return CoverageFull(
        id=row.id,
        label=row.label,
        risk_carrier=row.risk_carrier,
        currency=currency,
        simulations=row.simulations,
        limit=_money(row.limit_minor, currency),
        expected_loss_ratio=row.expected_loss_ratio,
        fact_sheet_report_file_id=row.fact_sheet_file_id,
        technical_pricing_report_file_id=row.technical_report_file_id,
        status=row.status,
        ui_state=row.ui_state,
        start=iso_millis(day_start(row.risk_period_start)),
        end=iso_millis(day_end(row.risk_period_end)),
        created_by=row.created_by,
        created_at=iso_millis(row.created_at),
        updated_at=iso_millis(row.updated_at),
        risk_type=spec.risk_type,
        risk_type_id=spec.risk_type_id,
        index_definition=spec.description,
        index_definition_id=spec.id,
        trigger_unit=spec.unit,
        trigger_label=spec.trigger_label,
        data_source_id=spec.data_source_id,
        data_source_description=spec.data_source_description,
        data_set=spec.data_set,
        data_set_id=spec.data_set_id,
        monitoring_target=target_name,
        monitoring_target_id=row.monitoring_target_id,
        trigger=_decimal(row.trigger),
        exit=None if row.exit is None else _decimal(row.exit),
        min_payout=_money(row.min_payout_minor, currency),
        payout_per_unit=_money(row.payout_per_unit_minor, currency),
        risk_premium=_money(row.risk_premium_minor, currency) if priced else None,
        risk_premium_pct=_decimal(row.risk_premium_pct) if priced else None,
        gross_premium_indication_pct=_decimal(row.gross_premium_indication_pct) if priced else None,
        settlement_basis=basis_out(row.settlement_basis),
    )


def basis_out(basis: SettlementBasis | None) -> SettlementBasisOut | None:
    """A cover's frozen settlement basis on the wire; None for a cover created before it."""
    if basis is None:
        return None
    ladder = rungs(basis)
    fallback = next((r for r in ladder if r.rung == FALLBACK), None)
    return SettlementBasisOut(
        data_set=basis.data_set,
        variable=basis.variable,
        ladder=[LadderRungOut(rung=r.rung, product=r.product) for r in ladder if r.rung != FALLBACK],
        provisional_latency_days=basis.provisional_latency_days,
        fallback=None if fallback is None else FallbackOut(
            data_set=fallback.data_set, product=fallback.product, calibration=CALIBRATION_RULE
        ),
        calculation_deadline_days=basis.calculation_deadline_days,
        true_up_window_days=basis.true_up_window_days,
        initial_error_share=basis.initial_error_share,
        provisional_error=basis.provisional_error,
        tolerance=basis.tolerance,
    )


def _decimal(value) -> Decimal:
    return value if isinstance(value, Decimal) else Decimal(str(value))


def target_out(row: dict) -> MonitoringTargetOut:
    return MonitoringTargetOut(
        id=row["id"],
        name=row["name"],
        geometry=Point(type="Point", coordinates=(row["longitude"], row["latitude"])),
    )


__all__ = ["basis_out", "coverage_full", "target_out"]
