"""Monthly rainfall model: zero-inflated gamma margins joined by a Gaussian copula.

For a target with district normals ``N_m`` (mm, calendar month m) in IMD subdivision s:

* Margins. From the 1901–2015 series of s, per calendar month: the probability of a dry
  month ``p0_m`` (total < ``DRY_MONTH_MM``) and the gamma shape ``k_m`` of the wet months
  (maximum likelihood, Newton on ``ln k - psi(k) = ln mean - mean ln x``; Choi & Wette 1969,
  started from Thom's 1958 approximation). The district's monthly total is
  ``X_m = N_m * R_m`` with ``R_m = 0`` with probability ``p0_m`` and
  ``R_m ~ Gamma(k_m, theta_m)`` otherwise, ``theta_m = 1 / ((1 - p0_m) k_m)``, so that
  ``E[X_m] = N_m`` exactly: the level comes from the district, the shape (coefficient of
  variation, skew, dry months) from the subdivision.
* Scale (subdivision average → cell). A subdivision average varies less than the cell or
  district a cover settles on. With ``c`` the ratio of coefficients of variation of monthly
  totals (cell / area average; Jun–Sep and other months) and ``s`` the shift of
  logit P(dry month), both derived from real finer-scale data
  (``bench/calibration/rain_scale.py``: Delhi-NCR 0.25° districts, Colaba station), the
  margins become ``p0' = expit(logit(p0) + s)`` (0 stays 0) and the wet shape ``k'`` that
  gives the total the coefficient of variation ``c`` times the subdivision's:
  ``CV^2 = (1/k + p0) / (1 - p0)`` for the zero-inflated gamma, so
  ``1/k' = c^2 (1/k + p0) (1 - p0') / (1 - p0) - p0'`` (never below ``1/k``). The mean stays
  the district normal.
* Lower tail (the deficit cover's exit). The gamma's lower tail is too thin for the record:
  pooled over all subdivisions and months, 2.17 % of the years fall below the fitted 2 %
  point (z = 2.7; 2.03 % with the fitted tail). Below the wet part's 10 % point the margin is therefore a power law fitted to the
  record, ``P(x <= y | x < x10) = (y/x10)^a`` (:func:`fit_tail_exponents`); the cell keeps
  the record's ``a`` relative to the gamma's own exponent ``k``; the margin is rescaled by
  its mean (:meth:`MonthlyRainModel.tail_mean`, within a percent of 1) so the month's mean
  stays the district normal.
* Dependence. Normal scores of the subdivision series (mid-ranks per calendar month, ties
  averaged, ``z = Phi^-1((rank - 1/2) / n)``), correlations of the scores between any two
  month slots of a risk period (pairwise-complete years; slots in the next calendar year
  use the next year's value, so December–January dependence is the observed one), repaired
  to the nearest positive-definite correlation matrix by eigenvalue clipping. A path is
  ``Z = L G`` with ``L`` the Cholesky factor and ``G`` i.i.d. N(0,1), and
  ``X_m = N_m * F_m^-1(Phi(Z_m))``.
* Partial months (a slot covering a fraction ``f`` of the month's days). Rain over half a
  month is more variable than half the month's rain and more often nil. From real daily
  series (``bench/calibration/rain_partial.py``: Delhi-NCR 0.25° districts, Colaba) per
  season: the ratio ``c_f`` of the coefficient of variation of the partial total to the
  month's, and ``pi_f = P(partial dry | month wet)``. The partial total's margin is a
  zero-inflated gamma with mean ``f N_m`` exactly, ``p0_f = p0 + (1 - p0) pi_f`` and the wet
  shape ``k_f`` that gives the coefficient of variation ``c_f CV_m``:
  ``1/k_f = c_f^2 CV_m^2 (1 - p0_f) - p0_f`` (never below ``1/k``); the lower-tail exponent
  scales with the shape as for the cell. The partial total is the partial margin's quantile
  at the month's normal score (comonotone with the month: its dependence on other months is
  the month's own, a slight overstatement for the aggregate of a quote).
* History at the district level: ``x_{y,m} * N_m / mean_y(x_{.,m})``.
* Trend and the risk year (2026.4: a projection that stays in the record). Per calendar
  month, ordinary least squares of the subdivision total on the year gives slope ``b`` with
  t-statistic ``t``; the slope used is shrunk, ``b* = b max(0, 1 - 1/t^2)`` (James–Stein
  type: no trend is kept when ``|t| <= 1``), relative to the record mean ``mu``:
  ``r_m = b* / mu`` per year. The trend line ``L_m(y) = 1 + r_m (y - ybar_m)`` (``ybar_m``
  the mean year of the record) gives the level of a year of the record. For a risk year Y
  the level is the line **at most at the record's last year** (bounded horizon: no
  extrapolation beyond what the record covers), **held within one standard error of the
  recent climate**: with ``c_m`` the mean of the last ``RECENT_YEARS`` years relative to
  ``mu`` and ``s_m`` its standard error (sd / sqrt(years)),
  ``g_m(Y) = clip(L_m(min(Y, y_end)), c_m - s_m, c_m + s_m)`` (and never below
  ``LEVEL_FLOOR``). A trend the recent years agree with is kept; one they contradict is
  shrunk to the edge of what they allow (docs/pricing-model.md, "Trend and the risk year").
  The model's total for a month of year Y is ``g_m(Y) X_m``; the model-basis burn brings a
  record year y to it as ``x_y g_m(Y) / L_m(y)``. The level's standard deviation
  (:meth:`MonthlyRainModel.level_sd`: ``s_m`` where the recent climate bounds it, else the
  trend's, ``se(r_m) |min(Y, y_end) - ybar_m|``, at most ``s_m``) is the trend's driver of
  the parameter band (:mod:`.uncertainty`).

All amounts are mm.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np
from scipy.special import digamma, gammainccinv, gammaincinv, ndtr, ndtri, zeta
from scipy.stats import rankdata

from .climate_data import SubdivisionHistory
from .sampling import UniformTable

DRY_MONTH_MM = 0.05  # source resolution is 0.1 mm: a month below this is a dry month
MIN_WET_MONTHS = 8  # fewer wet months than this: shape falls back to FALLBACK_SHAPE
FALLBACK_SHAPE = 0.5  # ASSUMPTION, only used when a month has < MIN_WET_MONTHS wet years
EIGEN_FLOOR = 1e-6  # smallest eigenvalue kept when repairing a correlation matrix
Z_GRID = (-8.5, 8.5, 1 << 12)
LEVEL_FLOOR = 0.25  # a projected level never falls below a quarter of the record mean
TAIL_Q = 0.10  # below the wet part's 10 % point the lower tail is fitted to the record
MIN_TAIL_POINTS = 5
# The recent climate a projected level is held to: the record's last 30 years (the WMO
# climate-normal length; 1986-2015 for the IMD subdivision record), at least MIN_RECENT_YEARS.
RECENT_YEARS = 30
MIN_RECENT_YEARS = 20


def gamma_shape_mle(x: np.ndarray) -> float:
    """Maximum-likelihood gamma shape of positive data ``x`` (dimensionless)."""
    x = np.asarray(x, dtype=np.float64)
    s = float(np.log(x.mean()) - np.log(x).mean())
    if s <= 1e-12:
        return 1e6  # (near-)constant data: effectively deterministic
    k = (3.0 - s + np.sqrt((s - 3.0) ** 2 + 24.0 * s)) / (12.0 * s)
    for _ in range(50):
        f = np.log(k) - digamma(k) - s
        # trigamma(k) = zeta(2, k): what polygamma(1, k) computes, without its wrapper
        step = f / (1.0 / k - zeta(2.0, k))
        k_new = k - step
        if k_new <= 0:
            k_new = k / 2
        if abs(k_new - k) < 1e-12 * k:
            k = k_new
            break
        k = k_new
    return float(k)


def normal_scores(rain_mm: np.ndarray) -> np.ndarray:
    """Per-column mid-rank normal scores of a (years, 12) array; NaN stays NaN."""
    z = np.full(rain_mm.shape, np.nan)
    for m in range(rain_mm.shape[1]):
        ok = ~np.isnan(rain_mm[:, m])
        v = rain_mm[ok, m]
        z[ok, m] = ndtri((rankdata(v, method="average") - 0.5) / v.size)
    return z


def nearest_correlation(c: np.ndarray, floor: float = EIGEN_FLOOR) -> np.ndarray:
    """Positive-definite correlation matrix near ``c`` (eigenvalue clipping, unit diagonal)."""
    c = (c + c.T) / 2
    w, v = np.linalg.eigh(c)
    if w.min() >= floor:
        return c
    c2 = (v * np.maximum(w, floor)) @ v.T
    d = np.sqrt(np.diag(c2))
    c2 = c2 / np.outer(d, d)
    np.fill_diagonal(c2, 1.0)
    return c2


def zig_quantile(p0: float, shape: float, scale: float, z: np.ndarray, tail: float | None = None) -> np.ndarray:
    """Quantile of the zero-inflated gamma at normal score ``z`` (exact, in both tails); with
    ``tail`` = a, the wet part's lower ``TAIL_Q`` follows ``x_q = x_TAIL_Q (q / TAIL_Q)^(1/a)``."""
    out = _zig_quantile(p0, shape, scale, z)
    if tail is None:
        return out
    u = ndtr(z)
    q = (u - p0) / (1.0 - p0)
    low = (u > p0) & (q < TAIL_Q)
    if low.any():
        x10 = gammaincinv(shape, TAIL_Q) * scale
        out[low] = x10 * (q[low] / TAIL_Q) ** (1.0 / tail)
    return out


