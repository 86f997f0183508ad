"""Wind model: cyclone winds at the target from the IBTrACS North Indian Ocean tracks.

The only damaging winds the data can price in India are tropical cyclones: no long Indian
series of daily maximum wind could be found (``/work/shared/data/README.md``), the station
climatology holds only mean days per month above 62 km/h (squalls included, no
intensities), and a flat table of "typical" monthly maxima is a guess. So the wind cover is
a **cyclone cover**: it is offered only in the calendar months in which storms have reached
the target at gale force often enough to estimate a rate, and nowhere else.

Wind at the target from one storm: the cyclone wind field of
:mod:`models.domain.cyclone_wind` (a modified Rankine vortex: ``V`` within
``RADIUS_MAX_WIND_KM`` = 30 km, ``V (30 / d) ** 0.6`` beyond, nothing beyond
``INFLUENCE_KM`` = 500 km; fixes interpolated to every hour). The cover settles on that
same field computed from the track of the storm that comes (data set ``IBTRACS-WIND``,
docs/observations.md), so the record priced here and the index paid on are one product.

Per calendar month m, from the years of the record (1982–2022 in the file: Y = 41):

* an *event* is a storm whose peak wind at the target reaches ``GALE_KMH`` (IMD gale, 34 kt);
  the month is that of the peak; ``n_m`` events in month m;
* rate ``lambda_m = n_m / Y`` events per year; events arrive as a Poisson process, so over a
  fraction ``f`` of the month the rate is ``f lambda_m``;
* peak wind of an event: ``GALE_KMH + E``, ``E ~ Exponential(sigma)``, ``sigma`` the mean
  excess of all the target's events (every month pooled);
* the period maximum ``W`` then has ``P(W < GALE) = exp(-f lambda_m)`` and, for w >= gale,
  ``P(W <= w) = exp(-f lambda_m exp(-(w - GALE) / sigma))``. Below gale force the wind is
  not modelled: those paths read 0 km/h (no wind cover triggers below gale force).
* The month is **offered** only when ``n_m >= MIN_EVENTS`` (the rate's relative standard
  error is then at most 1/sqrt(3) = 58 %); otherwise the cover is not offered.

All speeds are km/h of the agency's maximum sustained wind (IMD: 3-minute mean).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import log_ndtr

from models.domain.cyclone_wind import (  # noqa: F401 - the field's constants, named here too
    DECAY_EXPONENT,
    INFLUENCE_KM,
    RADIUS_MAX_WIND_KM,
    hourly_track,
    near,
    wind_along,
    wind_at_distance,
)

from .climate_data import CycloneTracks

GALE_KMH = 62.0  # IMD gale force (34 kt): the lowest wind the cover may trigger at
STORM_FORCE_KMH = 118.0  # 64 kt: IMD's very severe cyclonic storm, the default exit
MIN_EVENTS = 3  # gale events in a calendar month needed to offer a wind cover in it


@dataclass(frozen=True, slots=True)
class WindEvent:
    """A storm's passage at the target: its peak wind there (km/h) and when (UTC date)."""

    year: int
    month: int
    day: int
    peak_kmh: float


