"""The price of a package (issue 26, finding 5): line items capped at their sum insured,
capital on the package's tail (TVaR99 - EL) allocated to covers by Euler (co-TVaR), each
cover's premium its part of the package's. Checked against closed forms on constructed
samples and against brute force on the engine's own paths; the old engine (frozen
pricing-2026.3.1) has no cap and no allocation: its quote price sums every cover's limit."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import numpy as np
import pytest

from activities.pricing import propose_terms
from activities.pricing.loading import LoadParameters, package_premium
from activities.pricing.montecarlo import PayoutSample, simulate_payouts
from activities.pricing.quote_pricing import PackageLineItem, cap_sample, price_package, tail_weights

LIMIT = Decimal("100000")
PARAMS = LoadParameters()


def constructed(payouts: list[np.ndarray]) -> PayoutSample:
    """A sample of given unit payouts (one equally likely path per row, two batches)."""
    n = payouts[0].size
    return PayoutSample(
        n=n, per_batch=n // 2, batches=2, method="mc", layout=((0, 0, n // 2), (1, n // 2, n // 2)),
        idx=tuple(np.flatnonzero(p) for p in payouts), vals=tuple(p[p > 0] for p in payouts),
    )


def _item(k: int, q: float = 1.0, cap: float = 1e9) -> PackageLineItem:
    from activities.pricing.terms import CoverTerms

    covers = tuple(
        CoverTerms("RAINFALL_MONTHLY_TOTAL", dt.date(2027, 7, 1), dt.date(2027, 7, 31), 100.0, LIMIT, Decimal(1000))
        for _ in range(k)
    )
    return PackageLineItem(covers=covers, quantity=q, cap=cap)


def test_euler_allocation_of_tvar_adds_up_and_a_hedge_gets_less_capital_than_alone():
    """1,000 equally likely years; A and B pay 100 in years 0-49 and 25-74, C in 900-949.
    The 1-in-100 tail (k = 10 years) lies in the 25 years where A and B both pay (an atom of
    T = 200, shared pro rata): co-TVaR A = B = 100, C = 0. Closed form: capital A = B =
    100 - 5 = 95 (as alone: they pay together), C = 0 - 5 = -5 (alone: 95)."""
    n = 1000
    a, b, c = np.zeros(n), np.zeros(n), np.zeros(n)
    a[0:50] = b[25:75] = c[900:950] = 100.0
    items = [_item(1), _item(1), _item(1)]
    capped = cap_sample(constructed([a, b, c]), items)
    var, tvar, w = tail_weights(capped.total, 0.99)
    assert (var, tvar) == (200.0, 200.0)
    co = [float(w[j] @ s) for j, s in zip(capped.idx, capped.shares)]
    assert co == pytest.approx([100.0, 100.0, 0.0])
    el = [float(s.sum()) / n for s in capped.shares]
    capital = [x - e for x, e in zip(co, el)]
    assert capital == pytest.approx([95.0, 95.0, -5.0])
    assert sum(capital) == pytest.approx(tvar - float(capped.total.mean()))
    # the order of the tied years does not matter: shuffle the paths, same allocation
    order = np.random.default_rng(1).permutation(n)
    shuffled = cap_sample(constructed([a[order], b[order], c[order]]), items)
    _, _, w2 = tail_weights(shuffled.total, 0.99)
    assert [float(w2[j] @ s) for j, s in zip(shuffled.idx, shuffled.shares)] == pytest.approx(co)


def test_tail_weights_match_brute_force_without_ties():
    rng = np.random.default_rng(7)
    n = 20_000
    parts = [rng.gamma(0.3, 50.0, n) * (rng.random(n) < 0.2) for _ in range(4)]
    items = [_item(2), _item(2)]
    capped = cap_sample(constructed(parts), items)
    total = capped.total
    for level in (0.99, 0.995):
        k = int(np.floor(n * (1 - level) + 1e-9))
        top = np.argsort(total)[-k:]
        var, tvar, w = tail_weights(total, level)
        assert tvar == pytest.approx(total[top].mean())
        assert var == pytest.approx(np.sort(total)[-k - 1])
        dense = [np.zeros(n) for _ in parts]
        for d, j, s in zip(dense, capped.idx, capped.shares):
            d[j] = s
        for d, j, s in zip(dense, capped.idx, capped.shares):
            assert float(w[j] @ s) == pytest.approx(d[top].mean())
            # never more than the cover's own tail mean: Euler for a coherent measure
            assert float(w[j] @ s) <= np.sort(d)[-k:].mean() + 1e-9


def test_a_line_item_pays_at_most_its_sum_insured_and_its_covers_parts_add_up():
    n = 1000
    x, y = np.zeros(n), np.zeros(n)
    x[:100] = 80.0
    y[50:150] = 60.0  # both pay in years 50-99: 2.5 x (80 + 60) = 350 > the cap 250
    capped = cap_sample(constructed([x, y]), [_item(2, q=2.5, cap=250.0)])
    assert capped.total.max() == 250.0
    assert np.allclose(capped.total, np.minimum(2.5 * (x + y), 250.0))
    dense = np.zeros(n)
    for j, s in zip(capped.idx, capped.shares):
        dense[j] += s
    assert np.allclose(dense, capped.total)
    # pro rata in the years the cap binds: 250 x 80/140 and 250 x 60/140
    assert capped.shares[0][60] == pytest.approx(250 * 80 / 140)
    assert capped.shares[1][10] == pytest.approx(250 * 60 / 140)


def test_package_premium_parts_add_up_and_the_minimum_scales_them():
    total, parts = package_premium([10.0, 20.0], [1.0, -0.5], [50.0, -5.0], 1000.0, PARAMS, "TVaR99")
    for field in ("adjusted_expected_loss", "uncertainty_load", "capital", "capital_load", "technical_premium",
                  "expenses", "gross_premium"):
        assert sum(getattr(p, field) for p in parts) == pytest.approx(getattr(total, field)), field
    assert total.gross_premium == pytest.approx((30 + 0.5 + 0.06 * 45) / 0.8)
    floored, parts = package_premium([1.0, 2.0], [0.0, 0.0], [0.0, 0.0], 1000.0, PARAMS, "TVaR99")
    assert floored.floored and floored.gross_premium == pytest.approx(10.0)
    assert [p.gross_premium for p in parts] == pytest.approx([10 / 3, 20 / 3])


def _bengaluru_package(model, months=range(1, 13)):
    items = []
    for m in months:
        start = dt.date(2027, m, 1)
        end = dt.date(2027 + (m == 12), m % 12 + 1, 1) - dt.timedelta(days=1)
        covers = []
        for code in ("RAINFALL_MONTHLY_TOTAL", "RAINFALL_DEFICIT", "TEMPERATURE_MAX"):
            p = propose_terms(model, code, start, end, LIMIT)
            if p.terms is not None and len(covers) < 2:
                covers.append(p.terms)
        items.append(tuple(covers))
    return items


def test_a_package_on_the_engines_paths(site_models):
    """Twelve monthly line items of two covers at Bengaluru, priced per unit of S and at S:
    every part adds up, the cap only lowers the expected loss, the capital is below the sum
    of the covers' own and homogeneous in S."""
    model = site_models["560001"]
    lines = _bengaluru_package(model)
    unit = [PackageLineItem(covers=c, quantity=1 / float(LIMIT), cap=1.0) for c in lines]
    money = [PackageLineItem(covers=c, quantity=2.5, cap=250_000.0) for c in lines]
    n, seed = 1 << 14, 20261125
    per_unit = price_package(model, unit, n, seed, PARAMS)
    priced = price_package(model, money, n, seed, PARAMS)
    assert priced.total_sum_insured == 12 * 250_000
    assert priced.premium.gross_premium == pytest.approx(250_000 * per_unit.premium.gross_premium, rel=1e-9)
    covers = priced.covers
    assert sum(c.premium.gross_premium for c in covers) == pytest.approx(priced.premium.gross_premium)
    assert sum(c.premium.capital for c in covers) == pytest.approx(priced.total.tvar_99 - priced.total.expected_loss)
    assert sum(c.expected_loss for c in covers) == pytest.approx(priced.total.expected_loss)
    assert priced.total.expected_loss <= priced.uncapped_expected_loss
    assert all(c.expected_loss <= c.uncapped_expected_loss + 1e-9 for c in covers)
    assert priced.premium.capital < sum(c.stand_alone_capital for c in covers)
    assert all(c.premium.capital <= c.stand_alone_capital + 1e-6 for c in covers)
    assert sum(line.gross_premium for line in priced.line_items) == pytest.approx(priced.premium.gross_premium)
    # the loss ratio the market works at, not the old basis's 0.37
    assert 0.5 <= priced.loss_ratio <= 0.8
    # a line item whose cap cannot bind (one cover, q x limit = S) is that cover alone
    single = price_package(model, [PackageLineItem(covers=lines[6][:1], quantity=2.5, cap=250_000.0)], n, seed, PARAMS)
    assert single.total.expected_loss == pytest.approx(single.uncapped_expected_loss)
    alone = simulate_payouts(model, list(lines[6][:1]), n, seed)
    assert single.total.expected_loss == pytest.approx(2.5 * float(alone.vals[0].sum()) / alone.n)


