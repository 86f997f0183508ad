"""Trigger/exit proposals from the model, and the burn analysis."""

from __future__ import annotations

import json
from datetime import date
from decimal import Decimal

import numpy as np
import pytest

from activities.pricing import (
    as_dict,
    burn_analysis,
    historical_index,
    price_cover,
    propose_terms,
    simulate_index,
)
from activities.pricing.rainfall import monthly_trend

JUL = (date(2026, 7, 1), date(2026, 7, 31))
LIMIT = Decimal("100000")


@pytest.mark.parametrize(
    "code, direction", [("RAINFALL_MONTHLY_TOTAL", "ABOVE"), ("RAINFALL_DEFICIT", "BELOW")]
)
def test_proposal_levels_are_model_return_periods(site_models, code, direction):
    model = site_models["110001"]
    p = propose_terms(model, code, *JUL, LIMIT)
    assert p.viable and p.terms is not None
    t = p.terms
    assert t.resolved_direction == direction
    x = simulate_index(model, code, *JUL, n=1 << 15, seed=123)  # independent paths
    attach = (x >= t.trigger) if direction == "ABOVE" else (x <= t.trigger)
    exhaust = (x >= t.exit) if direction == "ABOVE" else (x <= t.exit)
    assert attach.mean() == pytest.approx(0.10, abs=0.01)
    assert exhaust.mean() == pytest.approx(0.02, abs=0.005)
    assert t.min_payout == Decimal("10000.00") and t.limit == LIMIT
    # continuous at the exit: min_payout + payout_per_unit * |exit - trigger| = limit (to rounding)
    reach = t.min_payout + t.payout_per_unit * Decimal(repr(abs(t.exit - t.trigger)))
    assert abs(reach - LIMIT) < Decimal("1")


def test_deficit_in_a_dry_month_is_not_viable(site_models):
    p = propose_terms(site_models["400001"], "RAINFALL_DEFICIT", date(2026, 1, 1), date(2026, 1, 31), LIMIT)
    assert not p.viable and p.terms is None and "dry" in p.reason


def test_hotel_proposal(site_models):
    p = propose_terms(
        site_models["400001"],
        "RAINFALL_DAYTIME_HOURS",
        *JUL,
        Decimal("20000"),
        price_per_night=Decimal("4500"),
    )
    assert p.viable
    assert p.terms.payout_per_unit == Decimal("4500.00") and p.terms.exit is None
    assert p.trigger_probability == pytest.approx(0.1, abs=0.02)


def test_proposal_is_reproducible(site_models):
    a = propose_terms(site_models["560001"], "RAINFALL_MONTHLY_TOTAL", *JUL, LIMIT)
    b = propose_terms(site_models["560001"], "RAINFALL_MONTHLY_TOTAL", *JUL, LIMIT)
    assert a == b
    d = as_dict(a)
    assert d["terms"]["risk_start"] == "2026-07-01" and "_resolved_direction" not in d["terms"]
    json.dumps(d)


def test_monthly_trend_keeps_a_clear_trend_and_drops_noise():
    years = np.arange(1901, 2016)
    rng = np.random.default_rng(0)
    rain = np.full((years.size, 12), np.nan)
    rain[:, 0] = 100 + 0.8 * (years - 1901) + rng.normal(0, 10, years.size)  # t ~ 27
    rain[:, 1] = 100 + rng.normal(0, 10, years.size)  # no trend
    rel, t, ref = monthly_trend(years, rain)
    mean0 = np.nanmean(rain[:, 0])
    assert abs(t[0]) > 10 and rel[0] * mean0 == pytest.approx(0.8, rel=0.05)
    # noise: shrunk to (near) nothing; |t| <= 1 keeps nothing at all
    assert abs(rel[1]) * 100 < 0.05 and (abs(t[1]) > 1 or rel[1] == 0)
    assert ref[0] == pytest.approx(1958.0)


def test_burn_analysis(site_models):
    model = site_models["600001"]
    t = propose_terms(model, "RAINFALL_MONTHLY_TOTAL", date(2026, 11, 1), date(2026, 11, 30), LIMIT).terms
    priced = price_cover(model, t, n=1 << 14, seed=1)
    b = burn_analysis(model, t, priced)
    hist = historical_index(model, t.index_code, t.risk_start, t.risk_end)
    assert b.n_years == len(hist) == 115
    pays = [float(y.payout) for y in b.years]
    assert float(b.burn_cost) == pytest.approx(np.mean(pays), abs=0.01)
    assert b.payout_frequency == pytest.approx(np.mean([p > 0 for p in pays]))
    if not b.detrended:
        assert all(y.index == y.index_used for y in b.years)
    assert b.model_expected_loss == priced.risk_premium
    assert b.burn_to_model_ratio == pytest.approx(float(b.burn_cost) / float(priced.risk_premium), rel=1e-5)
    # the model is calibrated on this history: burn and model agree within a few burn SEs
    assert abs(b.z_score) < 3
    assert b.trend_method
    json.dumps(as_dict(b))


def test_burn_without_history(site_models):
    model = site_models["600001"]
    t = propose_terms(model, "TEMPERATURE_MAX", *JUL, LIMIT).terms
    b = burn_analysis(model, t)
    assert b.n_years == 0 and b.years == () and "no historical" in b.note
