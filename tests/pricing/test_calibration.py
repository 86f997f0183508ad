"""Calibration sanity against the data for the reference targets (560001, 400001, 110001, 600001)."""

from __future__ import annotations

import calendar
from datetime import date

import numpy as np
import pytest
from scipy.stats import spearmanr

import dataclasses

from activities.pricing import historical_index, simulate_index
from activities.pricing.rainfall import fit_monthly_model

from .conftest import REFERENCE_PINS

N = 1 << 14
PROBS = (0.1, 0.25, 0.5, 0.75, 0.9)


def month(m, year=2026):
    return date(year, m, 1), date(year, m, calendar.monthrange(year, m)[1])


@pytest.mark.parametrize("pin", sorted(REFERENCE_PINS))
def test_site_resolution(site_models, pin):
    sub, district = REFERENCE_PINS[pin]
    site = site_models[pin].site
    assert (site.subdivision, site.normals_district) == (sub, district)
    assert site.distance_km is not None and site.distance_km < 25


@pytest.mark.parametrize("pin", sorted(REFERENCE_PINS))
def test_monthly_means_and_quantiles_match_history(site_models, climate, pin):
    """Simulated monthly mean = district normal x the trend level of the risk year; observed
    quantiles sit where the model (brought back to the record's level) puts them, within the
    sampling error of a quantile of ~115 years (binomial band). Checked at the subdivision's
    own scale (the scale correction is tested in test_actuarial_review)."""
    base = site_models[pin]
    rain = fit_monthly_model(climate.subdivisions[base.site.subdivision], base.rain.normals_mm)
    model = dataclasses.replace(base, rain=rain)
    hist = model.rain.district_history_mm()
    worst = 0.0
    for m in range(1, 13):
        x = simulate_index(model, "RAINFALL_MONTHLY_TOTAL", *month(m), n=N, seed=m)
        normal = model.rain.normals_mm[m - 1]
        level = model.rain.level(m, 2026)
        assert x.mean() == pytest.approx(normal * level, rel=5e-3, abs=0.05)
        x = x / level
        h = hist[:, m - 1]
        h = h[~np.isnan(h)]
        assert h.mean() == pytest.approx(normal, rel=1e-9)  # history rescaled to the district level
        for p in PROBS:
            q = np.quantile(h, p)
            lo, hi = (x < q).mean(), (x <= q).mean()  # model probability of <= observed quantile
            gap = 0.0 if lo <= p <= hi else min(abs(p - lo), abs(p - hi))
            worst = max(worst, gap / np.sqrt(p * (1 - p) / h.size))
        if normal >= 50:  # wet months: spread within 25 % of the observed one
            assert x.std() == pytest.approx(h.std(), rel=0.25)
    assert worst < 3.5, worst


@pytest.mark.parametrize(
    "pin, m1, m2", [("600001", 10, 11), ("110001", 7, 8), ("400001", 6, 7), ("560001", 12, 13)]
)
def test_month_to_month_dependence(site_models, pin, m1, m2):
    """Spearman correlation of consecutive months (Dec–Jan across years): model vs history."""
    model = site_models[pin]
    start = date(2026, m1, 1)
    end_m = (m2 - 1) % 12 + 1
    end_y = 2026 + (m2 - 1) // 12
    end = date(end_y, end_m, calendar.monthrange(end_y, end_m)[1])
    # two one-month covers priced jointly share their paths: simulate both through payouts
    from activities.pricing import montecarlo as mc

    plan_requests = [
        ("RAINFALL_MONTHLY_TOTAL", *month(m1)),
        ("RAINFALL_MONTHLY_TOTAL", date(end_y, end_m, 1), end),
    ]
    cols = []

    def sink(plan, st, rows):
        cols.append([st.index(r) for r in plan.requests])

    mc._run(model, plan_requests, 1 << 13, 5, "sobol", 16, sink)
    a = np.concatenate([c[0] for c in cols])
    b = np.concatenate([c[1] for c in cols])
    sim = spearmanr(a, b).statistic
    hist = model.rain.district_history_mm()
    x = hist[:-1, m1 - 1] if m2 > 12 else hist[:, m1 - 1]
    y = hist[1:, end_m - 1] if m2 > 12 else hist[:, end_m - 1]
    ok = ~np.isnan(x) & ~np.isnan(y)
    obs = spearmanr(x[ok], y[ok]).statistic
    assert abs(sim - obs) < 0.12, (sim, obs)
    assert start < end


def test_historical_index_partial_and_cross_year(site_models):
    model = site_models["110001"]
    full = historical_index(model, "RAINFALL_MONTHLY_TOTAL", *month(7))
    half = historical_index(model, "RAINFALL_DEFICIT", date(2026, 7, 1), date(2026, 7, 16))
    assert len(full) == 115 and min(full) == 1901 and max(full) == 2015
    for y in (1901, 1950, 2015):
        assert half[y] == pytest.approx(full[y] * 16 / 31)
    dec_jan = historical_index(model, "RAINFALL_MONTHLY_TOTAL", date(2026, 12, 1), date(2027, 1, 31))
    hist = model.rain.district_history_mm()
    assert max(dec_jan) == 2014
    assert dec_jan[1950] == pytest.approx(hist[49, 11] + hist[50, 0])
    assert historical_index(model, "TEMPERATURE_MAX", *month(7)) == {}
    # Delhi has no cyclone record: every year reads 0 km/h
    wind = historical_index(model, "WIND_MAX_SPEED", *month(10))
    assert len(wind) == 41 and set(wind.values()) == {0.0}
