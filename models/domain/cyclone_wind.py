"""The cyclone wind field: the wind a storm brings to a place, from the storm's track.

One definition for the price and the settlement. The wind cover is priced on the winds this
field gives at the target from IBTrACS best tracks (activities/pricing/wind.py) and it
settles on the same field computed from the agency's track of the storm that came (data set
`IBTRACS-WIND`, activities/providers/ibtracs.py): what is priced is what is paid on.

The field (ASSUMPTION, a modified Rankine vortex; Holland 1980, Hsu & Yana 1998 give decay
exponents of 0.5–0.7): a fix of maximum sustained wind ``V`` (km/h) at distance ``d`` (km,
great circle) from the target gives ``V`` within ``RADIUS_MAX_WIND_KM``,
``V (RADIUS_MAX_WIND_KM / d) ** DECAY_EXPONENT`` beyond, and nothing beyond
``INFLUENCE_KM``. A track's fixes (3- or 6-hourly) are interpolated linearly to every hour
(position and wind), so the closest approach is not missed; decay over land is in the
agency's fixes themselves. Times are hours since 1970-01-01 00:00 UTC; a day is a UTC day.
Speeds are the agency's maximum sustained wind (IMD: 3-minute mean), km/h.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

import numpy as np

from models.domain.geodesy import great_circle_km

RADIUS_MAX_WIND_KM = 30.0  # ASSUMPTION: typical North Indian Ocean radius of maximum wind
DECAY_EXPONENT = 0.6  # ASSUMPTION: modified Rankine decay beyond the radius of maximum wind
INFLUENCE_KM = 500.0  # no wind from a storm farther than this
KM_PER_DEGREE_LAT = 111.0  # a storm whose track stays this many km per degree away is skipped unmeasured
EPOCH = dt.date(1970, 1, 1)

Track = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]  # (hours, lat, lon, wind km/h) of one storm


def wind_at_distance(distance_km, vmax_kmh):
    """Wind (km/h) at ``distance_km`` from a storm centre of maximum wind ``vmax_kmh``."""
    d = np.maximum(np.asarray(distance_km, dtype=np.float64), RADIUS_MAX_WIND_KM)
    v = vmax_kmh * (RADIUS_MAX_WIND_KM / d) ** DECAY_EXPONENT
    return np.where(np.asarray(distance_km) <= INFLUENCE_KM, v, 0.0)


def hourly_track(hours: np.ndarray, lat: np.ndarray, lon: np.ndarray, wind_kmh: np.ndarray) -> Track:
    """A storm's fixes (in time order) interpolated linearly to every hour between its first
    and last fix; a storm of one fix stays as it is."""
    if hours.size == 1:
        return hours, lat, lon, wind_kmh
    grid = np.arange(hours[0], hours[-1] + 1.0)
    return grid, np.interp(grid, hours, lat), np.interp(grid, hours, lon), np.interp(grid, hours, wind_kmh)


def near(track: Track, lat: float) -> bool:
    """Whether the storm ever comes within INFLUENCE_KM of the target's latitude (a cheap
    test before measuring distances)."""
    return bool(np.abs(track[1] - lat).min() <= INFLUENCE_KM / KM_PER_DEGREE_LAT)


def wind_along(track: Track, lat: float, lon: float) -> np.ndarray:
    """The wind (km/h) at (lat, lon) at each hour of an hourly track."""
    _, la, lo, v = track
    return wind_at_distance(great_circle_km(lat, lon, la, lo), v)


def day_of(hour: float) -> dt.date:
    """The UTC day of an hour since 1970-01-01 00:00 UTC."""
    return EPOCH + dt.timedelta(days=int(hour // 24))


def daily_peak_winds(tracks: Iterable[Track], lat: float, lon: float) -> dict[dt.date, float]:
    """Per UTC day, the highest wind (km/h) any of the storms (their fixes, as given) brings
    to (lat, lon); days no storm reaches are absent (no cyclone wind: 0)."""
    peaks: dict[dt.date, float] = {}
    for hours, la, lo, v in tracks:
        track = hourly_track(hours, la, lo, v)
        if not near(track, lat):
            continue
        winds = wind_along(track, lat, lon)
        for hour, w in zip(track[0], winds):
            if w > 0:
                day = day_of(float(hour))
                peaks[day] = max(peaks.get(day, 0.0), float(w))
    return peaks
