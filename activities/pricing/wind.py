"""Wind model: monthly maximum sustained wind speed ~ Gumbel, independent across months.

``W_m ~ Gumbel(mu_m, beta_m)``, km/h, with ``F(w) = exp(-exp(-(w - mu_m) / beta_m))``.

* Spread (DATA, transferred): the coefficient of variation of a month's maximum hourly-mean
  wind, pooled over calendar months at Beijing Aotizhongxin 2013–2017 (``cv``), gives
  ``beta_m = cv * mean_m * sqrt(6) / pi`` (Gumbel moments).
* Level (ASSUMPTION, not data): ``MEAN_MONTHLY_MAX_KMH``, a flat all-India climatology of
  the mean monthly maximum sustained 10 m wind. No Indian wind data set is wired yet; replace
  it with reanalysis (e.g. ERA5) monthly maxima per target when available.
* Partial months and periods: the maximum over a fraction ``f`` of a month has CDF ``F^f``
  (maxima of a stationary series over sub-periods), i.e. ``mu + beta ln f``; the maximum over
  several months is the maximum of the independent monthly maxima.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import log_ndtr

from .climate_data import HourlyStation

# ASSUMPTION: mean monthly maximum sustained wind (km/h), January first.
MEAN_MONTHLY_MAX_KMH = (22.0, 24.0, 26.0, 28.0, 32.0, 34.0, 32.0, 30.0, 27.0, 25.0, 24.0, 22.0)
EULER_GAMMA = 0.5772156649015329


@dataclass(frozen=True, eq=False)
class WindModel:
    """Gumbel location ``mu_kmh`` and scale ``beta_kmh`` per calendar month (12 values each)."""

    mu_kmh: np.ndarray
    beta_kmh: np.ndarray
    cv: float  # pooled coefficient of variation of monthly maxima (Beijing)

    def quantile_from_normal(self, month: int, z: np.ndarray, fraction: float = 1.0) -> np.ndarray:
        """Monthly-max wind (km/h) at normal scores ``z`` for a fraction of the month."""
        m = month - 1
        z = np.asarray(z, dtype=np.float64)
        # -ln F = -ln Phi(z);  w = mu + beta ln f - beta ln(-ln Phi(z))
        return self.mu_kmh[m] + self.beta_kmh[m] * (np.log(fraction) - np.log(-log_ndtr(z)))

    def cdf(self, month: int, w: np.ndarray, fraction: float = 1.0) -> np.ndarray:
        m = month - 1
        return np.exp(-fraction * np.exp(-(np.asarray(w) - self.mu_kmh[m]) / self.beta_kmh[m]))


def wind_cv_from_station(station: HourlyStation) -> float:
    """Pooled within-calendar-month CV of monthly maxima of hourly-mean wind (dimensionless)."""
    key = station.year * 100 + station.month
    maxima, months = [], []
    for k in np.unique(key):
        v = station.wind_ms[key == k]
        if np.isfinite(v).any():
            maxima.append(np.nanmax(v))
            months.append(k % 100)
    maxima, months = np.array(maxima), np.array(months)
    dev, dof = [], 0
    for m in range(1, 13):
        x = maxima[months == m]
        if x.size >= 2:
            dev.append(x / x.mean() - 1.0)
            dof += x.size - 1
    d = np.concatenate(dev)
    return float(np.sqrt((d**2).sum() / dof))


def fit_wind_model(station: HourlyStation) -> WindModel:
    """Wind model: assumed levels, Beijing-derived spread."""
    cv = wind_cv_from_station(station)
    mean = np.array(MEAN_MONTHLY_MAX_KMH)
    beta = cv * mean * np.sqrt(6.0) / np.pi
    mu = mean - EULER_GAMMA * beta
    return WindModel(mu_kmh=mu, beta_kmh=beta, cv=cv)
