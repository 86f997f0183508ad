"""Triggers with meaning (issue 26, finding 4): a cover is offered only where its trigger and
exit are measurable and the record prices it robustly (activities/pricing/triggers.py,
docs/pricing-model.md "Triggers and exits").

The covers the issue names are offered by the old engine (pricing-2026.3.1, frozen) with
triggers of 0.1-1.6 mm or exits of 0-1 mm; each test checks the old engine does so (the
finding) and the live engine does not."""

from __future__ import annotations

import calendar
from datetime import date
from decimal import Decimal

import numpy as np
import pytest

from activities import pricing as live
from activities.pricing.frozen import engine_for
from activities.pricing.rainfall import MonthlyRainModel, normal_scores
from activities.pricing.triggers import MIN_RAIN_LEVEL_MM, MIN_RAIN_WIDTH_MM, MIN_WIDTH_SD
from models.settings import DATA_DIR

from .conftest import exponential_rain, synthetic_model, without_trend

LIMIT = Decimal("100000")
YEAR = 2027
PINS = {
    "Mumbai": "400001", "Chennai": "600001", "Guwahati": "781001", "Bengaluru": "560001",
    "Jaipur": "302001", "Kolkata": "700001", "Delhi": "110001", "Puri": "752001",
}
# finding 4: (city, index, month)
NAMED_EXCESS = [("Mumbai", m) for m in (1, 2, 3, 4)]
NAMED_DEFICIT = [
    ("Chennai", 1), ("Chennai", 3), ("Guwahati", 11), ("Guwahati", 12), ("Guwahati", 1), ("Bengaluru", 3),
    ("Jaipur", 5), ("Jaipur", 6), ("Jaipur", 9), ("Kolkata", 2), ("Kolkata", 3), ("Delhi", 5), ("Delhi", 6),
    ("Delhi", 9), ("Puri", 3),
]


def month(m: int):
    return date(YEAR, m, 1), date(YEAR, m, calendar.monthrange(YEAR, m)[1])


def _models(engine):
    climate = engine.load_climate_data(DATA_DIR)
    out = {}
    for city, pin in PINS.items():
        s = engine.pincode_site(climate, pin)
        out[city] = engine.build_site_model(climate, s.query_district, s.query_state, s.latitude, s.longitude)
    return out


@pytest.fixture(scope="module")
def models():
    return {"old": _models(engine_for("pricing-2026.3.1")), "live": _models(live)}


def _measurable(terms, sd: float) -> bool:
    low = terms.trigger if terms.resolved_direction == "ABOVE" else terms.exit
    width = abs(terms.exit - terms.trigger)
    return low >= MIN_RAIN_LEVEL_MM and width >= max(MIN_RAIN_WIDTH_MM, MIN_WIDTH_SD * sd)


@pytest.mark.parametrize("city,m", NAMED_EXCESS)
def test_mumbai_dry_season_excess_is_not_offered(models, city, m):
    """Mumbai January-April: the old engine's excess trigger is 0.1-1.6 mm (a month whose 1-in-10
    high is a trace, on which two gauges of the city do not agree); now not offered."""
    old = engine_for("pricing-2026.3.1").propose_terms(models["old"][city], "RAINFALL_MONTHLY_TOTAL", *month(m), LIMIT)
    assert old.viable and old.terms.trigger < MIN_RAIN_LEVEL_MM  # the finding, on the old engine
    new = live.propose_terms(models["live"][city], "RAINFALL_MONTHLY_TOTAL", *month(m), LIMIT)
    assert not new.viable and new.terms is None
    assert "below a rainy day (2.5 mm)" in new.reason and "too dry for an excess cover" in new.reason


@pytest.mark.parametrize("city,m", NAMED_DEFICIT)
def test_near_zero_deficit_covers_are_not_offered(models, city, m):
    """Deficit covers whose exit is 0-1 mm (dry months): the old engine offers them; now a
    deficit cover's exit must be a measurable amount, or it is not offered."""
    old = engine_for("pricing-2026.3.1").propose_terms(models["old"][city], "RAINFALL_DEFICIT", *month(m), LIMIT)
    assert old.viable and old.terms.exit <= 1.1  # the finding, on the old engine
    model = models["live"][city]
    new = live.propose_terms(model, "RAINFALL_DEFICIT", *month(m), LIMIT)
    if new.viable:  # measurable terms (the live model may see the month as wetter)
        sd = float(live.simulate_index(model, "RAINFALL_DEFICIT", *month(m), 1 << 14, 1).std())
        assert _measurable(new.terms, sd)
    else:
        assert "too often dry for a deficit cover" in new.reason


