"""IMD Pune's gridded daily data in its own binary format (read as imdlib reads them):
little-endian float32, day after day, each day a grid in C order (latitude rows south to
north, longitude columns west to east).

Rainfall (data set `IMD-RF-DAILY`): a 129 × 135 grid of latitudes 6.5–38.5 °N by longitudes
66.5–100.0 °E in 0.25° steps, -999 where there is no land data. A year's archive file
(`Rainfall_ind<year>_rfp25.grd`) holds 365 or 366 days and is final; a real-time file
(`rain_ind0.25_<yy>_<mm>_<dd>.grd`) holds one day and is provisional. Our monitoring targets
are 0.25° cells centred between IMD's grid points (…, 12.875 °N): a target's value is the
mean of the four grid points around its centre that have data.

Maximum temperature (data set `IMD-TMAX-1DEG`, what the heat covers settle on: the product
their prices are fitted on): a year's archive file (`Maxtemp_MaxT_<year>.GRD`) is IMD's
quality-controlled 1° grid, 31 × 31 points at 7.5–37.5 °N by 67.5–97.5 °E, 365 or 366
days, and is **final**; a real-time file (`max<ddmmyyyy>.grd`) is IMD's next-day analysis,
one day on a 0.5° grid of 61 × 61 points over the same box, and is **provisional**. 99.9
marks no data. A target's value is its 1° cell's (`models.domain.tmax_cells.nearest_cell`
over the cells the heat price is fitted on, the pricing's own choice): the archive's value
at the cell, or the real-time grid's point at the cell's centre (every 1° centre is a point
of the 0.5° grid), in °C to 0.01.
"""

from __future__ import annotations

import csv
import datetime as dt
import re
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import numpy as np

from activities.providers.base import Target
from models.domain.observations import IMD_TMAX, ObservationIn
from models.domain.tmax_cells import LAT0 as TMAX_LAT0
from models.domain.tmax_cells import LON0 as TMAX_LON0
from models.domain.tmax_cells import grid_position, nearest_cell
from models.settings import DATA_DIR

LAT0, LON0, STEP = 6.5, 66.5, 0.25
N_LAT, N_LON = 129, 135
MISSING = -999.0
DATA_SET = "IMD-RF-DAILY"
DAY_BYTES = N_LAT * N_LON * 4
_YEARLY = re.compile(r"Rainfall_ind(\d{4})_rfp25\.grd$", re.IGNORECASE)
_DAILY = re.compile(r"rain_ind0\.25_(\d{2})_(\d{2})_(\d{2})\.grd$", re.IGNORECASE)

# Maximum temperature: (points per side, spacing in degrees) of the archive and real-time grids.
TMAX_ARCHIVE_GRID = (31, 1.0)
TMAX_REALTIME_GRID = (61, 0.5)
TMAX_MISSING = 99.9
_TMAX_YEARLY = re.compile(r"Maxtemp_MaxT_(\d{4})\.grd$", re.IGNORECASE)
_TMAX_DAILY = re.compile(r"max(\d{2})(\d{2})(\d{4})\.grd$", re.IGNORECASE)
HEAT_CELLS = DATA_DIR / "calibration" / "heat_cells.csv"  # the cells the heat price is fitted on


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


# --- maximum temperature (IMD-TMAX-1DEG) ------------------------------------------------------


@dataclass(frozen=True, eq=False)
class TmaxCells:
    """The IMD 1° cells the heat price is fitted on, in the order the pricing reads them
    (the nearest cell is the first of equals, on both sides)."""

    names: tuple[str, ...]
    lat: np.ndarray
    lon: np.ndarray

    @classmethod
    def read(cls, path: Path = HEAT_CELLS) -> "TmaxCells":
        with path.open(newline="", encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh))
        first = {r["cell_id"]: r for r in reversed(rows)}
        names = tuple(dict.fromkeys(r["cell_id"] for r in rows))
        return cls(names, np.array([float(first[n]["lat"]) for n in names]), np.array([float(first[n]["lon"]) for n in names]))

    def of(self, target: Target) -> tuple[str, float, float]:
        """(name, centre latitude, centre longitude) of the target's cell."""
        c, _ = nearest_cell(target.latitude, target.longitude, self.lat, self.lon)
        return self.names[c], float(self.lat[c]), float(self.lon[c])


