"""Cyclone wind at the targets from storm tracks (data set `IBTRACS-WIND`, what the wind
covers settle on): the wind the pricing's own field (models/domain/cyclone_wind.py) gives at
each target from the tracks of the storms that came, per UTC day, the day's highest.

Track files are dropped in a directory (`IBTRACS_DIR`, default `var/ibtracs/`) in the
columns of the record the price is fitted on (models/data/ibtracs_north_indian_ocean_1982-
2023.csv: `DATETIME` (UTC, `YYYY-MM-DD HH:MM:SS`), `CAT`, `CS_ID` (the storm), `LAT`, `LON`,
`MSWS` (maximum sustained wind, knots; IMD's 3-minute mean), `ORIGIN_BASIN`), which IBTrACS
publishes for the North Indian Ocean. A file names the days it covers:

* `<anything>_<YYYY>-<YYYY>.csv` (the seasons of those years, whole) holds **best tracks**:
  its values are **final**;
* `<anything>_provisional_<YYYY-MM-DD>_<YYYY-MM-DD>.csv` (those days) holds the agency's
  **operational** tracks (IMD RSMC New Delhi's advisories, in IBTrACS as provisional tracks
  within days): its values are **provisional**; the best track of the season, once
  published, revises them (a final value wins over a provisional one for the same day).

Every day a file covers has a value at every target: the highest wind any storm brings
there that day, 0 km/h when none comes within 500 km (no cyclone wind: the price reads
the same 0), in km/h to 0.1.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
from decimal import Decimal
from pathlib import Path

import numpy as np

from activities.providers.base import Target
from models.domain.cyclone_wind import Track, daily_peak_winds
from models.domain.observations import IBTRACS_WIND, ObservationIn

KNOT_KMH = 1.852  # as the pricing's loader converts the record's knots
_BEST = re.compile(r"_(\d{4})-(\d{4})\.csv$", re.IGNORECASE)
_PROVISIONAL = re.compile(r"_provisional_(\d{4}-\d{2}-\d{2})_(\d{4}-\d{2}-\d{2})\.csv$", re.IGNORECASE)


def file_days(name: str) -> tuple[dt.date, dt.date, bool] | None:
    """(first day, last day, final) a track file covers, by its name; None for other files."""
    m = _PROVISIONAL.search(name)
    if m:
        return dt.date.fromisoformat(m.group(1)), dt.date.fromisoformat(m.group(2)), False
    m = _BEST.search(name)
    if m:
        return dt.date(int(m.group(1)), 1, 1), dt.date(int(m.group(2)), 12, 31), True
    return None


def read_tracks(text: str) -> list[Track]:
    """Each storm's fixes in time order as (hours since 1970-01-01 UTC, lat, lon, wind km/h)."""
    storms: dict[str, list[tuple[float, float, float, float]]] = {}
    for r in csv.DictReader(io.StringIO(text)):
        when = np.datetime64(r["DATETIME"].strip().replace(" ", "T"), "h")
        storms.setdefault(r["CS_ID"].strip(), []).append(
            (float(when.astype(np.int64)), float(r["LAT"]), float(r["LON"]), float(r["MSWS"]) * KNOT_KMH)
        )
    tracks = []
    for fixes in storms.values():
        h, la, lo, v = (np.array(c) for c in zip(*sorted(fixes)))
        tracks.append((h, la, lo, v))
    return tracks


def observations(tracks: list[Track], covered: tuple[dt.date, dt.date], final: bool, targets: list[Target],
                 start: dt.date, end: dt.date, source: str) -> list[ObservationIn]:
    """A row per target and day of [start, end] the file covers: the day's highest wind."""
    first, last = max(covered[0], start), min(covered[1], end)
    rows = []
    for t in targets:
        peaks = daily_peak_winds(tracks, t.latitude, t.longitude)
        day = first
        while day <= last:
            value = Decimal(f"{peaks.get(day, 0.0):.1f}")
            rows.append(ObservationIn(t.id, IBTRACS_WIND, "wind_kmh", day, None, value, source, provisional=not final))
            day += dt.timedelta(days=1)
    return rows


class IbtracsProvider:
    """Reads the track files dropped in a directory (module docstring)."""

    name = "ibtracs"

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    async def fetch(self, targets: list[Target], start: dt.date, end: dt.date) -> list[ObservationIn]:
        if not self.directory.is_dir():
            return []
        by_key: dict[tuple, ObservationIn] = {}
        for path in sorted(self.directory.iterdir()):
            found = file_days(path.name)
            if found is None:
                continue
            first, last, final = found
            if first > end or last < start:
                continue
            tracks = read_tracks(path.read_text(encoding="utf-8"))
            for row in observations(tracks, (first, last), final, targets, start, end, f"IBTrACS {path.name}"):
                key = (row.monitoring_target_id, row.day)
                if final or key not in by_key or by_key[key].provisional:  # a best track wins
                    by_key[key] = row
        return list(by_key.values())
