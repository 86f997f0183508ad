"""Monte Carlo expected loss vs closed forms, error-bar honesty, reproducibility."""

from __future__ import annotations

import calendar
import json
from datetime import date
from decimal import Decimal

import numpy as np
import pytest
from scipy import integrate
from scipy.stats import binom

from activities.pricing import (
    CoverTerms,
    as_dict,
    count_payout,
    linear_payout,
    payout,
    price_cover,
    price_covers,
    sampling,
    simulate_index,
    simulate_payouts,
)
from activities.pricing import montecarlo as mc

from .closed_form import Normal, Uniform, ZeroInflatedGamma, expected_linear
from .conftest import cyclone_wind, exponential_rain, normal_temperature, synthetic_model, without_trend

JUL = (date(2026, 7, 1), date(2026, 7, 31))
LIMIT = Decimal("100000")


def month(m, year=2026):
    return date(year, m, 1), date(year, m, calendar.monthrange(year, m)[1])


def terms(code, period, trigger, exit, min_payout=10000, ppu=None, direction=None):
    if ppu is None:
        ppu = (100000 - min_payout) / abs(exit - trigger)
    return CoverTerms(
        code,
        period[0],
        period[1],
        trigger=trigger,
        exit=exit,
        limit=LIMIT,
        min_payout=Decimal(min_payout),
        payout_per_unit=Decimal(repr(round(ppu, 6))),
        direction=direction,
    )


def exact_of(dist, t: CoverTerms) -> float:
    return expected_linear(
        dist,
        t.resolved_direction,
        t.trigger,
        t.exit,
        float(t.min_payout),
        float(t.payout_per_unit),
        float(t.limit),
    )


def assert_within_3se(model, covers, exact, n, seed, method="sobol"):
    sample = simulate_payouts(model, covers, n=n, seed=seed, method=method)
    for i, ex in enumerate(exact):
        el, se = mc.estimate(sample, i)
        assert se > 0
        assert abs(el - ex) <= 3 * se, f"cover {i}: EL {el:.4f} exact {ex:.4f} se {se:.4f}"


# --- closed forms through the engine ---------------------------------------------------


@pytest.mark.parametrize("pin", ["560001", "400001", "110001", "600001"])
@pytest.mark.parametrize("m", [1, 7, 10])
def test_calibrated_zero_inflated_gamma_closed_form(site_models, pin, m):
    """The real calibrated monthly margins: excess and deficit covers, full and half month
    (the half month from its own time-scale margin, not half the month's total)."""
    model = without_trend(site_models[pin])
    r = model.rain
    k = m - 1
    zig = ZeroInflatedGamma(r.p_zero[k], r.shape[k], r.scale_rel[k] * r.normals_mm[k])
    q = lambda p: float(r.quantile(m, np.array([__import__("scipy").special.ndtri(p)]))[0])  # noqa: E731
    full, half = month(m), (month(m)[0], date(2026, m, 15))
    f = 15 / calendar.monthrange(2026, m)[1]
    p0f, kf, thf, _ = r.margin(m, f)
    half_zig = ZeroInflatedGamma(p0f, kf, thf * f * r.normals_mm[k])
    assert half_zig.p0 >= zig.p0 and 1 / kf >= 1 / r.shape[k]
    covers, exact = [], []
    for period, dist, scale in ((full, zig, 1.0), (half, half_zig, f)):
        hi_t, hi_e = q(0.9) * scale, q(0.98) * scale
        if hi_e > hi_t > 0:
            covers.append(terms("RAINFALL_MONTHLY_TOTAL", period, hi_t, hi_e))
            exact.append(exact_of(dist, covers[-1]))
        lo_t, lo_e = q(0.2) * scale, q(0.05) * scale
        if lo_t > lo_e:
            covers.append(terms("RAINFALL_DEFICIT", period, lo_t, lo_e))
            exact.append(exact_of(dist, covers[-1]))
    assert covers
    assert_within_3se(model, covers, exact, n=1 << 13, seed=11)


