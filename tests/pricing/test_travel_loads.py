"""A travel stay's price on the catalogue's basis (issue 26, finding 6): the expected payout,
an uncertainty load from the stay's parameter band, capital on the stay's 1-in-100 payout,
expenses and a minimum premium per stay (models/domain/travel.py `price`, docs/travel.md).
Exact from the stored counts: the same figures as the engine's float formulas
(activities/pricing/loading.py, montecarlo.py) to the paisa, and reproducible."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import numpy as np
import pytest

from activities.pricing import build_site_model, load_climate_data, pincode_site
from activities.pricing.loading import LoadParameters, risk_loaded_premium
from activities.travel import STAY_BAND_BATCHES, STAY_BAND_PATHS, night_counts
from models.domain import travel
from models.settings import DATA_DIR, load_settings

LOADS = travel.TravelLoads.of(load_settings())
PARAMS = LoadParameters(
    expense_ratio=float(LOADS.expense_ratio),
    uncertainty_multiplier=float(LOADS.uncertainty_multiplier),
    capital_cost_rate=float(LOADS.capital_cost_rate),
    capital_quantile=float(LOADS.capital_quantile),
    min_rate_on_line=float(LOADS.min_rate_on_line),
)


def engine_var(values: np.ndarray, a: float = 0.99) -> float:
    """VaR as the engine defines it (activities/pricing/montecarlo.py `_tails`)."""
    k = int(np.floor(values.size * (1.0 - a) + 1e-9))
    return float(np.sort(values)[::-1][k])


def expand(counts: list[int], qty: int) -> np.ndarray:
    return np.concatenate([np.full(n, min(k, qty), dtype=float) for k, n in enumerate(counts)])


@pytest.mark.parametrize("qty", [1, 2, 3])
def test_loads_agree_with_the_catalogues_formula(qty):
    rng = np.random.default_rng(qty)
    counts = [9_000, 700, 250, 50]
    replicates = [[int(x) for x in rng.multinomial(4096, np.array(counts) / 10_000)] for _ in range(32)]
    m = Decimal("2500")
    p = travel.price(counts, m, qty, LOADS, replicates)
    payouts = float(m) * expand(counts, qty)
    el = float(payouts.mean())
    sd = float(m) * float(np.std([expand(c, qty).mean() for c in replicates], ddof=1))
    engine = risk_loaded_premium(el, sd, engine_var(payouts), float(m) * qty, PARAMS)
    assert p.expected_loss == Decimal(repr(el)).quantize(Decimal("0.01"))
    assert float(p.parameter_sd) == pytest.approx(sd, abs=0.006)
    assert float(p.pml) == engine_var(payouts)
    assert float(p.risk_price) == pytest.approx(max(engine.gross_premium, float(LOADS.min_premium)), abs=0.006)
    assert float(p.uncertainty_load) == pytest.approx(engine.uncertainty_load, abs=0.006)
    assert float(p.capital_load) == pytest.approx(engine.capital_load, abs=0.006)
    assert p.technical_rate == (Decimal(el) / m / qty).quantize(Decimal("0.000001"))
    assert travel.price(counts, m, qty, LOADS, replicates) == p  # reproducible to the last digit


def test_a_small_stay_costs_the_minimum_premium_and_the_zero_rule_stays():
    """3 nights at 1,000 INR, 20 mm in Delhi in January (old engine: 1.40 INR, the expected
    payout alone): now at least the minimum premium per stay, 1 % of the sum insured."""
    counts = [130_531, 538, 3]
    p = travel.price(counts, Decimal(1000), 3, LOADS)
    assert p.expected_loss == Decimal("4.15") and p.floored
    assert p.risk_price == max(Decimal("30.00"), LOADS.min_premium) >= Decimal(25)
    # the minimum never makes a cover sellable that pays nothing in expectation (issue 24): the
    # quote refuses an expected payout that rounds to 0.00
    assert travel.price(counts, Decimal("0.01"), 3, LOADS).expected_loss == 0


def test_a_large_stay_carries_every_load():
    counts = [126_237, 4_674, 161]  # 5 mm, 2 nights
    replicates = [[4096 - 150 - i, 140 + i, 10] for i in range(32)]
    p = travel.price(counts, Decimal(100_000), 2, LOADS, replicates)
    assert not p.floored and p.pml == Decimal("100000.00")  # 3.7 % of stays pay: VaR99 is one night
    assert p.uncertainty_load > 0 and p.capital_load == (Decimal("0.06") * (p.pml - p.expected_loss)).quantize(Decimal("0.01"))
    technical = p.expected_loss + p.uncertainty_load + p.capital_load
    assert abs(p.risk_price - technical / Decimal("0.8")) <= Decimal("0.02")
    assert p.risk_price / p.expected_loss > Decimal("1.25")


def test_a_stay_without_a_band_has_no_uncertainty_load():
    """Stays priced before 2026.4 stored no replicates: no uncertainty load, the rest applies."""
    p = travel.price([700, 200, 80, 20], Decimal(1000), 3, LOADS, None)
    assert p.parameter_sd == 0 and p.uncertainty_load == 0
    assert p.risk_price == Decimal("718.50")  # (420 + 0.06 (3,000 - 420)) / 0.8


def test_the_stay_band_is_the_catalogues_bootstrap_with_shared_noise():
    """The activity's band: the 32 replicates of the target's model on the stay's seed; their
    expected nights spread by the parameters (a few to tens of percent), not by noise."""
    from activities.pricing.montecarlo import simulate_index
    from activities.pricing.uncertainty import BOOTSTRAP_REPLICATES, replicate_model

    climate = load_climate_data(DATA_DIR)
    s = pincode_site(climate, "110001")
    model = build_site_model(climate, s.query_district, s.query_state, s.latitude, s.longitude)
    first, last = date(2027, 1, 10), date(2027, 1, 12)
    draws: dict = {}
    means = []
    for b in range(BOOTSTRAP_REPLICATES):
        rep = simulate_index(replicate_model(model, b), travel.INDEX_CODE, first, last, STAY_BAND_PATHS, 7,
                             batches=STAY_BAND_BATCHES, draws=draws)
        counts = night_counts(rep, 10.0)
        assert sum(counts) == STAY_BAND_PATHS and len(counts) == 4
        means.append(sum(k * n for k, n in enumerate(counts)) / STAY_BAND_PATHS)
    rel = np.std(means, ddof=1) / np.mean(means)
    assert 0.02 < rel < 0.4, rel