def zig_cdf(p0: float, shape: float, scale: float, x: np.ndarray, tail: float | None = None) -> np.ndarray:
    """P(X <= x) of the zero-inflated gamma (x > 0), with the lower tail of :func:`zig_quantile`."""
    from scipy.special import gammainc

    x = np.asarray(x, dtype=np.float64)
    u = p0 + (1.0 - p0) * gammainc(shape, x / scale)
    if tail is not None:
        x10 = gammaincinv(shape, TAIL_Q) * scale
        low = x < x10
        u[low] = p0 + (1.0 - p0) * TAIL_Q * (x[low] / x10) ** tail
    return u


def fit_tail_exponents(rain_mm: np.ndarray, p0: np.ndarray, shape: np.ndarray) -> np.ndarray:
    """Lower-tail exponent a per month: wet months below the fitted wet 10 % point are
    ``x10 (q / 0.1)^(1/a)``, i.e. ``P(x <= y | x < x10) = (y / x10)^a``; maximum likelihood
    ``a = n / sum ln(x10 / x_i)`` on the record (pooled over the subdivision's months when a
    month has fewer than ``MIN_TAIL_POINTS``)."""
    mean = np.nanmean(rain_mm, axis=0)
    n_tail, log_sum = np.zeros(12), np.zeros(12)
    for m in range(12):
        v = rain_mm[:, m]
        v = v[~np.isnan(v) & (v >= DRY_MONTH_MM)]
        if not v.size or mean[m] <= 0:
            continue
        x10 = gammaincinv(shape[m], TAIL_Q) * mean[m] / ((1.0 - p0[m]) * shape[m])
        low = v[v < x10]
        n_tail[m], log_sum[m] = low.size, float(np.log(x10 / low).sum())
    pooled = n_tail.sum() / log_sum.sum() if log_sum.sum() > 0 else 1.0
    return np.where(n_tail >= MIN_TAIL_POINTS, n_tail / np.maximum(log_sum, 1e-12), pooled)


