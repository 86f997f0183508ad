"""Shared fixtures: the calibration data (loaded once) and the four reference targets."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from activities.pricing import build_site_model, load_climate_data, pincode_site
from activities.pricing.rainfall import MonthlyRainModel, normal_scores
from activities.pricing.temperature import TemperatureModel
from activities.pricing.wind import WindModel
from models.settings import DATA_DIR

# pin code → (IMD subdivision, normals district) expected for the reference targets
REFERENCE_PINS = {
    "560001": ("SOUTH INTERIOR KARNATAKA", "BANGALORE URB"),
    "400001": ("KONKAN & GOA", "MUMBAI CITY"),
    "110001": ("HARYANA DELHI & CHANDIGARH", "NEW DELHI"),
    "600001": ("TAMIL NADU", "CHENNAI"),
}


@pytest.fixture(scope="session")
def climate():
    return load_climate_data(DATA_DIR)


@pytest.fixture(scope="session")
def site_models(climate):
    out = {}
    for pin in REFERENCE_PINS:
        s = pincode_site(climate, pin)
        out[pin] = build_site_model(climate, s.query_district, s.query_state, s.latitude, s.longitude)
    return out


@pytest.fixture(scope="session")
def chennai(site_models):
    return site_models["600001"]


def synthetic_model(base, *, rain=None, temperature=None, wind=None):
    """A copy of ``base`` with some index models replaced by ones of known distribution."""
    return dataclasses.replace(
        base,
        rain=rain if rain is not None else base.rain,
        temperature=temperature if temperature is not None else base.temperature,
        wind=wind if wind is not None else base.wind,
    )


def exponential_rain(mean_mm: float, years: int = 100, seed: int = 0) -> MonthlyRainModel:
    """Monthly totals ~ Exponential(mean) in every month, independent months."""
    hist = np.random.default_rng(seed).exponential(mean_mm, size=(years, 12))
    return MonthlyRainModel(
        subdivision="SYNTHETIC",
        normals_mm=np.full(12, mean_mm),
        p_zero=np.zeros(12),
        shape=np.ones(12),
        scale_rel=np.ones(12),
        sub_mean_mm=np.full(12, mean_mm),
        years=np.arange(1901, 1901 + years),
        sub_history_mm=hist,
        scores=normal_scores(hist),
    )


def normal_temperature(mu: float, sigma: float) -> TemperatureModel:
    return TemperatureModel.normal(mu, sigma)


def cyclone_wind(rate: float, sigma: float) -> WindModel:
    """Gale events at ``rate`` per year in every month, excess over gale ~ Exponential(sigma)."""
    return WindModel(rate=np.full(12, rate), excess_scale_kmh=sigma, events=(), first_year=1982, last_year=2023)


def without_trend(model):
    """``model`` with its rainfall trend and fitted lower tail switched off: a plain
    zero-inflated gamma per month (engine tests against closed forms)."""
    rain = dataclasses.replace(model.rain, trend_rel_per_year=None, tail_exponent=None, _cache={})
    return dataclasses.replace(model, rain=rain)