@pytest.mark.parametrize("method", ["sobol", "antithetic", "mc"])
def test_exponential_index(chennai, method):
    model = synthetic_model(chennai, rain=exponential_rain(100.0))
    dist = ZeroInflatedGamma(0.0, 1.0, 100.0)
    covers = [
        terms("RAINFALL_MONTHLY_TOTAL", JUL, 230.0, 390.0),  # continuous at exit
        terms("RAINFALL_MONTHLY_TOTAL", JUL, 150.0, 300.0, min_payout=0, ppu=300.0),  # jump at exit
        terms("RAINFALL_MONTHLY_TOTAL", JUL, 200.0, None, min_payout=5000, ppu=900.0),  # no exit
        terms("RAINFALL_DEFICIT", JUL, 10.5, 2.0),
        terms("RAINFALL_MONTHLY_TOTAL", JUL, 80.0, 50.0, direction="BELOW"),
    ]
    assert_within_3se(model, covers, [exact_of(dist, c) for c in covers], n=1 << 13, seed=5, method=method)


def test_sum_of_two_independent_months_is_gamma(chennai):
    rain = exponential_rain(100.0)
    slot_months = ((0, 7), (0, 8))
    rain._cache[("corr", slot_months)] = np.eye(2)
    rain._cache[("chol", slot_months)] = np.eye(2)
    model = synthetic_model(chennai, rain=rain)
    period = (date(2026, 7, 1), date(2026, 8, 31))
    c = [terms("RAINFALL_MONTHLY_TOTAL", period, 400.0, 600.0), terms("RAINFALL_DEFICIT", period, 60.0, 20.0)]
    dist = ZeroInflatedGamma(0.0, 2.0, 100.0)
    assert_within_3se(model, c, [exact_of(dist, x) for x in c], n=1 << 13, seed=0)


@pytest.mark.parametrize("direction", ["ABOVE", "BELOW"])
def test_normal_index_temperature(chennai, direction):
    model = synthetic_model(chennai, temperature=normal_temperature(38.0, 2.0))
    dist = Normal(38.0, 2.0)
    if direction == "ABOVE":
        c = [
            terms("TEMPERATURE_MAX", JUL, 40.5, 43.0),
            terms("TEMPERATURE_MAX", JUL, 38.0, None, ppu=20000.0),
        ]
    else:
        c = [terms("TEMPERATURE_MAX", JUL, 35.5, 33.0, direction="BELOW")]
    assert_within_3se(model, c, [exact_of(dist, x) for x in c], n=1 << 13, seed=2)


def test_cyclone_wind_closed_form(chennai):
    """Poisson gale events with exponential excess: P(W <= w) = exp(-lam f exp(-(w - 62)/sigma))."""
    lam, sigma = 0.3, 25.0
    model = synthetic_model(chennai, wind=cyclone_wind(lam, sigma))
    c = terms("WIND_MAX_SPEED", JUL, 70.0, 118.0)
    cdf = lambda x, f=1.0: np.exp(-lam * f * np.exp(-(x - 62.0) / sigma))  # noqa: E731
    pdf = lambda x: cdf(x) * lam * np.exp(-(x - 62.0) / sigma) / sigma  # noqa: E731
    f = lambda x: float(payout(c, np.array([x]))[0]) * pdf(x)  # noqa: E731
    exact = integrate.quad(f, 70.0, 118.0)[0] + 100000 * (1 - cdf(118.0))
    assert_within_3se(model, [c], [exact], n=1 << 13, seed=4)
    # half a month: half the rate (Poisson thinning)
    half = terms("WIND_MAX_SPEED", (date(2026, 7, 1), date(2026, 7, 16)), 70.0, 118.0)
    p_attach = 1 - cdf(70.0, 16 / 31)
    r = price_cover(model, half, n=1 << 14, seed=4)
    assert abs(r.metrics.prob_attach - p_attach) < 3 * np.sqrt(p_attach * (1 - p_attach) / (1 << 14))


def test_uniform_index_payout_family():
    """Plain Monte Carlo of the payout functions on a uniform index (closed form known)."""
    rng = np.random.default_rng(1)
    x = rng.uniform(0.0, 200.0, 200_000)
    dist = Uniform(0.0, 200.0)
    for kw in (
        dict(
            direction="ABOVE",
            trigger=150.0,
            exit=190.0,
            min_payout=1000.0,
            payout_per_unit=225.0,
            limit=10000.0,
        ),
        dict(
            direction="ABOVE", trigger=100.0, exit=180.0, min_payout=0.0, payout_per_unit=50.0, limit=10000.0
        ),
        dict(
            direction="BELOW", trigger=40.0, exit=10.0, min_payout=500.0, payout_per_unit=316.0, limit=10000.0
        ),
        dict(direction="BELOW", trigger=40.0, exit=None, min_payout=0.0, payout_per_unit=100.0, limit=3000.0),
    ):
        p = linear_payout(x, **kw)
        exact = expected_linear(
            dist,
            kw["direction"],
            kw["trigger"],
            kw["exit"],
            kw["min_payout"],
            kw["payout_per_unit"],
            kw["limit"],
        )
        assert abs(p.mean() - exact) <= 3 * p.std(ddof=1) / np.sqrt(p.size)