def _zig_quantile(p0: float, shape: float, scale: float, z: np.ndarray) -> np.ndarray:
    u = ndtr(z)
    uc = ndtr(-z)
    out = np.zeros_like(z, dtype=np.float64)
    wet = u > p0
    q = (u[wet] - p0) / (1.0 - p0)
    qc = uc[wet] / (1.0 - p0)
    lower = q <= 0.5
    val = np.empty(q.size)
    val[lower] = gammaincinv(shape, q[lower])
    val[~lower] = gammainccinv(shape, qc[~lower])
    out[wet] = val * scale
    return out


@dataclass(frozen=True, eq=False)
class MonthlyRainModel:
    """Calibrated monthly model of one target (see module docstring).

    ``normals_mm``, ``sub_mean_mm``: 12 values, mm. ``p_zero``: probability of a dry month.
    ``shape``: gamma shape of wet months. ``scale_rel``: gamma scale relative to the normal
    (``X = normal * R``, ``R ~ Gamma(shape, scale_rel)``).
    """

    subdivision: str
    normals_mm: np.ndarray
    p_zero: np.ndarray
    shape: np.ndarray
    scale_rel: np.ndarray
    sub_mean_mm: np.ndarray
    years: np.ndarray
    sub_history_mm: np.ndarray  # (Y, 12), NaN = missing
    scores: np.ndarray  # (Y, 12) normal scores, NaN = missing
    trend_rel_per_year: np.ndarray | None = None  # r_m (1/year), shrunk; None: no trend
    trend_t: np.ndarray | None = None  # t-statistic of each month's OLS slope
    trend_ref_year: np.ndarray | None = None  # ybar_m, mean year of each month's record
    trend_se: np.ndarray | None = None  # standard error of the unshrunk relative slope (1/year)
    trend_ols: np.ndarray | None = None  # the unshrunk relative slope b / mu (1/year): the detrended burn view
    recent_level: np.ndarray | None = None  # c_m: mean of the last RECENT_YEARS years / record mean
    recent_level_se: np.ndarray | None = None  # s_m: its standard error
    record_end_year: np.ndarray | None = None  # last year of each month's record
    recent_first_year: np.ndarray | None = None  # first year of the recent window
    level_shift: float = 0.0  # the level moved by this many level_sd (the band's trend driver)
    scale: object | None = None  # the RainScale applied to the margins (None: subdivision level)
    area_p_zero: np.ndarray | None = None  # the subdivision's own margins, before the scale
    area_shape: np.ndarray | None = None
    tail_exponent: np.ndarray | None = None  # lower-tail exponent of the cell (None: gamma's own)
    area_tail_exponent: np.ndarray | None = None
    partial: object | None = None  # RainPartial time-scale law (None: f * month total)
    z_points: int = Z_GRID[2]  # intervals of the quantile tables (coarser in bootstrap replicates)
    _cache: dict = field(default_factory=dict, repr=False)

    # --- margins ---------------------------------------------------------------------
    def margin(self, month: int, fraction: float = 1.0) -> tuple[float, float, float, float | None]:
        """(p0, wet shape, wet scale relative to the mean, lower-tail exponent or None) of the
        total over ``fraction`` of calendar ``month`` (module docstring, partial months)."""
        m = month - 1
        tail = None if self.tail_exponent is None else float(self.tail_exponent[m])
        p0, k = float(self.p_zero[m]), float(self.shape[m])
        if fraction < 1.0 and self.partial is not None:
            key = ("partial", month, fraction)
            hit = self._cache.get(key)
            if hit is not None:
                return hit
            cv2 = (1.0 / k + p0) / (1.0 - p0) * self.partial.cv_ratio(month, fraction) ** 2
            pf = p0 + (1.0 - p0) * self.partial.p_dry_given_wet(month, fraction)
            kf = 1.0 / max(cv2 * (1.0 - pf) - pf, 1.0 / k)
            out = (pf, kf, 1.0 / ((1.0 - pf) * kf), None if tail is None else tail * kf / k)
            self._cache[key] = out
            return out
        return p0, k, float(self.scale_rel[m]), tail

    def quantile(self, month: int, z: np.ndarray, fraction: float = 1.0) -> np.ndarray:
        """Exact total (mm) at normal scores ``z`` over ``fraction`` of calendar ``month``
        (1..12): the month's total when ``fraction`` is 1."""
        p0, k, theta, tail = self.margin(month, fraction)
        mean = self.normals_mm[month - 1] * fraction
        return (mean / self.tail_mean(month, fraction)) * zig_quantile(p0, k, theta, np.asarray(z, dtype=np.float64), tail)

    def cdf(self, month: int, x_mm: np.ndarray, fraction: float = 1.0) -> np.ndarray:
        """P(total over ``fraction`` of ``month`` <= x) for x > 0 (the inverse of :meth:`quantile`)."""
        p0, k, theta, tail = self.margin(month, fraction)
        mean = self.normals_mm[month - 1] * fraction
        if mean <= 0:
            return np.ones_like(np.asarray(x_mm, dtype=np.float64))
        return zig_cdf(p0, k, theta, np.asarray(x_mm, dtype=np.float64) * self.tail_mean(month, fraction) / mean, tail)

    def tail_mean(self, month: int, fraction: float = 1.0) -> float:
        """Mean of the relative margin with the fitted lower tail (1 without it): the quantile
        is divided by it, so the period's mean stays the district normal (times ``fraction``)."""
        p0, k, theta, a = self.margin(month, fraction)
        if a is None:
            return 1.0
        from scipy.special import gammainc

        x10 = gammaincinv(k, TAIL_Q) * theta
        wet = k * theta * (1.0 - gammainc(k + 1.0, x10 / theta)) + TAIL_Q * x10 * a / (a + 1.0)
        return float((1.0 - p0) * wet)

    def table(self, month: int, fraction: float = 1.0) -> UniformTable:
        """Tabulated quantile function z → mm over ``fraction`` of calendar ``month``, cached."""
        key = ("table", month, fraction)
        t = self._cache.get(key)
        if t is None:
            lo, hi, _ = Z_GRID
            t = UniformTable.from_grid(lo, hi, self.quantile(month, np.linspace(lo, hi, self.z_points + 1), fraction))
            self._cache[key] = t
        return t

    def to_partial(self, month: int, fraction: float, values_mm: np.ndarray) -> np.ndarray:
        """Month totals (mm, the model's scale) mapped at equal probability to totals over
        ``fraction`` of the month (how the model couples them): the burn of a partial cover."""
        x = np.asarray(values_mm, dtype=np.float64)
        if fraction >= 1.0:
            return x
        if self.partial is None:
            return x * fraction
        u = np.clip(np.where(x > 0, self.cdf(month, x), 0.0), 1e-12, 1 - 1e-12)
        out = self.quantile(month, ndtri(u), fraction)
        return np.where(x > 0, out, 0.0)

    def mean_mm(self, month: int) -> float:
        return float(self.normals_mm[month - 1])

    def to_cell_scale(self, month: int, values_mm: np.ndarray) -> np.ndarray:
        """District-level record values (mm) mapped to the cell's scale at equal probability,
        ``F_cell^-1(F_area(x))`` (the burn is then on the scale the model prices)."""
        x = np.asarray(values_mm, dtype=np.float64)
        if self.scale is None or self.area_shape is None:
            return x
        m = month - 1
        n = self.normals_mm[m]
        pa, ka = self.area_p_zero[m], self.area_shape[m]
        with np.errstate(invalid="ignore", divide="ignore"):
            rel = np.where(n > 0, x / n, 0.0)
        tail = None if self.area_tail_exponent is None else float(self.area_tail_exponent[m])
        u = np.where(rel > 0, zig_cdf(pa, ka, 1.0 / ((1 - pa) * ka), rel, tail), 0.0)
        u = np.clip(u, 1e-12, 1 - 1e-12)
        out = self.quantile(month, ndtri(u))
        return np.where(rel > 0, out, 0.0)

    def level(self, month: int, year: int) -> float:
        """``g_m(year)``: the model's level of a risk year relative to the record mean: the
        trend line at most at the record's last year, within one standard error of the recent
        climate (module docstring); moved by ``level_shift`` level standard deviations in a
        band's trend variant."""
        if self.trend_rel_per_year is None:
            return 1.0
        g, _ = self._bounded_level(month, year)
        if self.level_shift:
            g += self.level_shift * self.level_sd(month, year)
        return max(LEVEL_FLOOR, g)

    def record_level(self, month: int, year: int) -> float:
        """``L_m(year)``: the trend line's level of a year of the record (the model-basis burn
        divides a record year by it)."""
        if self.trend_rel_per_year is None:
            return 1.0
        m = month - 1
        return max(LEVEL_FLOOR, 1.0 + float(self.trend_rel_per_year[m]) * (year - float(self.trend_ref_year[m])))

    def detrend_factor(self, month: int, year: int) -> float:
        """``D_m(y_end) / D_m(year)``: a record year brought to the record's last year by the
        record's own unshrunk linear trend ``D_m(y) = max(LEVEL_FLOOR, 1 + b/mu (y - ybar))``
        (the detrended burn view: it shares neither the model's shrinkage nor its horizon)."""
        if self.trend_ols is None or self.record_end_year is None:
            return 1.0
        m = month - 1
        b, ref = float(self.trend_ols[m]), float(self.trend_ref_year[m])
        end = max(LEVEL_FLOOR, 1.0 + b * (int(self.record_end_year[m]) - ref))
        return end / max(LEVEL_FLOOR, 1.0 + b * (year - ref))

    def record_levels(self, month: int, years: np.ndarray) -> np.ndarray:
        """:meth:`record_level` of each of ``years`` (float array)."""
        if self.trend_rel_per_year is None:
            return np.ones_like(years)
        m = month - 1
        return np.maximum(LEVEL_FLOOR, 1.0 + float(self.trend_rel_per_year[m]) * (years - float(self.trend_ref_year[m])))

    def detrend_factors(self, month: int, years: np.ndarray) -> np.ndarray:
        """:meth:`detrend_factor` of each of ``years`` (float array)."""
        if self.trend_ols is None or self.record_end_year is None:
            return np.ones_like(years)
        m = month - 1
        b, ref = float(self.trend_ols[m]), float(self.trend_ref_year[m])
        end = max(LEVEL_FLOOR, 1.0 + b * (int(self.record_end_year[m]) - ref))
        return end / np.maximum(LEVEL_FLOOR, 1.0 + b * (years - ref))

    def level_sd(self, month: int, year: int) -> float:
        """Standard deviation of :meth:`level` (relative to the record mean): the recent
        climate's standard error where it bounds the level, else the trend's at the horizon,
        ``se(r) |min(year, y_end) - ybar|``, never more than the recent climate's."""
        if self.trend_rel_per_year is None or self.trend_se is None:
            return 0.0
        m = month - 1
        _, bounded = self._bounded_level(month, year)
        s = float(self.recent_level_se[m]) if self.recent_level_se is not None else np.nan
        horizon = self._horizon(month, year)
        trend = float(self.trend_se[m]) * abs(horizon - float(self.trend_ref_year[m]))
        if np.isnan(s):
            return trend
        return s if bounded else min(trend, s)

    def _horizon(self, month: int, year: int) -> float:
        """The year the trend line is read at: the risk year, at most the record's last year."""
        if self.record_end_year is None:
            return float(year)
        return float(min(year, int(self.record_end_year[month - 1])))

    def _bounded_level(self, month: int, year: int) -> tuple[float, bool]:
        """(level before the floor and the band's shift, whether the recent climate bounds it)."""
        m = month - 1
        line = 1.0 + float(self.trend_rel_per_year[m]) * (self._horizon(month, year) - float(self.trend_ref_year[m]))
        if self.recent_level is None or np.isnan(self.recent_level[m]):
            return line, False
        c, s = float(self.recent_level[m]), float(self.recent_level_se[m])
        if line < c - s:
            return c - s, True
        if line > c + s:
            return c + s, True
        return line, False

    # --- dependence ------------------------------------------------------------------
    def correlation(self, slot_months: tuple[tuple[int, int], ...]) -> np.ndarray:
        """Correlation of the normal scores of month slots.

        ``slot_months``: (year offset from the first slot, calendar month 1..12) per slot.
        """
        key = ("corr", slot_months)
        c = self._cache.get(key)
        if c is not None:
            return c
        k = len(slot_months)
        y = self.scores.shape[0]
        span = max(o for o, _ in slot_months)
        cols = np.full((y - span, k), np.nan)
        for j, (o, m) in enumerate(slot_months):
            cols[:, j] = self.scores[o : y - span + o, m - 1]
        c = np.eye(k)
        for i in range(k):
            for j in range(i + 1, k):
                ok = ~np.isnan(cols[:, i]) & ~np.isnan(cols[:, j])
                if ok.sum() >= 10:
                    r = np.corrcoef(cols[ok, i], cols[ok, j])[0, 1]
                    c[i, j] = c[j, i] = r if np.isfinite(r) else 0.0
        c = nearest_correlation(c)
        self._cache[key] = c
        return c

    def cholesky(self, slot_months: tuple[tuple[int, int], ...]) -> np.ndarray:
        key = ("chol", slot_months)
        c = self._cache.get(key)
        if c is None:
            c = np.linalg.cholesky(self.correlation(slot_months))
            self._cache[key] = c
        return c

    # --- history ---------------------------------------------------------------------
    def district_history_mm(self) -> np.ndarray:
        """Subdivision history rescaled to the district level, (years, 12) mm, NaN = missing."""
        with np.errstate(invalid="ignore", divide="ignore"):
            ratio = np.where(self.sub_mean_mm > 0, self.normals_mm / self.sub_mean_mm, 0.0)
        return self.sub_history_mm * ratio


