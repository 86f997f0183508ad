"""Parameter uncertainty of the expected loss: every driver the price rests on, one band.

The Monte Carlo standard error says how well the simulation knows the model's expected loss
(a fraction of a percent); it says nothing about how well the model knows the world. Four
drivers do, each evaluated as the EL of a variant of the model on ``BOOTSTRAP_PATHS`` paths
with the run's seed (common random numbers: the variants differ by their parameters, not by
their noise), and each giving the EL at its 5 % and 95 % points:

* **sampling** (``sampling``): a bootstrap over the calibration years. Replicate b
  (b = 0..B-1) redraws the record with replacement from a generator seeded by
  ``(BOOTSTRAP_SEED, b)`` only, so replicate b is the same resample for every cover of a
  target and per-replicate expected losses add up across the covers of a quote. Rainfall:
  subdivision years resampled, each month's dry probability, gamma shape and level refitted;
  cyclone wind: the record's years with their events, rates and excess scale refitted;
  temperature: a parametric bootstrap from the fitted parameters' sampling distributions
  (:meth:`TemperatureModel.resampled`). Its points: the 5th and 95th percentiles of the
  replicates.
* **cell scale** (``scale``, rainfall): the subdivision-to-cell factor at the ends of its
  90 % band (``rain_scale.json``: 1.21-1.80 in June-September, 1.03-1.21 otherwise), the
  margins refitted with each end.
* **trend** (``trend``, rainfall): the level of the risk year moved by -/+1.645 of its
  standard deviation (:meth:`MonthlyRainModel.level_sd`: the recent climate's standard
  error where it bounds the level, else the trend's at the horizon).
* **settlement-data mapping** (``mapping``): the index a cover settles on is the priced index
  plus a bias of standard deviation ``mapping_sd`` (index units) of the index model
  (:func:`mapping_sd`: 0 unless the model carries one); the EL with the trigger and exit
  moved by -/+1.645 of it.

The band. With ``EL_0`` the EL of the model itself on the same paths, each driver's
downward and upward deviations ``d-_i = max(0, EL_0 - low_i)``, ``d+_i = max(0, high_i -
EL_0)`` (sampling: from its replicates' mean) are taken as independent and added in
quadrature: ``low = max(0, EL_0 - sqrt(sum d-_i^2))``, ``high = EL_0 + sqrt(sum d+_i^2)``;
``sd = sqrt(sd_sampling^2 + sum_i ((high_i - low_i) / 3.29)^2)`` (a driver's 90 % range is
3.29 standard deviations) is the ``sigma_param`` of the load (:mod:`.loading`) and of the burn
check (:mod:`.burn`). Each driver's points, sd and share of the variance are reported
(``drivers``). Money in the cover's currency.
"""

from __future__ import annotations

import dataclasses
import math
import threading
from dataclasses import dataclass

import numpy as np

from models.domain.index_catalog import BY_CODE

from .montecarlo import simulate_payouts
from .rainfall import rescaled as rescaled_rain
from .rainfall import resampled as resampled_rain
from .site import SiteModel
from .terms import CoverTerms
from .threads import in_threads
from .wind import wind_model_of

BOOTSTRAP_SEED = 20261124
BOOTSTRAP_REPLICATES = 32
BOOTSTRAP_PATHS = 1 << 13
BAND = (0.05, 0.95)
Z_BAND = 1.6448536269514722  # the normal's 95 % point: a driver's 5-95 % points are -/+ this many sd
# Intervals of a replicate's rainfall quantile tables (the priced model's have 4096): a
# replicate's table is built once per month and used by 8192 paths only. Measured on a
# 16-cover, 12-month Goa catalogue (bench/catalogue_pricing.py): the replicate expected
# losses move by at most 0.15 % of themselves and the band's sd by 0.05 %, against a
# bootstrap sd of 16-41 %; the table building time falls by 8x.
REPLICATE_Z_POINTS = 1 << 9


@dataclass(frozen=True, slots=True)
class BandDriver:
    """One driver of the band: the EL at its 5 % and 95 % points (money), its sd and its
    share of the band's variance; ``note`` says how it was evaluated."""

    name: str  # sampling | scale | trend | mapping
    low: float
    high: float
    sd: float
    share: float  # of the band's variance (the shares add up to 1 when any is not 0)
    note: str


