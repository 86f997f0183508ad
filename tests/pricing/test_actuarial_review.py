"""The findings of the independent pricing review (issue 11), one test each: every one of
these fails on the engine as it stood before (no projection, no parameter band, EL / ELR,
one wind table for India)."""

from __future__ import annotations

import dataclasses
from datetime import date
from decimal import Decimal

import numpy as np
import pytest

from activities.pricing import burn_analysis, historical_index, price_cover, propose_terms, simulate_index
from activities.pricing.burn import Z_REVIEW, credibility_blend
from activities.pricing.loading import LoadParameters, loss_ratio_premium, risk_loaded_premium
from activities.pricing.uncertainty import BOOTSTRAP_PATHS, parameter_bands

LIMIT = Decimal("100000")


def month(m: int, year: int = 2027):
    import calendar

    return date(year, m, 1), date(year, m, calendar.monthrange(year, m)[1])


# --- 3. trend: model and burn projected to the risk year the same way --------------------


def test_model_and_burn_are_projected_to_the_same_risk_year(site_models):
    """Find the reference subdivision-month with the clearest trend: the model's mean for a
    risk year and the mean of the projected history must agree (the old engine priced the
    record's mean and detrended the burn to 2015 only when the cover's own test fired)."""
    best = max(
        ((pin, m) for pin in site_models for m in range(1, 13)),
        key=lambda k: abs(site_models[k[0]].rain.trend_t[k[1] - 1]),
    )
    model = site_models[best[0]]
    m = best[1]
    assert abs(model.rain.trend_t[m - 1]) > 2
    for year in (2027, 2035):
        level = model.rain.level(m, year)
        assert level != pytest.approx(1.0, abs=0.02)
        sim = simulate_index(model, "RAINFALL_MONTHLY_TOTAL", *month(m, year), n=1 << 14, seed=3)
        projected = historical_index(model, "RAINFALL_MONTHLY_TOTAL", *month(m, year), projected=True)
        observed = historical_index(model, "RAINFALL_MONTHLY_TOTAL", *month(m, year))
        hist_mean = np.mean(list(projected.values()))
        assert sim.mean() == pytest.approx(model.rain.normals_mm[m - 1] * level, rel=0.03)
        # the projected record sits at the risk year's level, the raw record does not
        assert hist_mean == pytest.approx(np.mean(list(observed.values())) * level, rel=0.1)
        assert sim.mean() == pytest.approx(hist_mean, rel=0.1)


def test_burn_is_projected_with_the_models_trend(site_models):
    model = site_models["110001"]
    t = propose_terms(model, "RAINFALL_MONTHLY_TOTAL", *month(8), LIMIT).terms
    b = burn_analysis(model, t, price_cover(model, t, n=1 << 13, seed=1))
    level = model.rain.level(8, 2027)
    for y in b.years[:3]:
        assert y.index_used == pytest.approx(y.index * level / model.rain.level(8, y.year))
    assert "2027" in b.trend_method or not b.detrended


# --- 3. burn against model: review and credibility ----------------------------------------


def test_disagreeing_burn_is_flagged_and_blended(site_models):
    """A model with a third of the record's month-to-month spread prices excess covers far
    below the record: the burn check must flag it and blend, not publish it silently."""
    base = site_models["600001"]
    r = base.rain
    shape = r.shape * 9.0
    calm = dataclasses.replace(
        base, rain=dataclasses.replace(r, shape=shape, scale_rel=1.0 / ((1.0 - r.p_zero) * shape), _cache={})
    )
    t = propose_terms(base, "RAINFALL_MONTHLY_TOTAL", *month(11), LIMIT).terms
    priced = price_cover(calm, t, n=1 << 14, seed=1)
    band = parameter_bands(calm, [t], seed=1, replicates=16)[0]
    b = burn_analysis(calm, t, priced, parameter_sd=band.sd)
    assert b.z_score > Z_REVIEW and b.review
    blend = float(b.credibility_expected_loss)
    assert float(priced.risk_premium) < blend < float(b.burn_cost)
    # an agreeing model is not flagged
    ok = burn_analysis(base, t, price_cover(base, t, n=1 << 14, seed=1), parameter_sd=band.sd)
    assert not ok.review and ok.credibility_expected_loss is None


