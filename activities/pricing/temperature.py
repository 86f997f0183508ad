"""Temperature model: monthly maximum temperature ~ Normal, independent across months.

``T_m ~ N(mu_m, sigma)`` in °C, the maximum of the month's hourly 2 m temperature.

* Spread (DATA, transferred): ``sigma`` is the pooled within-calendar-month standard
  deviation of monthly maxima at Beijing Aotizhongxin 2013–2017.
* Seasonal cycle (ASSUMPTION, not data), driven by latitude ``phi`` (°N) and damped by the
  monsoon using the district's rainfall normal ``N_m`` (mm)::

      mu_m = BASE_C + amp(phi) * cos(2 pi (m - PEAK_MONTH) / 12) - cooling(N_m)
      amp(phi) = max(AMP_MIN_C, AMP_PER_DEG * phi + AMP_OFFSET_C)
      cooling(N) = min(COOLING_PER_100MM * N / 100, COOLING_CAP_C)

  set by hand to reproduce the rough monthly maxima of Delhi and Chennai within a few °C.
  Elevation and distance to the coast are not modelled (a hill or coastal target is
  biased warm); replace with reanalysis monthly maxima per target when available.
* Partial months and periods as for wind: the maximum over a fraction ``f`` of a month has
  CDF ``F^f``; the maximum over months is the maximum of independent monthly maxima.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import log_ndtr, ndtri

from .climate_data import HourlyStation

BASE_C = 35.5  # ASSUMPTION
PEAK_MONTH = 6.5  # ASSUMPTION: month of the (pre-monsoon-free) seasonal peak
AMP_PER_DEG = 0.35  # ASSUMPTION, °C per degree of latitude
AMP_OFFSET_C = -0.5  # ASSUMPTION
AMP_MIN_C = 2.0  # ASSUMPTION
COOLING_PER_100MM = 1.5  # ASSUMPTION, °C per 100 mm of monthly normal rainfall
COOLING_CAP_C = 6.0  # ASSUMPTION
DEFAULT_LATITUDE = 20.0  # ASSUMPTION, used only when a target has no coordinates


@dataclass(frozen=True, eq=False)
class TemperatureModel:
    """Mean ``mu_c`` (12 values, °C) and standard deviation ``sigma_c`` of monthly maxima."""

    mu_c: np.ndarray
    sigma_c: float
    latitude: float

    def resampled(self, rng) -> "TemperatureModel":
        return self

    def quantile_from_normal(self, month: int, z: np.ndarray, fraction: float = 1.0) -> np.ndarray:
        """Monthly-max temperature (°C) at normal scores ``z`` for a fraction of the month."""
        m = month - 1
        z = np.asarray(z, dtype=np.float64)
        if fraction == 1.0:
            return self.mu_c[m] + self.sigma_c * z
        # F^f(t) = Phi(z)  <=>  t = mu + sigma Phi^-1(Phi(z)^(1/f))
        return self.mu_c[m] + self.sigma_c * ndtri(np.exp(log_ndtr(z) / fraction))


def temperature_sd_from_station(station: HourlyStation) -> float:
    """Pooled within-calendar-month SD of monthly maximum temperature (°C)."""
    key = station.year * 100 + station.month
    maxima, months = [], []
    for k in np.unique(key):
        v = station.temp_c[key == k]
        if np.isfinite(v).any():
            maxima.append(np.nanmax(v))
            months.append(k % 100)
    maxima, months = np.array(maxima), np.array(months)
    ss, dof = 0.0, 0
    for m in range(1, 13):
        x = maxima[months == m]
        if x.size >= 2:
            ss += float(((x - x.mean()) ** 2).sum())
            dof += x.size - 1
    return float(np.sqrt(ss / dof))


def seasonal_mean_c(latitude: float, normals_mm) -> np.ndarray:
    """Mean monthly maximum temperature (°C, 12 values) from the ASSUMPTION formula."""
    m = np.arange(1, 13)
    amp = max(AMP_MIN_C, AMP_PER_DEG * abs(latitude) + AMP_OFFSET_C)
    cooling = np.minimum(COOLING_PER_100MM * np.asarray(normals_mm, dtype=float) / 100.0, COOLING_CAP_C)
    return BASE_C + amp * np.cos(2 * np.pi * (m - PEAK_MONTH) / 12) - cooling


def fit_temperature_model(station: HourlyStation, latitude: float | None, normals_mm) -> TemperatureModel:
    lat = DEFAULT_LATITUDE if latitude is None else float(latitude)
    return TemperatureModel(
        mu_c=seasonal_mean_c(lat, normals_mm),
        sigma_c=temperature_sd_from_station(station),
        latitude=lat,
    )