def read_tmax_grid(data: bytes, final: bool) -> np.ndarray:
    """A maximum-temperature file's days as (days, n, n) °C, NaN where IMD has no data
    (`final`: the 1° archive, else the 0.5° real-time grid)."""
    n, _ = TMAX_ARCHIVE_GRID if final else TMAX_REALTIME_GRID
    day_bytes = n * n * 4
    if not data or len(data) % day_bytes or (not final and len(data) != day_bytes):
        kind = "a 1° archive file is a whole number of" if final else "a 0.5° real-time file is one"
        raise ValueError(f"IMD maximum temperature: {kind} {day_bytes}-byte day(s); got {len(data)} bytes")
    grid = np.frombuffer(data, dtype="<f4").reshape(-1, n, n).astype(np.float64)
    grid[np.abs(grid - TMAX_MISSING) < 0.01] = np.nan
    return grid


def tmax_file_days(name: str) -> tuple[dt.date, bool] | None:
    """(first day, final) of an IMD maximum-temperature file by its published name."""
    m = _TMAX_YEARLY.search(name)
    if m:
        return dt.date(int(m.group(1)), 1, 1), True
    m = _TMAX_DAILY.search(name)
    if m:
        return dt.date(int(m.group(3)), int(m.group(2)), int(m.group(1))), False
    return None


def tmax_observations(grid: np.ndarray, first_day: dt.date, final: bool, targets: list[Target], cells: TmaxCells,
                      start: dt.date, end: dt.date, source: str) -> list[ObservationIn]:
    """Rows for the targets' cells and the days of [start, end] the file holds (°C to 0.01);
    days without data give no row."""
    _, step = TMAX_ARCHIVE_GRID if final else TMAX_REALTIME_GRID
    rows = []
    for t in targets:
        _, lat, lon = cells.of(t)
        row, col = grid_position(lat, lon, TMAX_LAT0, TMAX_LON0, step)
        for k, v in enumerate(grid[:, row, col]):
            day = first_day + dt.timedelta(days=k)
            if start <= day <= end and not np.isnan(v):
                rows.append(ObservationIn(t.id, IMD_TMAX, "temperature_c", day, None, Decimal(f"{v:.2f}"),
                                          source, provisional=not final))
    return rows


def _days_in(first: dt.date, final: bool) -> int:
    if not final:
        return 1
    return 366 if first.year % 4 == 0 and (first.year % 100 or first.year % 400 == 0) else 365


class ImdGridProvider:
    """Reads the IMD files dropped in a directory (ops download them from IMD Pune): the
    rainfall grids and the maximum-temperature grids."""

    name = "imd-grid"

    def __init__(self, directory: Path, cells: TmaxCells | None = None) -> None:
        self.directory = directory
        self._cells = cells

    @property
    def cells(self) -> TmaxCells:
        if self._cells is None:
            self._cells = TmaxCells.read()
        return self._cells

    async def fetch(self, targets: list[Target], start: dt.date, end: dt.date) -> list[ObservationIn]:
        rows: list[ObservationIn] = []
        if not self.directory.is_dir():
            return rows
        by_key: dict[tuple, ObservationIn] = {}
        for path in sorted(self.directory.iterdir()):
            rain, tmax = file_days(path.name), tmax_file_days(path.name)
            if rain is None and tmax is None:
                continue
            first, final = rain or tmax
            if first > end or first + dt.timedelta(days=_days_in(first, final) - 1) < start:
                continue
            if rain is not None:
                found = observations(read_grid(path.read_bytes()), first, final, targets, start, end, f"IMD {path.name}")
            else:
                found = tmax_observations(read_tmax_grid(path.read_bytes(), final), first, final, targets, self.cells,
                                          start, end, f"IMD {path.name}")
            for row in found:
                key = (row.monitoring_target_id, row.data_set, row.day)
                if final or key not in by_key:  # the final archive wins over a real-time file
                    by_key[key] = row
        rows.extend(by_key.values())
        return rows