def test_credibility_blend_weights_by_inverse_variance():
    assert credibility_blend(100.0, 1.0, 200.0, 1.0) == pytest.approx(150.0)
    assert credibility_blend(100.0, 1.0, 200.0, 3.0) == pytest.approx(125.0)
    assert credibility_blend(100.0, 0.0, 200.0, 3.0) == 100.0


# --- 6. parameter uncertainty -------------------------------------------------------------


def test_parameter_band_is_reported_and_wide(site_models):
    """The bootstrap band of a monthly rainfall cover is tens of percent of its EL, far above
    the Monte Carlo error the old engine reported as its only uncertainty."""
    model = site_models["400001"]
    t = propose_terms(model, "RAINFALL_MONTHLY_TOTAL", *month(7), LIMIT).terms
    priced = price_cover(model, t, seed=5)
    band = parameter_bands(model, [t], seed=5)[0]
    el = float(priced.risk_premium)
    assert band.low < el < band.high
    assert 0.1 < band.relative_sd < 0.8
    assert band.sd > 20 * float(priced.metrics.expected_loss_se)
    assert "bootstrap" in band.method and str(BOOTSTRAP_PATHS) in band.method


def test_bootstrap_replicates_are_shared_by_the_covers_of_a_target(site_models):
    """Replicate b is the same resample for every cover: per-replicate ELs add up across a
    quote's covers whether they are priced together or apart."""
    model = site_models["560001"]
    a = propose_terms(model, "RAINFALL_MONTHLY_TOTAL", *month(6), LIMIT).terms
    b = propose_terms(model, "RAINFALL_DEFICIT", *month(9), LIMIT).terms
    together = parameter_bands(model, [a, b], seed=2, replicates=8)
    alone = parameter_bands(model, [a], seed=2, replicates=8) + parameter_bands(model, [b], seed=2, replicates=8)
    for x, y in zip(together, alone):
        # the same resample; only the Monte Carlo noise of joint vs separate paths differs
        assert x.replicates == pytest.approx(y.replicates, rel=0.03)


# --- 5. a risk-based load -----------------------------------------------------------------


def test_risk_load_has_documented_parts():
    p = LoadParameters(expense_ratio=0.2, uncertainty_multiplier=0.5, capital_cost_rate=0.1, min_rate_on_line=0.01)
    b = risk_loaded_premium(5000.0, 1000.0, 100000.0, 100000.0, p)
    assert b.uncertainty_load == 500.0 and b.capital == 95000.0 and b.capital_load == 9500.0
    assert b.technical_premium == 15000.0 and b.gross_premium == pytest.approx(18750.0)
    assert b.expenses == pytest.approx(3750.0) and not b.floored
    # a cover that hardly ever pays still costs the minimum rate on line
    tiny = risk_loaded_premium(1.0, 0.0, 0.0, 100000.0, p)
    assert tiny.floored and tiny.gross_premium == 1000.0
    assert loss_ratio_premium(650.0, 0.65).gross_premium == pytest.approx(1000.0)


def test_riskier_covers_cost_more_than_their_expected_loss_ratio(site_models):
    """Two covers with the same EL: the one with the wider parameter band or the bigger tail
    costs more (EL / ELR charged them the same)."""
    p = LoadParameters()
    narrow = risk_loaded_premium(5000.0, 500.0, 60000.0, 100000.0, p)
    wide = risk_loaded_premium(5000.0, 2500.0, 60000.0, 100000.0, p)
    fat = risk_loaded_premium(5000.0, 500.0, 100000.0, 100000.0, p)
    assert narrow.gross_premium < wide.gross_premium and narrow.gross_premium < fat.gross_premium