@dataclass(frozen=True, slots=True)
class ParameterBand:
    """The spread of a cover's expected loss over every driver (money; module docstring)."""

    replicates: tuple[float, ...]  # the sampling driver's bootstrap ELs
    sd: float  # of all drivers together: sigma_param
    low: float  # the band's 5 % point
    high: float  # its 95 % point
    relative_sd: float  # sd / central (0 when it is 0)
    method: str
    central: float = 0.0  # EL_0: the model's EL on the band's paths
    drivers: tuple[BandDriver, ...] = ()
    sampling_sd: float = 0.0  # the sampling driver's alone (the model-basis burn check's, :mod:`.burn`)


# Replicates kept per process: (id(model), b) -> (model, replicate), oldest dropped first. A
# target's site model is kept per process too (activities/site_models.py), so its next
# pricing (the package after the catalogue's covers, the next stay) finds its replicates
# with the quantile tables they built (a third of a 12-month catalogue's band).
_replicates: dict[tuple[int, int], tuple[SiteModel, SiteModel]] = {}
_replicates_lock = threading.Lock()
KEPT_REPLICATES = 8 * BOOTSTRAP_REPLICATES


def replicate_model(model: SiteModel, b: int) -> SiteModel:
    """Bootstrap replicate ``b`` of a target's models (module docstring): built once per
    process and model (a pure function of both; its quantile tables are built as it is used)."""
    with _replicates_lock:
        kept = _replicates.get((id(model), b))
        if kept is not None and kept[0] is model:
            return kept[1]
        replicate = _replicate_model(model, b)
        while len(_replicates) >= KEPT_REPLICATES:
            _replicates.pop(next(iter(_replicates)))
        _replicates[(id(model), b)] = (model, replicate)
        return replicate


def _replicate_model(model: SiteModel, b: int) -> SiteModel:
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


def mapping_sd(model: SiteModel, index_code: str) -> float:
    """The settlement-data mapping's standard deviation (index units) of the model that
    prices ``index_code``: the index model's ``mapping_sd`` (the bias between the data set a
    cover is priced on and the one it settles on, from a calibration on their overlap), 0
    when it has none (priced on the data it settles on)."""
    kind = BY_CODE[index_code].risk_type_id
    source = {"TEMPERATURE": model.temperature, "WIND": model.wind, "RAINFALL": model.rain}.get(kind)
    return float(getattr(source, "mapping_sd", 0.0) or 0.0)


def _scale_variant(model: SiteModel, end: int) -> SiteModel | None:
    """The model with the cell-scale factors at one end (0: low, 1: high) of their 90 % band;
    None without a scale."""
    scale = model.rain.scale
    if scale is None:
        return None
    varied = dataclasses.replace(
        scale, cv_factor_monsoon=scale.band_monsoon[end], cv_factor_other=scale.band_other[end]
    )
    return dataclasses.replace(model, rain=rescaled_rain(model.rain, varied, REPLICATE_Z_POINTS))


def _trend_variant(central: SiteModel, sign: float) -> SiteModel:
    """The band's central model with the risk year's level moved by ``sign`` x 1.645 level sd;
    it shares the central model's quantile tables (the level scales their output)."""
    rain = dataclasses.replace(central.rain, level_shift=sign * Z_BAND, _cache=central.rain._cache)
    return dataclasses.replace(central, rain=rain)


def _shifted(cover: CoverTerms, delta: float) -> CoverTerms:
    """The cover on an index ``delta`` higher: trigger and exit moved down by ``delta``."""
    return dataclasses.replace(
        cover, trigger=cover.trigger - delta, exit=None if cover.exit is None else cover.exit - delta
    )