def fit_margins(rain_mm: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(P(dry month), wet-month gamma shape) per calendar month of a (years, 12) series."""
    p0 = np.zeros(12)
    shape = np.zeros(12)
    for m in range(12):
        v = rain_mm[:, m]
        v = v[~np.isnan(v)]
        wet = v[v >= DRY_MONTH_MM]
        p0[m] = 1.0 - wet.size / v.size
        shape[m] = gamma_shape_mle(wet) if wet.size >= MIN_WET_MONTHS else FALLBACK_SHAPE
    return p0, shape


MONSOON_MONTHS = (6, 7, 8, 9)


def scaled_margins(p0: np.ndarray, shape: np.ndarray, scale) -> tuple[np.ndarray, np.ndarray]:
    """The margins of a cell from those of its subdivision (module docstring); ``scale`` is a
    :class:`~.climate_data.RainScale` or None (subdivision level, unchanged)."""
    if scale is None:
        return p0, shape
    c = np.array([scale.cv_factor_monsoon if m in MONSOON_MONTHS else scale.cv_factor_other for m in range(1, 13)])
    with np.errstate(divide="ignore"):
        logit = np.log(p0) - np.log1p(-p0)
    p1 = np.where((p0 > 0) & (p0 < 1), 1.0 / (1.0 + np.exp(-(logit + scale.logit_p0_shift))), p0)
    inv_k = c * c * (1.0 / shape + p0) * (1.0 - p1) / (1.0 - p0) - p1
    inv_k = np.maximum(inv_k, 1.0 / shape)
    return p1, 1.0 / inv_k


def resampled(model: MonthlyRainModel, rows: np.ndarray, z_points: int = Z_GRID[2]) -> MonthlyRainModel:
    """The model refitted on the record's years ``rows`` (a bootstrap resample): margins and
    level (``normals * resampled mean / record mean``) move; dependence and trend are kept."""
    x = model.sub_history_mm[rows]
    p0, shape = scaled_margins(*fit_margins(x), model.scale)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(model.sub_mean_mm > 0, np.nanmean(x, axis=0) / model.sub_mean_mm, 1.0)
    return dataclasses.replace(
        model,
        normals_mm=model.normals_mm * np.nan_to_num(ratio, nan=1.0),
        p_zero=p0,
        shape=shape,
        scale_rel=1.0 / ((1.0 - p0) * shape),
        z_points=z_points,
        _cache={k: v for k, v in model._cache.items() if k[0] in ("corr", "chol")},
    )


def rescaled(model: MonthlyRainModel, scale, z_points: int = Z_GRID[2]) -> MonthlyRainModel:
    """The model with the cell-scale factors of ``scale`` (a RainScale): the margins refitted
    from the subdivision's own (:func:`scaled_margins`, the cell's lower-tail exponent as in
    :func:`fit_monthly_model`); level, dependence and trend kept; quantile tables of
    ``z_points`` intervals. A parameter band's scale variant (:mod:`.uncertainty`)."""
    keep = {k: v for k, v in model._cache.items() if k[0] in ("corr", "chol")}
    if model.area_p_zero is None or model.area_shape is None:
        return dataclasses.replace(model, z_points=z_points, _cache=keep)
    p0, shape = scaled_margins(model.area_p_zero, model.area_shape, scale)
    tail = None if model.area_tail_exponent is None else model.area_tail_exponent * shape / model.area_shape
    return dataclasses.replace(
        model,
        p_zero=p0,
        shape=shape,
        scale_rel=1.0 / ((1.0 - p0) * shape),
        scale=scale,
        tail_exponent=tail if model.tail_exponent is not None else None,
        z_points=z_points,
        _cache=keep,
    )


