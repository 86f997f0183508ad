"""A target's calibrated index models and its real historical index values."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import date

import numpy as np

from models.domain.index_catalog import BY_CODE

from .climate_data import ClimateData
from .geography import ClimateSite, climate_site, gazetteer, normalise_name
from .hourly import HourlyRainModel, fit_hourly_model
from .periods import month_slots
from .rainfall import MonthlyRainModel, fit_monthly_model
from .temperature import TemperatureModel, fit_temperature_model
from .version import MODEL_VERSION
from .wind import WindModel, fit_wind_model

RAIN_SUM_CODES = ("RAINFALL_MONTHLY_TOTAL", "RAINFALL_DEFICIT")


@dataclass(frozen=True, eq=False)
class SiteModel:
    """Everything needed to simulate any catalogue index at one target."""

    site: ClimateSite
    rain: MonthlyRainModel
    hourly: HourlyRainModel
    wind: WindModel
    temperature: TemperatureModel
    data_hash: str
    model_version: str = MODEL_VERSION


_HOURLY: dict[str, HourlyRainModel] = {}
_SITES: dict[tuple, SiteModel] = {}  # per-process memo of built site models (FIFO, bounded)
_SITES_MAX = 512
_SITES_LOCK = threading.Lock()


def build_site_model(
    climate: ClimateData,
    district: str | None,
    state: str | None,
    lat: float | None = None,
    lon: float | None = None,
) -> SiteModel:
    """Resolve the place (:func:`climate_site`) and calibrate every index model for it.

    ``lat``/``lon``: decimal degrees, optional (nearest-district fallback, temperature cycle).
    Built models are memoised per process (same arguments and data hash → same object).
    """
    key = (climate.data_hash, district, state, lat, lon)
    cached = _SITES.get(key)
    if cached is not None:
        return cached
    site = climate_site(climate, district, state, lat, lon)
    rain = fit_monthly_model(
        climate.subdivisions[site.subdivision], site.normals_mm, climate.rain_scale, climate.rain_partial
    )
    hourly = _HOURLY.get(climate.data_hash)
    if hourly is None:
        hourly = _HOURLY[climate.data_hash] = fit_hourly_model(climate.hourly, climate.hourly_daily)
    latitude, longitude = lat, lon
    if (latitude is None or longitude is None) and site.normals_district is not None:
        c = gazetteer(climate).centroids.get((site.normals_state, normalise_name(site.normals_district)))
        latitude, longitude = (c[0], c[1]) if c else (None, None)
    model = SiteModel(
        site=site,
        rain=rain,
        hourly=hourly,
        wind=fit_wind_model(climate.cyclones, latitude, longitude),
        temperature=fit_temperature_model(climate.heat, latitude, longitude),
        data_hash=climate.data_hash,
    )
    with _SITES_LOCK:
        if len(_SITES) >= _SITES_MAX:
            _SITES.pop(next(iter(_SITES)))
        return _SITES.setdefault(key, model)


def _cell_history(model: SiteModel) -> np.ndarray:
    """The district record mapped to the cell's scale, (years, 12) mm, NaN where the record
    is missing, once per model (every rainfall cover's burn check reads it; read-only)."""
    cache = model.rain._cache
    hist = cache.get(("cell-history",))
    if hist is None:
        record = model.rain.district_history_mm()
        hist = np.column_stack([model.rain.to_cell_scale(m + 1, record[:, m]) for m in range(12)])
        hist[np.isnan(record)] = np.nan
        hist.flags.writeable = False
        cache[("cell-history",)] = hist
    return hist


BASES = ("model", "record", "detrended")


def historical_index(
    model: SiteModel, index_code: str, risk_start: date, risk_end: date, projected: bool = False, basis: str = "model"
) -> dict[int, float]:
    """Real index values of the risk period per historical year, where data exists.

    Wind: the cyclone record at the target (IBTrACS 1982–2023, :mod:`.wind`), the period's
    highest gale-force peak per year, 0 in years without one.

    Rainfall SUM indices: the subdivision's 1901–2015 monthly series rescaled to the district
    level (mm), partial months scaled by their day fraction (``projected``: mapped to the
    partial period at equal probability, :meth:`MonthlyRainModel.to_partial`); the key is the year in which the
    period starts (a Dec–Jan period of 1950 uses Dec 1950 and Jan 1951); years with a
    missing month are left out. ``projected``: each month's value brought from its year's trend
    level to the model's level of the risk period's own year, ``x g_m(Y) / L_m(y)``
    (:mod:`.rainfall`): the model-basis burn. ``basis`` (with ``projected``) names another
    view of the record on the cell's scale: ``record``, no trend at all; ``detrended``, the
    record's own (unshrunk) linear trend removed to its last year,
    ``x D_m(y_end) / D_m(y)`` (:meth:`MonthlyRainModel.detrend_factor`). Wind has no trend:
    every basis is the record.

    Temperature (its gridded record may not be shipped: the burn check is in
    docs/heat-calibration.md) and the hourly index have no series here: an empty dict.
    """
    if basis not in BASES:
        raise ValueError(f"basis must be one of {BASES}")
    spec = BY_CODE[index_code]
    slots = month_slots(risk_start, risk_end)
    if spec.risk_type_id == "WIND":
        return _wind_history(model, slots)
    if index_code not in RAIN_SUM_CODES or spec.aggregation != "SUM":
        return {}
    rain = model.rain
    years = rain.years
    hist = _cell_history(model) if projected else rain.district_history_mm()
    span = slots[-1].year - slots[0].year
    n = years.size - span
    total = np.zeros(n)
    for s in slots:
        offset = s.year - slots[0].year
        v = hist[offset : offset + n, s.month - 1]
        if not projected:
            total += s.fraction * v
            continue
        # the partial period at equal probability (as the model couples it), then the view's level
        wet = np.where(np.isnan(v), 0.0, v)
        v = np.where(np.isnan(v), np.nan, rain.to_partial(s.month, s.fraction, wet))
        year = years[offset : offset + n].astype(np.float64)  # the calendar year of the slot's value
        if basis == "model":
            total += v * rain.level(s.month, s.year) / rain.record_levels(s.month, year)
        elif basis == "detrended":
            total += v * rain.detrend_factors(s.month, year)
        else:
            total += v
    return {int(y): float(t) for y, t in zip(years[:n], total) if not np.isnan(t)}


def _wind_history(model: SiteModel, slots) -> dict[int, float]:
    """Per start year, the highest cyclone wind (km/h) at the target over the period's days."""
    wind = model.wind
    if not wind.located:
        return {}
    span = slots[-1].year - slots[0].year
    out: dict[int, float] = {}
    for year in range(wind.first_year, wind.last_year + 1 - span):
        peak = 0.0
        for s in slots:
            peaks = wind.yearly_peaks(s.month, s.first_day, s.last_day)
            peak = max(peak, peaks[year + s.year - slots[0].year])
        out[year] = peak
    return out
