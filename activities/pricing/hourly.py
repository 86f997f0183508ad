"""Hourly rain model behind the hotel cover (rain between set hours of a day).

Calibrated on the only clean-licence hourly series available, Beijing Aotizhongxin
2013–2017 (``HourlyStation``); the *structure* of hourly rain is transferred from it, the
*amount* comes from the target's monthly model:

* wet-hour count vs monthly total: ``E[wet hours] = a * T^b`` fitted by least squares on
  log(wet hours) ~ log(monthly total) over the station's months (both > 0); the wet-hour
  probability of a month with total T is ``pi(T) = min(a T^b / hours, PI_MAX)``.
* diurnal cycle: relative wet-hour frequency by local hour ``d(h)`` (mean 1), smoothed by
  its first ``DIURNAL_HARMONICS`` Fourier harmonics.
* persistence: lag-1 autocorrelation ``r`` of the wet/dry indicator. Occurrence is a
  two-state Markov chain with ``P(wet_t | wet_{t-1}=w) = pi d(h_t) (1 - r) + r w``, whose
  stationary wet probability is ``pi`` when ``d = 1``. Beijing's ``r`` (pairs of consecutive
  hours within the same month, 0.670) spreads a month's rain over too many short showers for
  India: a day rarely collects the rain a hotel cover triggers on (Delhi in January, driven by
  the record's own monthly totals, 4-5x too few days with 10-20 mm of daytime rain). So ``r``
  is fitted per season (Jun-Sep, other months) to Indian daily records by
  ``bench/calibration/hourly_daily.py`` (``models/data/calibration/hourly_daily.json``:
  ``HourlyDailyCalibration``): the hourly model driven by each observed month's total must
  reproduce how often a day reaches 2.5-40 mm. Beijing's ``r`` is kept for reference.
* intensity: wet-hour amounts divided by their month's mean wet-hour amount (the
  empirical distribution of relative intensities), resampled i.i.d. (the resampling index of
  a wet hour comes from the uniform that made it wet, rescaled: common random numbers across
  models that differ only in their monthly totals, such as the bootstrap replicates).
* consistency with the monthly total: each simulated month's hourly amounts are rescaled
  to sum exactly to the path's monthly total; a wet month that drew no wet hour gets its
  whole total in one uniformly chosen hour.

ASSUMPTIONS (not data): that Beijing's diurnal cycle, wet-hour law and relative-intensity
distribution hold at Indian targets; that the persistence fitted on Delhi-NCR's 0.25° daily
grid holds everywhere in its season; ``PI_MAX``. Amounts in mm, hours local time.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .climate_data import HourlyDailyCalibration, HourlyStation

PI_MAX = 0.6  # ASSUMPTION: at most 60 % of a month's hours are wet
DIURNAL_HARMONICS = 2
P_CAP = 0.95  # cap of the hourly wet probability after diurnal modulation
HOURLY_CHUNK = 4096  # paths per hourly block (memory: 4096 x 744 x 4 bytes per array)
# Above this share of wet hours a block's amounts are computed on whole arrays rather than
# on the wet hours alone (HourlyRainModel._sparse_windows): the cheaper way, same numbers.
DENSE_WET_SHARE = 0.4


@dataclass(frozen=True, eq=False)
class HourlyRainModel:
    """Fitted hourly structure (see module docstring). ``diurnal``: 24 factors, mean 1."""

    station: str
    wet_hours_a: float  # wet hours per month = a * total_mm ** b
    wet_hours_b: float
    diurnal: np.ndarray
    persistence: float  # lag-1 autocorrelation of the wet indicator (Beijing's, for reference)
    rel_intensity: np.ndarray  # sorted relative wet-hour amounts (mean 1)
    wet_hour_fraction: float  # observed share of wet hours (for reference)
    # the persistence of each calendar month (Jan..Dec) fitted to Indian daily records; None:
    # ``persistence`` in every month (the model before 2026.4, and the calibration script's)
    persistence_by_month: tuple[float, ...] | None = None

    def persistence_of(self, month: int | None) -> float:
        """The lag-1 wet-hour persistence used for calendar ``month`` (1..12)."""
        if self.persistence_by_month is None or month is None:
            return self.persistence
        return self.persistence_by_month[month - 1]

    def wet_probability(self, total_mm: np.ndarray, hours: int) -> np.ndarray:
        """Wet-hour probability of months with the given totals (mm) and length (hours)."""
        t = np.maximum(np.asarray(total_mm, dtype=np.float64), 1e-9)
        return np.minimum(self.wet_hours_a * t**self.wet_hours_b / hours, PI_MAX)

    def simulate_hours(
        self, totals_mm: np.ndarray, days: int, rng: np.random.Generator, month: int | None = None
    ) -> np.ndarray:
        """Hourly rain (mm) of one month for each path: array (days * 24, n), float32.

        ``totals_mm``: the paths' monthly totals (n,); every column sums to its total.
        ``month``: the calendar month (1..12), which sets the persistence.
        """
        totals = np.asarray(totals_mm, dtype=np.float64)
        n = totals.size
        hours = days * 24
        pi = self.wet_probability(totals, hours).astype(np.float32)
        persistence = self.persistence_of(month)
        r = np.float32(persistence)
        base = pi * np.float32(1.0 - persistence)
        d = self.diurnal.astype(np.float32)
        u = rng.random((hours, n), dtype=np.float32)
        wet = np.empty((hours, n), dtype=bool)
        thr = np.minimum(pi * d[0], P_CAP)
        prev = np.less(u[0], thr, out=wet[0])
        with np.errstate(divide="ignore", invalid="ignore"):
            # A wet hour's u / threshold is uniform on [0, 1) and independent of the chain:
            # it picks the hour's intensity, so no further draw is needed and models that
            # differ only in their monthly totals (bootstrap replicates) share their noise.
            np.divide(u[0], thr, out=u[0])
            for t in range(1, hours):
                np.multiply(base, d[t % 24], out=thr)
                thr += r * prev
                np.minimum(thr, P_CAP, out=thr)
                prev = np.less(u[t], thr, out=wet[t])
                np.divide(u[t], thr, out=u[t])
        amounts = np.zeros((hours, n), dtype=np.float32)
        size = self.rel_intensity.size
        pick = np.minimum((u[wet] * size).astype(np.int64), size - 1)
        amounts[wet] = self.rel_intensity[pick]
        sums = amounts.sum(axis=0, dtype=np.float64)
        dry = (sums <= 0) & (totals > 0)
        if dry.any():
            cols = np.flatnonzero(dry)
            amounts[rng.integers(0, hours, cols.size), cols] = 1.0
            sums[cols] = 1.0
        with np.errstate(invalid="ignore", divide="ignore"):
            scale = np.where(sums > 0, totals / sums, 0.0).astype(np.float32)
        amounts *= scale
        return amounts

    def simulate_daily_windows(
        self,
        totals_mm: np.ndarray,
        days: int,
        windows: tuple[tuple[int, int], ...],
        rng: np.random.Generator,
        month: int | None = None,
        uniforms: dict | None = None,
    ) -> list[np.ndarray]:
        """Per-day rain (mm) between local hours ``[h0, h1)`` for each window: (n, days) each.

        The hours are simulated once (blocks of ``HOURLY_CHUNK`` paths, in path order, so
        the result is reproducible) and summed per window: the same numbers, bit for bit, as
        summing ``simulate_hours``' array, computed on the wet hours alone
        (``_sparse_windows``, several times faster).

        ``uniforms``: a cache of the hours' uniform draws by generator state, shared by
        calls that draw from identically seeded generators (the bootstrap replicates of a
        stay's band, common random numbers): the draws are made once, and the generator is
        left where drawing them would have left it. The numbers are the same without it.
        """
        totals = np.asarray(totals_mm, dtype=np.float64)
        outs = [np.empty((totals.size, days)) for _ in windows]
        for s in range(0, totals.size, HOURLY_CHUNK):
            e = min(s + HOURLY_CHUNK, totals.size)
            if self.persistence_of(month) < 0:  # no model has one; the sparse chain assumes r >= 0
                hrs = self.simulate_hours(totals[s:e], days, rng, month).reshape(days, 24, e - s)
                for out, (h0, h1) in zip(outs, windows):
                    out[s:e] = hrs[:, h0:h1, :].sum(axis=1, dtype=np.float64).T
                continue
            u = _uniforms(rng, (days * 24, e - s), uniforms)
            for out, w in zip(outs, self._sparse_windows(totals[s:e], days, windows, u, rng, month)):
                out[s:e] = w
        return outs

    def _sparse_windows(
        self,
        totals: np.ndarray,
        days: int,
        windows: tuple[tuple[int, int], ...],
        u: np.ndarray,
        rng: np.random.Generator,
        month: int | None,
    ) -> list[np.ndarray]:
        """``simulate_hours`` summed per window, (n, days) each, from its uniforms ``u``
        (hours, n) (read only), computed on the wet hours alone.

        The same draws and the same float32/float64 operations as ``simulate_hours``, so
        the same bits; what changes is the order of the work. With ``r >= 0`` an hour's wet
        threshold is one of two per path and hour of day: ``lo`` after a dry hour, ``hi``
        after a wet one (``lo <= hi``). So ``u < lo`` ("starts a wet spell") and ``u < hi``
        ("continues one") are whole-array comparisons, and the chain is the recurrence
        ``wet[t] = starts[t] | (wet[t-1] & continues[t])`` on bytes viewed as 64-bit words
        (8 paths an operation) instead of five float operations an hour. Each wet hour's
        intensity uniform ``u / threshold`` and amount are then computed on the wet hours
        alone, and the sums (the month's, each day's window) accumulate in hour order in
        float64, as numpy's sums over the hour axis do, by ``np.bincount``."""
        n = totals.size
        hours = days * 24
        pi = self.wet_probability(totals, hours).astype(np.float32)
        persistence = self.persistence_of(month)
        r = np.float32(persistence)
        base = pi * np.float32(1.0 - persistence)
        d = self.diurnal.astype(np.float32)
        thr0 = np.minimum(pi * d[0], P_CAP)
        lo = np.minimum(d[:, None] * base, P_CAP)  # (24, n): the loop's base * d[h] + r * 0
        hi = np.minimum(d[:, None] * base + r, P_CAP)  # base * d[h] + r * 1
        width = -(-n // 8) * 8  # 8 paths a 64-bit word; padding paths stay dry
        starts = np.zeros((days, 24, width), dtype=bool)
        continues = np.zeros((days, 24, width), dtype=bool)
        u3 = u.reshape(days, 24, n)
        np.less(u3, lo, out=starts[:, :, :n])
        np.less(u3, hi, out=continues[:, :, :n])
        starts = starts.reshape(hours, width)
        starts[0, :n] = u[0] < thr0  # the first hour has no previous one
        w64 = starts.view(np.uint64)
        c64 = continues.reshape(hours, width).view(np.uint64)
        carry = np.empty(w64.shape[1], dtype=np.uint64)
        for t in range(1, hours):
            np.bitwise_and(w64[t - 1], c64[t], out=carry)
            np.bitwise_or(w64[t], carry, out=w64[t])
        if np.count_nonzero(starts) > DENSE_WET_SHARE * hours * width:
            return self._dense_windows(starts[:, :n], lo, hi, thr0, totals, days, windows, u, rng)
        wet = starts.ravel()  # the chain, in place: (hours, width) flat
        at = np.flatnonzero(wet)  # hour-major, as u[wet]
        t_wet, col = np.divmod(at, width)
        hod = t_wet % 24
        cell = hod * n + col
        thr = np.where(wet[np.maximum(at - width, 0)], hi.ravel()[cell], lo.ravel()[cell])
        first = t_wet == 0
        thr[first] = thr0[col[first]]
        size = self.rel_intensity.size
        with np.errstate(divide="ignore", invalid="ignore"):
            pick = np.minimum((u.ravel()[t_wet * n + col] / thr * size).astype(np.int64), size - 1)
        amount = self.rel_intensity[pick]  # float32
        sums = np.bincount(col, weights=amount, minlength=n)
        dry = (sums <= 0) & (totals > 0)
        dry_cols = np.flatnonzero(dry)
        dry_hours = rng.integers(0, hours, dry_cols.size) if dry_cols.size else dry_cols
        sums[dry_cols] = 1.0  # a wet month that drew no wet hour: all of it in one hour
        with np.errstate(invalid="ignore", divide="ignore"):
            scale = np.where(sums > 0, totals / sums, 0.0).astype(np.float32)
        amount *= scale[col]
        dry_amount = np.float32(1.0) * scale[dry_cols]
        day = t_wet // 24
        dry_day, dry_hod = np.divmod(dry_hours, 24)
        outs = []
        for h0, h1 in windows:
            inside = (hod >= h0) & (hod < h1)
            summed = np.bincount(day[inside] * n + col[inside], weights=amount[inside], minlength=days * n)
            summed = summed.astype(np.float64, copy=False)  # (int zeros when no hour is wet)
            hit = (dry_hod >= h0) & (dry_hod < h1)
            # those paths have no other hour: 0 + amount, as the sum over the hours gives
            summed[dry_day[hit] * n + dry_cols[hit]] += dry_amount[hit]
            outs.append(summed.reshape(days, n).T)
        return outs

    def _dense_windows(
        self,
        wet: np.ndarray,
        lo: np.ndarray,
        hi: np.ndarray,
        thr0: np.ndarray,
        totals: np.ndarray,
        days: int,
        windows: tuple[tuple[int, int], ...],
        u: np.ndarray,
        rng: np.random.Generator,
    ) -> list[np.ndarray]:
        """``_sparse_windows``' second half on whole arrays, as ``simulate_hours`` does it
        (cheaper when many hours are wet): ``wet`` (hours, n) is the chain."""
        hours, n = wet.shape
        after_wet = np.zeros((days, 24, n), dtype=bool)
        after_wet.reshape(hours, n)[1:] = wet[:-1]
        thr = np.where(after_wet, hi, lo).reshape(hours, n)
        thr[0] = thr0
        size = self.rel_intensity.size
        with np.errstate(divide="ignore", invalid="ignore"):
            pick = np.minimum((u[wet] / thr[wet] * size).astype(np.int64), size - 1)
        amounts = np.zeros((hours, n), dtype=np.float32)
        amounts[wet] = self.rel_intensity[pick]
        sums = amounts.sum(axis=0, dtype=np.float64)
        dry = (sums <= 0) & (totals > 0)
        if dry.any():
            cols = np.flatnonzero(dry)
            amounts[rng.integers(0, hours, cols.size), cols] = 1.0
            sums[cols] = 1.0
        with np.errstate(invalid="ignore", divide="ignore"):
            scale = np.where(sums > 0, totals / sums, 0.0).astype(np.float32)
        amounts *= scale
        hrs = amounts.reshape(days, 24, n)
        return [hrs[:, h0:h1, :].sum(axis=1, dtype=np.float64).T for h0, h1 in windows]


def _uniforms(rng: np.random.Generator, shape: tuple[int, int], cache: dict | None) -> np.ndarray:
    """``rng.random(shape, float32)``, from ``cache`` when a generator in the same state drew
    them before (then ``rng`` is moved to where the draw leaves it)."""
    if cache is None:
        return rng.random(shape, dtype=np.float32)
    state = rng.bit_generator.state
    key = ("hourly uniforms", repr(state), shape)
    hit = cache.get(key)
    if hit is None:
        u = rng.random(shape, dtype=np.float32)
        u.flags.writeable = False
        cache[key] = hit = (u, rng.bit_generator.state)
    else:
        rng.bit_generator.state = hit[1]
    return hit[0]


def _diurnal(station: HourlyStation, wet: np.ndarray, ok: np.ndarray) -> np.ndarray:
    freq = np.array([wet[(station.hour == h) & ok].mean() for h in range(24)])
    freq = freq / freq.mean()
    ang = 2 * np.pi * np.arange(24) / 24
    out = np.ones(24)
    for k in range(1, DIURNAL_HARMONICS + 1):
        out += 2 * np.mean((freq - 1) * np.cos(k * ang)) * np.cos(k * ang)
        out += 2 * np.mean((freq - 1) * np.sin(k * ang)) * np.sin(k * ang)
    out = np.maximum(out, 0.05)
    return out / out.mean()


def fit_hourly_model(station: HourlyStation, daily: HourlyDailyCalibration | None = None) -> HourlyRainModel:
    """Fit the hourly structure from an hourly station series (see module docstring); with
    ``daily``, the persistence of each season from Indian daily records."""
    rain = station.rain_mm
    ok = ~np.isnan(rain)
    wet = ok & (rain > 0)
    month_key = station.year * 100 + station.month
    totals, counts, rel = [], [], []
    for key in np.unique(month_key):
        sel = (month_key == key) & ok
        w = sel & wet
        totals.append(rain[sel].sum())
        counts.append(w.sum())
        if w.any():
            rel.append(rain[w] / rain[w].mean())
    totals, counts = np.array(totals), np.array(counts)
    use = (totals > 0) & (counts > 0)
    b, log_a = np.polyfit(np.log(totals[use]), np.log(counts[use]), 1)
    same_month = month_key[1:] == month_key[:-1]
    pair_ok = ok[1:] & ok[:-1] & same_month
    a_, b_ = wet[:-1][pair_ok].astype(float), wet[1:][pair_ok].astype(float)
    r = float(np.corrcoef(a_, b_)[0, 1])
    rel_all = np.sort(np.concatenate(rel)).astype(np.float32)
    return HourlyRainModel(
        station=station.name,
        wet_hours_a=float(np.exp(log_a)),
        wet_hours_b=float(b),
        diurnal=_diurnal(station, wet, ok),
        persistence=r,
        rel_intensity=rel_all,
        wet_hour_fraction=float(wet.sum() / ok.sum()),
        persistence_by_month=None if daily is None else daily.persistence_by_month(),
    )