def parameter_bands(
    model: SiteModel,
    covers: list[CoverTerms],
    seed: int,
    replicates: int = BOOTSTRAP_REPLICATES,
    paths: int = BOOTSTRAP_PATHS,
) -> list[ParameterBand]:
    """The parameter band of each cover's expected loss, driver by driver (module docstring)."""
    draws: dict = {}  # common random numbers: every variant reads the same draws

    def els(variant: SiteModel, priced: list[CoverTerms] = covers):
        def run() -> np.ndarray:
            sample = simulate_payouts(variant, priced, paths, seed, draws=draws)
            return np.array([float(v.sum()) / sample.n for v in sample.vals])

        return run

    # The variants first (here: building them reads the target's model's caches), then their
    # simulations on the pricing's threads (.threads), the same numbers as one after another.
    jobs = [els(replicate_model(model, b)) for b in range(replicates)]
    centre = dataclasses.replace(model, rain=rescaled_rain(model.rain, model.rain.scale, REPLICATE_Z_POINTS))
    jobs.append(els(centre))
    rain = np.array([BY_CODE[c.index_code].risk_type_id == "RAINFALL" and not c.is_daily_count for c in covers])
    ends: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    variants: dict[str, tuple[int, int]] = {}  # driver -> its ends' places in jobs
    scaled = [_scale_variant(model, end) for end in (0, 1)]
    if rain.any() and scaled[0] is not None:
        variants["scale"] = (len(jobs), len(jobs) + 1)
        jobs += [els(scaled[0]), els(scaled[1])]
    if rain.any() and model.rain.trend_rel_per_year is not None:
        variants["trend"] = (len(jobs), len(jobs) + 1)
        jobs += [els(_trend_variant(centre, -1.0)), els(_trend_variant(centre, 1.0))]
    deltas = np.array([Z_BAND * mapping_sd(model, c.index_code) for c in covers])
    if deltas.any():
        variants["mapping"] = (len(jobs), len(jobs) + 1)
        jobs += [els(model, [_shifted(c, -d) for c, d in zip(covers, deltas)]),
                 els(model, [_shifted(c, d) for c, d in zip(covers, deltas)])]
    done = in_threads(jobs)
    boot = np.array(done[:replicates])
    central = done[replicates]
    for name, (lo, hi) in variants.items():
        if name == "mapping":
            ends[name] = (done[lo], done[hi])
        else:
            ends[name] = (np.where(rain, done[lo], central), np.where(rain, done[hi], central))
    method = (
        f"sampling: bootstrap over the calibration years, {replicates} replicates x {paths} paths "
        f"(seed {BOOTSTRAP_SEED}), {BAND[0]:.0%}-{BAND[1]:.0%} percentiles; cell scale, trend and "
        "settlement-data mapping at their 5 % and 95 % points on the same paths; drivers added in quadrature"
    )
    return [_band(i, boot[:, i], float(central[i]), {k: (v[0][i], v[1][i]) for k, v in ends.items()},
                  float(deltas[i]), method)
            for i in range(len(covers))]


_NOTES = {
    "scale": "cell-scale factor at the ends of its 90 % band (rain_scale.json)",
    "trend": "risk-year level -/+ 1.645 sd (recent climate's or trend's standard error)",
    "mapping": "trigger and exit -/+ 1.645 mapping_sd (settlement data set against the priced one)",
}


def _band(i: int, boot: np.ndarray, central: float, ends: dict, delta: float, method: str) -> ParameterBand:
    """One cover's band from its drivers' points (module docstring)."""
    boot_mean = float(boot.mean())
    boot_sd = float(boot.std(ddof=1))
    points = {"sampling": (float(np.quantile(boot, BAND[0])), float(np.quantile(boot, BAND[1])))}
    centres = {"sampling": boot_mean}
    sds = {"sampling": boot_sd}
    for name, (a, b) in ends.items():
        lo, hi = float(min(a, b)), float(max(a, b))
        points[name] = (lo, hi)
        centres[name] = central
        sds[name] = (hi - lo) / (2 * Z_BAND)
    down = math.sqrt(sum(max(0.0, centres[k] - lo) ** 2 for k, (lo, _) in points.items()))
    up = math.sqrt(sum(max(0.0, hi - centres[k]) ** 2 for k, (_, hi) in points.items()))
    variance = sum(v * v for v in sds.values())
    sd = math.sqrt(variance)
    drivers = [
        BandDriver(
            name=k,
            low=points[k][0],
            high=points[k][1],
            sd=sds[k],
            share=sds[k] ** 2 / variance if variance > 0 else 0.0,
            note="bootstrap over the calibration years" if k == "sampling" else _NOTES[k]
            + (f" ({delta / Z_BAND:g} index units)" if k == "mapping" else ""),
        )
        for k in points
    ]
    return ParameterBand(
        replicates=tuple(float(v) for v in boot),
        sd=sd,
        low=max(0.0, central - down),
        high=central + up,
        relative_sd=sd / central if central > 0 else 0.0,
        method=method,
        central=central,
        drivers=tuple(drivers),
        sampling_sd=boot_sd,
    )
