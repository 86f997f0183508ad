"""Heat model: the monthly maximum of daily maximum temperature at the target's IMD 1° cell.

Calibrated on IMD's 1° gridded daily maximum temperature 1951–2024 (Srivastava, Rajeevan &
Kshirsagar 2009); the record itself may not be shipped ("derived only"), so
``bench/calibration/heat_cells.py`` derives per cell and calendar month (m)::

    M_{y,m} = level_m + slope_m (y - 2024) + e,   e ~ Normal(0, sd_m)

(°C; the OLS slope shrunk by ``max(0, 1 - 1/t^2)``), written to
``models/data/calibration/heat_cells.csv``. The fit holds in the tails: pooled over all
cells and months the standardised residuals exceed the normal 90 % and 98 % points 9.95 %
and 1.80 % of the time, skewness 0.06 (the script prints these). For a risk year Y the
model is ``Normal(level_m + slope_m (Y - 2024), sd_m)``: a projection, the same trend the
record shows.

* Target → cell: the nearest cell centre (:func:`models.domain.tmax_cells.nearest_cell`,
  the one function the settlement's IMD provider also calls). A target more than
  ``MAX_CELL_DISTANCE_KM`` from it (islands, the far coast) is **not offered** a heat cover:
  the cell does not describe it. The cover settles on the same cell's value of the same
  product (data set ``IMD-TMAX-1DEG``, docs/observations.md), so model and index measure the
  same thing; a hill town inside a cell (Shimla) is paid on the cell's temperature, not the
  town's, and its fact sheet says so (basis risk, docs/pricing-model.md).
* Partial months: ``P(max over a fraction f <= x) = F(x)^(f^theta)`` with theta from
  ``heat_partial.json`` (0.92: daily maxima are autocorrelated, so half a month is more than
  "half as likely" to reach a monthly level); periods of several months take the maximum
  of independent monthly maxima.
* Parameter uncertainty (for the band, :mod:`.uncertainty`): level ~ Normal(level,
  sd/sqrt(n)), sd scaled by sqrt(chi2_{n-2}/(n-2)), independently per month.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
from scipy.special import log_ndtr, ndtri

from models.domain.tmax_cells import nearest_cell

from .climate_data import HeatCells

REF_YEAR = 2024
MAX_CELL_DISTANCE_KM = 80.0


@dataclass(frozen=True, eq=False)
class TemperatureModel:
    """Per calendar month (12 values): ``level_c`` at REF_YEAR, ``slope_c`` per year,
    ``sd_c``, ``n_years``; ``partial_exponent`` theta; the cell and its distance (km)."""

    level_c: np.ndarray
    slope_c: np.ndarray
    sd_c: np.ndarray
    n_years: np.ndarray
    partial_exponent: float = 1.0
    cell_id: str = ""
    distance_km: float | None = None

    @classmethod
    def normal(cls, mu: float, sigma: float) -> "TemperatureModel":
        """A fixed Normal(mu, sigma) in every month, no trend (tests and examples)."""
        return cls(np.full(12, mu), np.zeros(12), np.full(12, sigma), np.full(12, 100), 1.0, "SYNTHETIC", 0.0)

    def mean_c(self, month: int, year: int) -> float:
        m = month - 1
        return float(self.level_c[m] + self.slope_c[m] * (year - REF_YEAR))

    def offered(self, month: int) -> bool:
        return not self.reason(month)

    def reason(self, month: int) -> str:
        if self.distance_km is None:
            return "the target has no coordinates: no temperature cell describes it"
        if self.distance_km > MAX_CELL_DISTANCE_KM:
            return (
                f"the nearest IMD 1° temperature cell ({self.cell_id}) is {self.distance_km:.0f} km away "
                f"(more than {MAX_CELL_DISTANCE_KM:g} km): it does not describe this target"
            )
        return ""

    def quantile_from_normal(
        self, month: int, z: np.ndarray, fraction: float = 1.0, year: int = REF_YEAR
    ) -> np.ndarray:
        """Period-maximum temperature (°C) at normal scores ``z`` over a fraction of the month."""
        m = month - 1
        z = np.asarray(z, dtype=np.float64)
        mu, sd = self.mean_c(month, year), float(self.sd_c[m])
        if fraction == 1.0:
            return mu + sd * z
        # F^(f^theta)(t) = Phi(z)  <=>  t = mu + sd Phi^-1(Phi(z)^(1 / f^theta))
        return mu + sd * ndtri(np.exp(log_ndtr(z) / fraction**self.partial_exponent))

    def resampled(self, rng: np.random.Generator) -> "TemperatureModel":
        """A parametric bootstrap replicate (module docstring)."""
        n = np.maximum(self.n_years, 3).astype(np.float64)
        level = self.level_c + rng.standard_normal(12) * self.sd_c / np.sqrt(n)
        sd = self.sd_c * np.sqrt(rng.chisquare(n - 2) / (n - 2))
        return dataclasses.replace(self, level_c=level, sd_c=sd)


def fit_temperature_model(cells: HeatCells, lat: float | None, lon: float | None) -> TemperatureModel:
    """The heat model of the cell nearest to (lat, lon) (module docstring)."""
    if lat is None or lon is None:
        return dataclasses.replace(TemperatureModel.normal(0.0, 1.0), cell_id="", distance_km=None)
    c, distance = nearest_cell(lat, lon, cells.lat, cells.lon)
    return TemperatureModel(
        level_c=cells.level_c[c].copy(),
        slope_c=cells.slope_c[c].copy(),
        sd_c=cells.sd_c[c].copy(),
        n_years=cells.n_years[c].copy(),
        partial_exponent=cells.partial_exponent,
        cell_id=cells.cell_id[c],
        distance_km=distance,
    )