def fit_monthly_model(history: SubdivisionHistory, normals_mm, scale=None, partial=None) -> MonthlyRainModel:
    """Fit the monthly model of a target from its subdivision history and district normals;
    ``scale`` (a RainScale) takes the margins to the cell (None: the subdivision's own);
    ``partial`` (a RainPartial) is the time-scale law of partial months (None: ``f`` times
    the month's total)."""
    x = history.rain_mm
    area_p0, area_shape = fit_margins(x)
    p0, shape = scaled_margins(area_p0, area_shape, scale)
    area_tail = fit_tail_exponents(x, area_p0, area_shape)
    scale_rel = 1.0 / ((1.0 - p0) * shape)
    rel, t, ref = monthly_trend(history.years, x)
    se, ols = trend_uncertainty(history.years, x)
    recent, recent_se, end, first = recent_climate(history.years, x)
    return MonthlyRainModel(
        subdivision=history.name,
        normals_mm=np.asarray(normals_mm, dtype=np.float64),
        p_zero=p0,
        shape=shape,
        scale_rel=scale_rel,
        sub_mean_mm=np.nanmean(x, axis=0),
        years=history.years.copy(),
        sub_history_mm=x.copy(),
        scores=normal_scores(x),
        trend_rel_per_year=rel,
        trend_t=t,
        trend_ref_year=ref,
        trend_se=se,
        trend_ols=ols,
        recent_level=recent,
        recent_level_se=recent_se,
        record_end_year=end,
        recent_first_year=first,
        scale=scale,
        area_p_zero=area_p0,
        area_shape=area_shape,
        # the cell's lower tail keeps the record's exponent relative to the gamma's own (k)
        tail_exponent=area_tail * shape / area_shape,
        area_tail_exponent=area_tail,
        partial=partial,
    )


