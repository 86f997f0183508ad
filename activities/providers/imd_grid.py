"""IMD's 0.25° gridded daily rainfall in its own binary format (the files IMD Pune publishes,
read as imdlib reads them): little-endian float32, day after day, each day a 129 × 135 grid
of latitudes 6.5–38.5 °N by longitudes 66.5–100.0 °E in 0.25° steps (C order: latitude
rows, longitude columns), -999 where there is no land data. A year's archive file
(`Rainfall_ind<year>_rfp25.grd`) holds 365 or 366 days and is final; a real-time file
(`rain_ind0.25_<yy>_<mm>_<dd>.grd`) holds one day and is provisional.

Our monitoring targets are 0.25° cells centred between IMD's grid points (…, 12.875 °N):
a target's value is the mean of the four grid points around its centre that have data.
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from pathlib import Path

import numpy as np

from activities.providers.base import Target
from models.domain.observations import ObservationIn

LAT0, LON0, STEP = 6.5, 66.5, 0.25
N_LAT, N_LON = 129, 135
MISSING = -999.0
DATA_SET = "IMD-RF-DAILY"
DAY_BYTES = N_LAT * N_LON * 4
_YEARLY = re.compile(r"Rainfall_ind(\d{4})_rfp25\.grd$", re.IGNORECASE)
_DAILY = re.compile(r"rain_ind0\.25_(\d{2})_(\d{2})_(\d{2})\.grd$", re.IGNORECASE)


def read_grid(data: bytes) -> np.ndarray:
    """The file's days as (days, 129, 135) float32, NaN where IMD has no data."""
    if not data or len(data) % DAY_BYTES:
        raise ValueError(f"an IMD 0.25° rainfall file is a whole number of {DAY_BYTES}-byte days; got {len(data)} bytes")
    grid = np.frombuffer(data, dtype="<f4").reshape(-1, N_LAT, N_LON).astype(np.float64)
    grid[grid <= MISSING + 0.5] = np.nan
    return grid


def cell_values(grid: np.ndarray, latitude: float, longitude: float) -> np.ndarray:
    """Per day, the mean of the grid points around (latitude, longitude) that have data
    (NaN if none has): the four corners of the 0.25° cell centred there."""
    i = (latitude - LAT0) / STEP
    j = (longitude - LON0) / STEP
    rows = sorted({int(np.floor(i + 1e-9)), int(np.ceil(i - 1e-9))})
    cols = sorted({int(np.floor(j + 1e-9)), int(np.ceil(j - 1e-9))})
    if rows[0] < 0 or cols[0] < 0 or rows[-1] >= N_LAT or cols[-1] >= N_LON:
        return np.full(grid.shape[0], np.nan)
    corners = grid[:, rows][:, :, cols].reshape(grid.shape[0], -1)
    with np.errstate(all="ignore"):
        counts = np.sum(~np.isnan(corners), axis=1)
        sums = np.nansum(corners, axis=1)
        return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)


def file_days(name: str) -> tuple[dt.date, bool] | None:
    """(first day, final) of an IMD file by its published name; None for other files."""
    m = _YEARLY.search(name)
    if m:
        return dt.date(int(m.group(1)), 1, 1), True
    m = _DAILY.search(name)
    if m:
        return dt.date(2000 + int(m.group(1)), int(m.group(2)), int(m.group(3))), False
    return None


def observations(grid: np.ndarray, first_day: dt.date, final: bool, targets: list[Target],
                 start: dt.date, end: dt.date, source: str) -> list[ObservationIn]:
    """Rows for the targets and the days of [start, end] the file holds (values rounded to
    0.1 mm, IMD's own precision); days without data give no row."""
    rows = []
    for t in targets:
        values = cell_values(grid, t.latitude, t.longitude)
        for k, v in enumerate(values):
            day = first_day + dt.timedelta(days=k)
            if start <= day <= end and not np.isnan(v):
                rows.append(ObservationIn(t.id, DATA_SET, "rainfall_mm", day, None, Decimal(f"{max(v, 0.0):.1f}"),
                                          source, provisional=not final))
    return rows


class ImdGridProvider:
    """Reads the IMD files dropped in a directory (ops download them from IMD Pune)."""

    name = "imd-grid"

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    async def fetch(self, targets: list[Target], start: dt.date, end: dt.date) -> list[ObservationIn]:
        rows: list[ObservationIn] = []
        if not self.directory.is_dir():
            return rows
        by_key: dict[tuple, ObservationIn] = {}
        for path in sorted(self.directory.iterdir()):
            found = file_days(path.name)
            if found is None:
                continue
            first, final = found
            days = 366 if final and (first.year % 4 == 0 and (first.year % 100 or first.year % 400 == 0)) else 365 if final else 1
            if first > end or first + dt.timedelta(days=days - 1) < start:
                continue
            grid = read_grid(path.read_bytes())
            for row in observations(grid, first, final, targets, start, end, f"IMD {path.name}"):
                key = (row.monitoring_target_id, row.day)
                if final or key not in by_key:  # the final archive wins over a real-time file
                    by_key[key] = row
        rows.extend(by_key.values())
        return rows