@pytest.mark.parametrize(
    "p_day, price, limit", [(0.1, 100.0, 400.0), (0.03, 250.0, 10000.0), (0.5, 10.0, 120.0)]
)
def test_binomial_day_counts_hotel_form(p_day, price, limit):
    """Days independent with P(daily index >= trigger) = p: count ~ Binomial(days, p)."""
    days, n = 31, 100_000
    rng = np.random.default_rng(7)
    daily = np.where(rng.random((n, days)) < p_day, 25.0, 1.0)
    pay = count_payout(daily, trigger=10.0, payout_per_unit=price, limit=limit)
    k = np.arange(days + 1)
    exact = float((np.minimum(k * price, limit) * binom.pmf(k, days, p_day)).sum())
    assert abs(pay.mean() - exact) <= 3 * pay.std(ddof=1) / np.sqrt(n)


def test_hotel_engine_matches_its_index(chennai):
    """The engine's count path equals payout(simulate_index) on the same paths."""
    t = CoverTerms(
        "RAINFALL_DAYTIME_HOURS",
        date(2026, 7, 10),
        date(2026, 8, 5),
        trigger=20.0,
        limit=Decimal("1000"),
        payout_per_unit=Decimal("300"),
    )
    daily = simulate_index(chennai, t.index_code, t.risk_start, t.risk_end, n=2048, seed=9)
    assert daily.shape == (2048, 27)
    sample = simulate_payouts(chennai, [t], n=2048, seed=9)
    assert np.array_equal(sample.dense(0), payout(t, daily))


# --- error-bar honesty ----------------------------------------------------------------


@pytest.mark.parametrize("method", ["sobol", "antithetic", "mc"])
def test_standard_error_is_honest(chennai, method):
    """Across independent seeds, (EL - exact) / SE behaves like a standard score."""
    model = synthetic_model(chennai, rain=exponential_rain(100.0))
    dist = ZeroInflatedGamma(0.0, 1.0, 100.0)
    c = terms("RAINFALL_MONTHLY_TOTAL", JUL, 230.0, 390.0)
    exact = exact_of(dist, c)
    z = []
    for seed in range(40):
        el, se = mc.estimate(simulate_payouts(model, [c], n=1024, seed=seed, method=method), 0)
        z.append((el - exact) / se)
    z = np.array(z)
    assert 0.4 < np.mean(z**2) < 2.2, np.mean(z**2)
    assert np.abs(z).max() < 5


def test_sobol_beats_plain_monte_carlo(site_models):
    model = site_models["110001"]
    c = terms("RAINFALL_MONTHLY_TOTAL", JUL, 330.0, 480.0)
    s = price_cover(model, c, n=1 << 14, seed=1, method="sobol").metrics
    p = price_cover(model, c, n=1 << 14, seed=1, method="mc").metrics
    assert s.expected_loss_se < p.expected_loss_se
    assert s.variance_reduction > 5


# --- reproducibility and the fast path ------------------------------------------------


def quote(model):
    out = []
    for m in range(1, 13):
        x = simulate_index(model, "RAINFALL_MONTHLY_TOTAL", *month(m), n=4096, seed=0)
        qs = np.quantile(x, [0.05, 0.2, 0.9, 0.98])
        out.append(terms("RAINFALL_MONTHLY_TOTAL", month(m), float(qs[2]), float(qs[3])))
        if qs[1] > qs[0]:
            out.append(terms("RAINFALL_DEFICIT", month(m), float(qs[1]), float(qs[0])))
    return out


def test_same_inputs_same_numbers_bit_for_bit(chennai):
    covers = quote(chennai)
    a = price_covers(chennai, covers, n=5000, seed=42)
    b = price_covers(chennai, covers, n=5000, seed=42)
    assert a == b
    assert json.dumps(as_dict(a)) == json.dumps(as_dict(b))
    pa = simulate_payouts(chennai, covers, n=5000, seed=42)
    pb = simulate_payouts(chennai, covers, n=5000, seed=42)
    assert all(np.array_equal(x, y) for x, y in zip(pa.vals, pb.vals))
    assert price_covers(chennai, covers, n=5000, seed=43) != a


