"""A pricing run as the internal surface shows it."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from models.db.records import PricingRunRow
from models.domain.actors import shown_actor
from models.domain.statuses import PricingRunStatus
from models.domain.risk_metrics import RiskMetrics
from models.wire.common import Money, iso_millis
from models.wire.internal import BandDriverOut, BurnViewOut, BurnYearOut, PremiumPartsOut, PricingRunOut, RiskMetricsOut


def _money(minor: int | None, currency: str) -> Money | None:
    return None if minor is None else Money.of_minor(minor, currency)


def pricing_run_out(row: PricingRunRow) -> PricingRunOut:
    """The run as every caller sees it: actors by staff name, never a tenant's client id
    (models/domain/actors.py)."""
    currency = row.currency
    published_by, published_at = publication(row)
    metrics = row.metrics
    burn = row.burn
    return PricingRunOut(
        coverage_id=row.coverage_id,
        version=row.version,
        status=row.status,
        workflow_id=row.workflow_id,
        simulations=row.simulations,
        seed=row.seed,
        expected_loss_ratio=row.expected_loss_ratio,
        model_version=row.model_version,
        data_hash=row.data_hash,
        currency=currency,
        risk_premium=_money(row.risk_premium_minor, currency),
        risk_premium_pct=row.risk_premium_pct,
        gross_premium=_money(row.gross_premium_minor, currency),
        gross_premium_indication_pct=row.gross_premium_indication_pct,
        metrics=None if metrics is None else _metrics_out(metrics),
        premium_parts=None if metrics is None else _premium_parts(metrics),
        burn_cost=None if not burn else Money(amount=Decimal(burn["burn_cost"]), currency=currency),
        burn_payout_frequency=None if not burn else Decimal(repr(burn["payout_frequency"])),
        burn_method=None if not burn else burn["trend_method"],
        burn_years=None
        if not burn
        else [
            BurnYearOut(year=y["year"], index_value=Decimal(repr(y["index_used"])), payout=Decimal(y["payout"]))
            for y in burn["years"]
        ],
        fact_sheet_report_file_id=row.fact_sheet_file_id,
        technical_pricing_report_file_id=row.technical_report_file_id,
        requested_by=shown_actor(row.requested_by),
        error=row.error,
        created_at=iso_millis(row.created_at),
        completed_at=None if row.completed_at is None else iso_millis(row.completed_at),
        published_by=shown_actor(published_by),
        published_at=None if published_at is None else iso_millis(published_at),
        hold_reason=(burn or {}).get("hold_reason") or None,
        burn_views=_views(burn) if burn and "views" in burn else None,
        band_drivers=_drivers(row.report),
    )


def _dec(value) -> Decimal:
    return Decimal(repr(value)) if isinstance(value, float) else Decimal(str(value))


def _views(burn: dict) -> list[BurnViewOut]:
    return [
        BurnViewOut(
            name=v["name"],
            first_year=v["first_year"],
            last_year=v["last_year"],
            years=v["n_years"],
            burn_cost=Decimal(v["burn_cost"]),
            burn_cost_rate=_dec(v["burn_cost_rate"]),
            burn_cost_standard_error=Decimal(v["burn_cost_se"]),
            payout_frequency=_dec(v["payout_frequency"]),
            basis=v["basis"],
            holds=bool(v["holds"]),
        )
        for v in burn["views"]
    ]


def _drivers(report: dict | None) -> list[BandDriverOut] | None:
    """The parameter band's drivers (runs of pricing-2026.4 on), money rounded to the cent."""
    drivers = ((report or {}).get("parameterBand") or {}).get("drivers")
    if drivers is None:
        return None
    cent = Decimal("0.01")
    return [
        BandDriverOut(
            name=d["name"],
            low=_dec(d["low"]).quantize(cent),
            high=_dec(d["high"]).quantize(cent),
            standard_deviation=_dec(d["sd"]).quantize(cent),
            share=_dec(d["share"]).quantize(Decimal("0.0001")),
            note=d["note"],
        )
        for d in drivers
    ]


def publication(row: PricingRunRow) -> tuple[str | None, dt.datetime | None]:
    """Who published the run, and when: as recorded, or for a run completed before four
    eyes (nothing recorded) its requester at completion."""
    if row.status != PricingRunStatus.COMPLETED:
        return None, None
    if row.published_by is None:
        return row.requested_by, row.published_at or row.completed_at
    return row.published_by, row.published_at


def _metrics_out(m: RiskMetrics) -> RiskMetricsOut:
    return RiskMetricsOut(
        expected_loss=m.expected_loss,
        expected_loss_standard_error=m.expected_loss_standard_error,
        standard_deviation=m.standard_deviation,
        probability_of_attachment=m.probability_of_attachment,
        probability_of_exhaustion=m.probability_of_exhaustion,
        var99=m.var99,
        tvar99=m.tvar99,
        var995=m.var995,
        tvar995=m.tvar995,
        parameter_standard_deviation=m.parameter_standard_deviation,
        expected_loss_band_low=m.expected_loss_band_low,
        expected_loss_band_high=m.expected_loss_band_high,
        burn_z_score=m.burn_z_score,
        burn_check=m.burn_check,
        review=m.burn_check in ("DISAGREES", "HELD"),
    )


def _premium_parts(m: RiskMetrics) -> PremiumPartsOut | None:
    if m.premium_method is None:  # priced before the risk load
        return None
    return PremiumPartsOut(
        method=m.premium_method,
        adjusted_expected_loss=m.adjusted_expected_loss,
        uncertainty_load=m.uncertainty_load,
        capital=m.capital,
        capital_load=m.capital_load,
        technical_premium=m.technical_premium,
        expenses=m.expenses,
        minimum_premium=m.minimum_premium,
    )