def test_the_old_engine_prices_a_package_without_the_cap_and_sums_every_limit(site_models):
    """Finding 5 on the old engine: its quote pricing counts every cover's q x limit in the
    total sum insured (24 S for 12 line items of S) and has no per-cover allocation."""
    from activities.pricing.frozen import engine_for
    from activities.pricing.frozen.v2026_3_1 import quote_pricing as old
    from models.settings import DATA_DIR

    engine = engine_for("pricing-2026.3.1")
    climate = engine.load_climate_data(DATA_DIR)
    site = engine.pincode_site(climate, "560001")
    old_model = engine.build_site_model(climate, site.query_district, site.query_state, site.latitude, site.longitude)
    old_covers = [
        engine.propose_terms(old_model, code, dt.date(2027, m, 1), dt.date(2027, m, 31), LIMIT).terms
        for m in (7, 8)
        for code in ("RAINFALL_MONTHLY_TOTAL", "RAINFALL_DEFICIT")
    ]
    quote = old.price_quote(old_model, old_covers, 2.5, 1 << 13, 1, old.LoadParameters())
    assert quote.total_sum_insured == 4 * 250_000  # 2 line items of 250,000 sold as 4
    assert not hasattr(quote.covers[0], "premium")
    lines = _bengaluru_package(site_models["560001"], months=(7, 8))
    new = price_package(
        site_models["560001"], [PackageLineItem(covers=c, quantity=2.5, cap=250_000.0) for c in lines], 1 << 13, 1, PARAMS
    )
    assert new.total_sum_insured == 2 * 250_000