@dataclass(frozen=True, eq=False)
class WindModel:
    """Cyclone wind at one target (module docstring). ``rate``: events per year per
    calendar month (12 values); ``excess_scale_kmh``: sigma; ``events``: the record."""

    rate: np.ndarray
    excess_scale_kmh: float
    events: tuple[WindEvent, ...]
    first_year: int
    last_year: int
    located: bool = True  # False: the target has no coordinates, nothing can be said

    @property
    def years(self) -> int:
        return self.last_year - self.first_year + 1

    def event_count(self, month: int) -> int:
        return sum(1 for e in self.events if e.month == month)

    def offered(self, month: int) -> bool:
        return self.located and self.event_count(month) >= MIN_EVENTS

    def reason(self, month: int) -> str:
        """Why a wind cover is not offered in ``month`` (empty when it is)."""
        if not self.located:
            return "the target has no coordinates: cyclone winds at it cannot be estimated"
        n = self.event_count(month)
        if n >= MIN_EVENTS:
            return ""
        return (
            f"only {n} storm(s) brought gale-force wind (>= {GALE_KMH:g} km/h) here in this calendar "
            f"month in {self.first_year}-{self.last_year} (IBTrACS); at least {MIN_EVENTS} are needed "
            "to price a wind cover, and non-cyclone winds have no Indian series to price from"
        )

    def quantile_from_normal(self, month: int, z: np.ndarray, fraction: float = 1.0) -> np.ndarray:
        """Period-maximum wind (km/h) at normal scores ``z`` over a fraction of the month;
        0 where it stays below gale force (not modelled)."""
        lam = self.rate[month - 1] * fraction
        neg_log_u = -log_ndtr(np.asarray(z, dtype=np.float64))  # -ln Phi(z) > 0
        out = np.zeros_like(neg_log_u)
        if lam <= 0:
            return out
        hit = neg_log_u < lam
        out[hit] = GALE_KMH + self.excess_scale_kmh * np.log(lam / neg_log_u[hit])
        return out

    def cdf(self, month: int, w, fraction: float = 1.0) -> np.ndarray:
        """P(period maximum <= w), w >= gale force (km/h)."""
        lam = self.rate[month - 1] * fraction
        w = np.asarray(w, dtype=np.float64)
        return np.exp(-lam * np.exp(-(w - GALE_KMH) / self.excess_scale_kmh))

    def yearly_peaks(self, month: int, first_day: int = 1, last_day: int = 31) -> dict[int, float]:
        """The record: per year, the highest event peak (km/h) in the days of ``month``; 0
        in years without an event."""
        out = {y: 0.0 for y in range(self.first_year, self.last_year + 1)}
        for e in self.events:
            if e.month == month and first_day <= e.day <= last_day:
                out[e.year] = max(out[e.year], e.peak_kmh)
        return out


def wind_at_target(distance_km: np.ndarray, vmax_kmh: np.ndarray) -> np.ndarray:
    """Wind (km/h) at ``distance_km`` from a storm centre of maximum wind ``vmax_kmh`` (the
    shared field, :func:`models.domain.cyclone_wind.wind_at_distance`)."""
    return wind_at_distance(distance_km, vmax_kmh)


def _hourly(tracks: CycloneTracks, storm: int):
    sel = tracks.storm == storm
    return hourly_track(tracks.hours[sel], tracks.lat[sel], tracks.lon[sel], tracks.wind_kmh[sel])


_HOURLY_TRACKS: dict[int, list] = {}


def _hourly_tracks(tracks: CycloneTracks) -> list:
    key = id(tracks)
    got = _HOURLY_TRACKS.get(key)
    if got is None:
        got = _HOURLY_TRACKS[key] = [_hourly(tracks, s) for s in np.unique(tracks.storm)]
    return got


def target_events(tracks: CycloneTracks, lat: float, lon: float) -> tuple[WindEvent, ...]:
    """Every storm's passage at gale force or more at (lat, lon), in time order."""
    events = []
    for track in _hourly_tracks(tracks):
        if not near(track, lat):
            continue
        w = wind_along(track, lat, lon)
        i = int(np.argmax(w))
        if w[i] >= GALE_KMH:
            when = np.datetime64(int(track[0][i]), "h").astype("datetime64[D]").item()
            events.append(WindEvent(when.year, when.month, when.day, float(w[i])))
    return tuple(sorted(events, key=lambda e: (e.year, e.month, e.day)))


def fit_wind_model(tracks: CycloneTracks, lat: float | None, lon: float | None) -> WindModel:
    """The cyclone wind model of a target (module docstring)."""
    if lat is None or lon is None:
        return WindModel(np.zeros(12), 1.0, (), tracks.first_year, tracks.last_year, located=False)
    return wind_model_of(target_events(tracks, lat, lon), tracks.first_year, tracks.last_year)


def wind_model_of(events: tuple[WindEvent, ...], first_year: int, last_year: int) -> WindModel:
    """Rates and excess scale from a record of events (also used on bootstrap resamples)."""
    years = last_year - first_year + 1
    counts = np.zeros(12)
    for e in events:
        counts[e.month - 1] += 1
    excess = np.array([e.peak_kmh - GALE_KMH for e in events])
    sigma = float(excess.mean()) if excess.size else 1.0
    return WindModel(counts / years, max(sigma, 1.0), events, first_year, last_year)
