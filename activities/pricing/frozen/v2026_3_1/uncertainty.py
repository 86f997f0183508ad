"""Parameter uncertainty of the expected loss: a bootstrap over the calibration years.

The Monte Carlo standard error says how well the simulation knows the model's expected loss
(a fraction of a percent); it says nothing about how well ~100 years of rainfall, ~40 of
cyclone tracks or ~70 of temperature know the model. This module measures the second.

Replicate b (b = 0..B-1) redraws the calibration record with replacement, year by year, from
a generator seeded by ``(BOOTSTRAP_SEED, b)`` only, so replicate b is the same resample for
every cover of a target and per-replicate expected losses add up across the covers of a
quote:

* rainfall: the subdivision years are resampled; each month's dry probability, gamma shape
  and level (district normal x resampled mean / record mean) are refitted (dependence and
  trend are kept: their uncertainty is second order for a one-month cover);
* cyclone wind: the record's years are resampled with their events; rates and the excess
  scale are refitted;
* temperature: a parametric bootstrap from the fitted parameters' sampling distributions
  (the gridded record itself may not be shipped), :meth:`TemperatureModel.resampled`.

Each replicate is priced on ``BOOTSTRAP_PATHS`` paths with the run's seed (common random
numbers: the replicates differ by their parameters, not by their noise). The band is the
5th–95th percentile of the replicate expected losses; ``sd`` their standard deviation
(the ``sigma_param`` of the load, :mod:`.loading`). Money in the cover's currency.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from .montecarlo import simulate_payouts
from .rainfall import resampled as resampled_rain
from .site import SiteModel
from .terms import CoverTerms
from .wind import wind_model_of

BOOTSTRAP_SEED = 20261124
BOOTSTRAP_REPLICATES = 32
BOOTSTRAP_PATHS = 1 << 13
BAND = (0.05, 0.95)
# Intervals of a replicate's rainfall quantile tables (the priced model's have 4096): a
# replicate's table is built once per month and used by 8192 paths only. Measured on a
# 16-cover, 12-month Goa catalogue (bench/catalogue_pricing.py): the replicate expected
# losses move by at most 0.15 % of themselves and the band's sd by 0.05 %, against a
# bootstrap sd of 16-41 %; the table building time falls by 8x.
REPLICATE_Z_POINTS = 1 << 9


@dataclass(frozen=True, slots=True)
class ParameterBand:
    """The spread of a cover's expected loss over bootstrap replicates (money)."""

    replicates: tuple[float, ...]
    sd: float
    low: float  # 5th percentile
    high: float  # 95th percentile
    relative_sd: float  # sd / mean of the replicates (0 when the mean is 0)
    method: str


def replicate_model(model: SiteModel, b: int) -> SiteModel:
    """Bootstrap replicate ``b`` of a target's models (module docstring)."""
    rng = np.random.default_rng([BOOTSTRAP_SEED, b])
    rain = model.rain
    rows = rng.integers(0, rain.years.size, rain.years.size)
    wind = model.wind
    if wind.located and wind.events:
        years = rng.integers(wind.first_year, wind.last_year + 1, wind.years)
        by_year: dict[int, list] = {}
        for e in wind.events:
            by_year.setdefault(e.year, []).append(e)
        events = tuple(e for y in years for e in by_year.get(int(y), ()))
        wind = wind_model_of(events, wind.first_year, wind.last_year)
    return dataclasses.replace(
        model,
        rain=resampled_rain(rain, rows, REPLICATE_Z_POINTS),
        wind=wind,
        temperature=model.temperature.resampled(rng),
    )


def parameter_bands(
    model: SiteModel,
    covers: list[CoverTerms],
    seed: int,
    replicates: int = BOOTSTRAP_REPLICATES,
    paths: int = BOOTSTRAP_PATHS,
) -> list[ParameterBand]:
    """The parameter band of each cover's expected loss (module docstring)."""
    els = np.zeros((replicates, len(covers)))
    draws: dict = {}  # common random numbers: every replicate reads the same draws
    for b in range(replicates):
        sample = simulate_payouts(replicate_model(model, b), covers, paths, seed, draws=draws)
        els[b] = [float(v.sum()) / sample.n for v in sample.vals]
    method = (
        f"bootstrap over the calibration years, {replicates} replicates x {paths} paths "
        f"(seed {BOOTSTRAP_SEED}); band = {BAND[0]:.0%}-{BAND[1]:.0%} percentiles"
    )
    out = []
    for i in range(len(covers)):
        x = els[:, i]
        mean = float(x.mean())
        sd = float(x.std(ddof=1))
        out.append(
            ParameterBand(
                replicates=tuple(float(v) for v in x),
                sd=sd,
                low=float(np.quantile(x, BAND[0])),
                high=float(np.quantile(x, BAND[1])),
                relative_sd=sd / mean if mean > 0 else 0.0,
                method=method,
            )
        )
    return out