def test_a_packages_band_holds_every_driver_of_its_covers_bands(site_models):
    """Issue 26 (bands with every driver): the package's sigma_param holds the cell scale,
    the trend and the settlement mapping, as a cover's band does, not the bootstrap alone. A
    package of one cover whose cap cannot bind has its cover's sigma_param (the same
    replicates, variants and paths); on twelve months the drivers' parts add up (Euler).
    Before, the package's band was the bootstrap's alone: 0.67 x its sd, below the cover's."""
    from activities.pricing.uncertainty import parameter_bands

    model = site_models["560001"]
    lines = _bengaluru_package(model)
    cover = lines[6][0]
    seed = 20261125
    alone = parameter_bands(model, [cover], seed)[0]
    assert {d.name for d in alone.drivers} >= {"sampling", "scale"}
    assert alone.sd > alone.sampling_sd * 1.05  # the other drivers matter for this cover
    single = price_package(model, [PackageLineItem(covers=(cover,), quantity=1.0, cap=float(cover.limit))], 1 << 13, seed, PARAMS)
    assert single.parameter_sd == pytest.approx(alone.sd, rel=1e-6)
    assert single.premium.uncertainty_load == pytest.approx(PARAMS.uncertainty_multiplier * alone.sd, rel=1e-6)
    assert single.band_low == pytest.approx(alone.low, rel=1e-6) and single.band_high == pytest.approx(alone.high, rel=1e-6)

    unit = [PackageLineItem(covers=c, quantity=1 / float(LIMIT), cap=1.0) for c in lines]
    priced = price_package(model, unit, 1 << 13, seed, PARAMS)
    parts = [c.premium.uncertainty_load for c in priced.covers]
    assert sum(parts) == pytest.approx(priced.premium.uncertainty_load, rel=1e-9)
    assert priced.premium.uncertainty_load == pytest.approx(PARAMS.uncertainty_multiplier * priced.parameter_sd, rel=1e-9)
    assert "scale" in priced.band_method and "trend" in priced.band_method
    # every driver in: above the bootstrap's sd alone
    from activities.pricing.quote_pricing import package_band

    flat = [c for item in unit for c in item.covers]
    sampling = float(package_band(model, flat, unit, seed).sum(axis=1).std(ddof=1))
    assert priced.parameter_sd > sampling