def monthly_trend(years: np.ndarray, rain_mm: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(r_m shrunk relative slope per year, t-statistic, mean year) per calendar month."""
    rel, tstat, ref = np.zeros(12), np.zeros(12), np.zeros(12)
    for m in range(12):
        ok = ~np.isnan(rain_mm[:, m])
        y, v = years[ok].astype(np.float64), rain_mm[ok, m]
        ref[m] = y.mean() if y.size else 0.0
        if y.size < 10 or v.mean() <= 0:
            continue
        yc = y - y.mean()
        b = float((yc * (v - v.mean())).sum() / (yc**2).sum())
        resid = v - v.mean() - b * yc
        se = float(np.sqrt((resid**2).sum() / (y.size - 2) / (yc**2).sum()))
        t = b / se if se > 0 else 0.0
        tstat[m] = t
        shrink = max(0.0, 1.0 - 1.0 / (t * t)) if t else 0.0
        rel[m] = b * shrink / float(v.mean())
    return rel, tstat, ref


def trend_uncertainty(years: np.ndarray, rain_mm: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(standard error of the relative OLS slope, the unshrunk relative slope ``b / mu``) per
    calendar month, 1/year (0 where :func:`monthly_trend` fits none)."""
    se, ols = np.zeros(12), np.zeros(12)
    for m in range(12):
        ok = ~np.isnan(rain_mm[:, m])
        y, v = years[ok].astype(np.float64), rain_mm[ok, m]
        if y.size < 10 or v.mean() <= 0:
            continue
        yc = y - y.mean()
        b = float((yc * (v - v.mean())).sum() / (yc**2).sum())
        resid = v - v.mean() - b * yc
        se[m] = float(np.sqrt((resid**2).sum() / (y.size - 2) / (yc**2).sum())) / float(v.mean())
        ols[m] = b / float(v.mean())
    return se, ols


def recent_climate(years: np.ndarray, rain_mm: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per calendar month: the mean of the record's last ``RECENT_YEARS`` years relative to the
    whole record's mean, its standard error (sd / sqrt(years), relative), the record's last
    year and the window's first year. NaN (level and error) where the window has fewer than
    ``MIN_RECENT_YEARS`` values or the record's mean is 0."""
    level, se = np.full(12, np.nan), np.full(12, np.nan)
    end, first = np.zeros(12, dtype=np.int64), np.zeros(12, dtype=np.int64)
    for m in range(12):
        ok = ~np.isnan(rain_mm[:, m])
        y, v = years[ok], rain_mm[ok, m]
        if not y.size:
            continue
        end[m] = int(y.max())
        first[m] = end[m] - RECENT_YEARS + 1
        recent = v[y >= first[m]]
        mu = float(v.mean())
        if recent.size < MIN_RECENT_YEARS or mu <= 0:
            continue
        level[m] = float(recent.mean()) / mu
        se[m] = float(recent.std(ddof=1)) / np.sqrt(recent.size) / mu
    return level, se, end, first