@pytest.mark.parametrize("method", ["sobol", "antithetic"])
def test_results_do_not_depend_on_chunking(chennai, monkeypatch, method):
    covers = quote(chennai)[:6] + [
        CoverTerms(
            "RAINFALL_DAYTIME_HOURS",
            date(2026, 3, 20),
            date(2026, 4, 10),
            trigger=5.0,
            limit=Decimal("1000"),
            payout_per_unit=Decimal("100"),
        ),
        CoverTerms(
            "WIND_MAX_SPEED",
            date(2026, 2, 10),
            date(2026, 4, 1),
            trigger=35.0,
            limit=Decimal("1000"),
            payout_per_unit=Decimal("100"),
        ),
    ]
    ref = simulate_payouts(chennai, covers, n=6000, seed=8, method=method)
    monkeypatch.setattr(mc, "CHUNK_ROWS", 700)
    monkeypatch.setattr(mc, "BLOCK_ROWS", 256)
    monkeypatch.setattr(sampling, "BLOCK_ROWS", 256)
    other = simulate_payouts(chennai, covers, n=6000, seed=8, method=method)
    for i in range(len(covers)):
        assert np.array_equal(ref.idx[i], other.idx[i])
        assert np.array_equal(ref.vals[i], other.vals[i])
    assert np.array_equal(ref.total(), other.total())


def test_fast_path_equals_index_then_payout(site_models):
    """The z-space shortcut of one-month rainfall covers changes no payout on any path."""
    model = site_models["400001"]
    covers = quote(model)
    covers.append(terms("RAINFALL_MONTHLY_TOTAL", (date(2026, 7, 5), date(2026, 7, 20)), 300.0, 500.0))
    for seed in (1, 2):
        for c in covers:
            sample = simulate_payouts(model, [c], n=3000, seed=seed)
            x = simulate_index(model, c.index_code, c.risk_start, c.risk_end, n=3000, seed=seed)
            assert np.array_equal(sample.dense(0), payout(c, x))


def test_joint_pricing_shares_paths(chennai):
    covers = quote(chennai)
    joint = price_covers(chennai, covers, n=4096, seed=3)
    total = sum(c.risk_premium for c in joint.covers)
    assert abs(total - joint.total_risk_premium) <= Decimal("0.01") * len(covers)
    # excess and deficit of the same month never pay together on one path
    s = simulate_payouts(chennai, covers[:2], n=4096, seed=3)
    assert not np.intersect1d(s.idx[0], s.idx[1]).size


def test_result_fields_and_units(chennai):
    c = quote(chennai)[12]  # July excess
    r = price_cover(chennai, c, n=4096, seed=1, expected_loss_ratio=0.5)
    m = r.metrics
    assert r.risk_premium == m.expected_loss
    assert r.gross_premium == (m.expected_loss / Decimal("0.5")).quantize(Decimal("0.01")) or abs(
        r.gross_premium - m.expected_loss * 2
    ) <= Decimal("0.01")
    assert r.risk_premium_rate == pytest.approx(float(m.expected_loss) / 100000, abs=1e-6)
    assert r.gross_premium_indication_rate == pytest.approx(2 * r.risk_premium_rate)
    assert 0 < m.prob_exhaust <= m.prob_attach < 1
    assert m.var_99 <= m.tvar_99 <= LIMIT and m.var_995 <= m.tvar_995 <= LIMIT
    assert m.var_99 <= m.var_995
    assert (r.n_paths, r.seed, r.method) == (4096, 1, "sobol")
    assert r.model_version and r.data_hash.startswith("sha256:")
    d = as_dict(r)
    json.dumps(d)

    def plain(v):
        if isinstance(v, dict):
            return all(plain(x) for x in v.values())
        if isinstance(v, list):
            return all(plain(x) for x in v)
        return v is None or type(v) in (str, int, float, bool)

    assert plain(d)


def test_tail_metrics_definition():
    pos = np.array([5.0, 1.0, 3.0, 2.0, 4.0])
    # N = 1000 paths, 5 pay: k = floor(1000 * 0.01) = 10 > 5 -> VaR 0, TVaR = 15 / 10
    assert mc._tails(pos, 1000)[0] == (0.0, 1.5)
    # N = 200: k99 = 2 -> TVaR mean(5, 4), VaR = 3; k995 = 1 -> TVaR 5, VaR 4
    assert mc._tails(pos, 200) == [(3.0, 4.5), (4.0, 5.0)]