def test_offered_rain_covers_of_the_panel_are_measurable(models):
    """Every monthly rainfall cover the live engine offers at the eight cities has measurable
    terms: levels >= 2.5 mm, exit - trigger >= 2.5 mm and >= 0.1 sd of its index."""
    offered = 0
    for city, model in models["live"].items():
        for m in range(1, 13):
            for code in ("RAINFALL_MONTHLY_TOTAL", "RAINFALL_DEFICIT"):
                p = live.propose_terms(model, code, *month(m), LIMIT)
                if not p.viable:
                    assert p.reason
                    continue
                offered += 1
                sd = float(live.simulate_index(model, code, *month(m), 1 << 14, 1).std())
                assert _measurable(p.terms, sd), (city, m, code, p.terms)
    assert offered > 100  # the wet months keep their covers


def test_excess_trigger_at_a_trace_is_not_raised_to_one(site_models):
    """The old rule raised a 0 mm excess trigger to 0.1 mm (Mumbai in February); the new rule
    does not offer a cover no gauge can settle consistently, partial months included."""
    model = site_models["400001"]
    for start, end in (month(2), (date(YEAR, 2, 1), date(YEAR, 2, 14))):
        p = live.propose_terms(model, "RAINFALL_MONTHLY_TOTAL", start, end, LIMIT)
        assert not p.viable and "too dry for an excess cover" in p.reason


def _gamma_rain(mean_mm: float, shape: float, years: int = 100, seed: int = 0) -> MonthlyRainModel:
    """Monthly totals ~ Gamma(shape, mean / shape), no dry months, independent months."""
    hist = np.random.default_rng(seed).gamma(shape, mean_mm / shape, size=(years, 12))
    return MonthlyRainModel(
        subdivision="SYNTHETIC",
        normals_mm=np.full(12, mean_mm),
        p_zero=np.zeros(12),
        shape=np.full(12, shape),
        scale_rel=np.full(12, 1.0 / shape),
        sub_mean_mm=np.full(12, mean_mm),
        years=np.arange(1901, 1901 + years),
        sub_history_mm=hist,
        scores=normal_scores(hist),
    )


def test_deficit_band_narrower_than_a_tenth_of_the_spread_is_not_offered(site_models):
    """Exponential monthly totals of mean 1,000 mm: the 1-in-10 low is 105 mm and the 1-in-50
    low 20 mm (both measurable, 85 mm apart), but the band is 0.085 sd wide: a bet on how often
    the month is almost dry. Not offered; a gamma of shape 3 (band 0.31 sd) is."""
    base = without_trend(site_models["110001"])
    skewed = synthetic_model(base, rain=exponential_rain(1000.0))
    p = live.propose_terms(skewed, "RAINFALL_DEFICIT", *month(7), LIMIT)
    assert not p.viable and "year-to-year spread" in p.reason and "all or nothing" in p.reason
    regular = synthetic_model(base, rain=_gamma_rain(1000.0, 3.0))
    q = live.propose_terms(regular, "RAINFALL_DEFICIT", *month(7), LIMIT)
    assert q.viable and abs(q.terms.exit - q.terms.trigger) >= MIN_WIDTH_SD * 1000 / 3**0.5


def test_rain_band_narrower_than_a_rainy_day_is_not_offered(site_models):
    """Monthly totals of mean 10 mm and sd 1 mm (gamma shape 100): the 1-in-10 and 1-in-50
    highs are about 1 mm apart, less than a rainy day: one shower decides the payout."""
    base = without_trend(site_models["110001"])
    narrow = synthetic_model(base, rain=_gamma_rain(10.0, 100.0))
    p = live.propose_terms(narrow, "RAINFALL_MONTHLY_TOTAL", *month(7), LIMIT)
    assert not p.viable and "less than a rainy day" in p.reason and "one shower" in p.reason


def test_hotel_trigger_below_a_rainy_day_is_not_offered(site_models):
    """A hotel cover whose 1-in-10 wettest day has less than 2.5 mm of daytime rain (Mumbai,
    a February week) is not offered; a monsoon week at Mumbai is, with a trigger >= 2.5 mm."""
    model = site_models["400001"]
    dry = live.propose_terms(model, "RAINFALL_DAYTIME_HOURS", date(YEAR, 2, 10), date(YEAR, 2, 12), LIMIT)
    assert not dry.viable and "below a rainy day" in dry.reason
    wet = live.propose_terms(model, "RAINFALL_DAYTIME_HOURS", date(YEAR, 7, 10), date(YEAR, 7, 12), LIMIT)
    assert wet.viable and wet.terms.trigger >= MIN_RAIN_LEVEL_MM
