"""Loader for the calibration data: the only module of the pricing core that does I/O.

Reads the four CSV files of ``models/data`` (see ``/work/shared/data/README.md`` for their
provenance and licences) into plain arrays and records, and computes the data hash that is
stored with every pricing run. Everything else in :mod:`activities.pricing` takes the
returned :class:`ClimateData` (or arrays derived from it) and is pure.

Data hash: sha256 over, for each file used in sorted file-name order, the UTF-8 file name,
a NUL byte, the file size in decimal, a NUL byte and the raw file bytes. Renaming, editing
or adding a byte to any file changes the hash; the directory path does not.

Loading is cached per process and per resolved directory (``functools.lru_cache``), so
activities can call :func:`load_climate_data` on every invocation.
"""

from __future__ import annotations

import csv
import hashlib
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

MONTHS = ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")

SUBDIVISION_FILE = "rainfall_in_india_1901-2015.csv"
DISTRICT_NORMALS_FILE = "district_wise_rainfall_normal.csv"
PINCODE_FILE = "india_pincode_centroids.csv"
HOURLY_FILE = "beijing_aotizhongxin_hourly_weather_2013-2017.csv"
DATA_FILES = (SUBDIVISION_FILE, DISTRICT_NORMALS_FILE, PINCODE_FILE, HOURLY_FILE)

# models/data next to this package: activities/pricing/ -> repo root -> models/data
DEFAULT_DATA_DIR = Path(__file__).resolve().parents[2] / "models" / "data"


@dataclass(frozen=True, eq=False)
class SubdivisionHistory:
    """IMD monthly rainfall of one meteorological subdivision.

    ``years`` is contiguous; ``rain_mm[i, m]`` is the total of calendar month ``m``
    (0 = January) of ``years[i]`` in mm; NaN where the source cell is blank ("NA") or the
    year is absent from the file.
    """

    name: str
    years: np.ndarray  # int64, shape (Y,)
    rain_mm: np.ndarray  # float64, shape (Y, 12), NaN = missing


@dataclass(frozen=True, slots=True)
class DistrictNormal:
    """IMD long-period monthly normal of one (2000s) district, mm per calendar month."""

    state: str  # as spelled in the source (e.g. "CHATISGARH")
    district: str  # as spelled in the source (truncated names kept)
    normals_mm: tuple[float, ...]  # 12 values, January first


@dataclass(frozen=True, slots=True)
class PincodeCentroid:
    """One pin code's centroid; latitude/longitude in decimal degrees, None when missing."""

    pincode: str
    district: str
    state: str
    latitude: float | None
    longitude: float | None
    geo_quality: str


@dataclass(frozen=True, eq=False)
class HourlyStation:
    """Hourly series of one station (local time). Arrays share one index; NaN = missing.

    ``rain_mm`` in mm per hour, ``temp_c`` in °C, ``wind_ms`` (hourly mean wind) in m/s.
    """

    name: str
    year: np.ndarray
    month: np.ndarray
    day: np.ndarray
    hour: np.ndarray
    rain_mm: np.ndarray
    temp_c: np.ndarray
    wind_ms: np.ndarray


@dataclass(frozen=True, eq=False)
class ClimateData:
    """Everything the pricing models are calibrated on, plus the hash of the files used."""

    directory: str
    subdivisions: dict[str, SubdivisionHistory]
    district_normals: tuple[DistrictNormal, ...]
    pincodes: tuple[PincodeCentroid, ...]
    hourly: HourlyStation
    data_hash: str  # "sha256:<64 hex>"
    files: tuple[str, ...]


def _float(cell: str) -> float:
    cell = cell.strip()
    if cell == "" or cell.upper() == "NA":
        return math.nan
    return float(cell)


def _read_rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def data_hash(directory: Path, files: tuple[str, ...] = DATA_FILES) -> str:
    """sha256 of the named files in ``directory`` (see module docstring for the layout)."""
    h = hashlib.sha256()
    for name in sorted(files):
        blob = (directory / name).read_bytes()
        h.update(name.encode("utf-8") + b"\0" + str(len(blob)).encode("ascii") + b"\0")
        h.update(blob)
    return "sha256:" + h.hexdigest()


def _load_subdivisions(path: Path) -> dict[str, SubdivisionHistory]:
    by_name: dict[str, list[tuple[int, list[float]]]] = {}
    for row in _read_rows(path):
        name = row["SUBDIVISION"].strip()
        by_name.setdefault(name, []).append((int(row["YEAR"]), [_float(row[m]) for m in MONTHS]))
    out = {}
    for name, rows in by_name.items():
        # contiguous years: a year absent from the file is a row of NaN
        y0, y1 = min(y for y, _ in rows), max(y for y, _ in rows)
        rain = np.full((y1 - y0 + 1, 12), np.nan)
        for y, v in rows:
            rain[y - y0] = v
        out[name] = SubdivisionHistory(name=name, years=np.arange(y0, y1 + 1, dtype=np.int64), rain_mm=rain)
    return out


def _load_district_normals(path: Path) -> tuple[DistrictNormal, ...]:
    return tuple(
        DistrictNormal(
            state=row["STATE_UT_NAME"].strip(),
            district=row["DISTRICT"].strip(),
            normals_mm=tuple(_float(row[m]) for m in MONTHS),
        )
        for row in _read_rows(path)
    )


def _load_pincodes(path: Path) -> tuple[PincodeCentroid, ...]:
    out = []
    for row in _read_rows(path):
        lat, lon = _float(row["latitude"]), _float(row["longitude"])
        out.append(
            PincodeCentroid(
                pincode=row["pincode"].strip(),
                district=row["district"].strip(),
                state=row["state"].strip(),
                latitude=None if math.isnan(lat) else lat,
                longitude=None if math.isnan(lon) else lon,
                geo_quality=row["geo_quality"].strip(),
            )
        )
    return tuple(out)


def _load_hourly(path: Path) -> HourlyStation:
    rows = _read_rows(path)
    col = lambda k, f=int: np.array([f(r[k]) for r in rows])  # noqa: E731
    return HourlyStation(
        name=rows[0]["station"].strip(),
        year=col("year"),
        month=col("month"),
        day=col("day"),
        hour=col("hour"),
        rain_mm=col("RAIN", _float).astype(np.float64),
        temp_c=col("TEMP", _float).astype(np.float64),
        wind_ms=col("WSPM", _float).astype(np.float64),
    )


@lru_cache(maxsize=4)
def _load(directory: str) -> ClimateData:
    d = Path(directory)
    missing = [f for f in DATA_FILES if not (d / f).is_file()]
    if missing:
        raise FileNotFoundError(f"calibration data missing in {d}: {', '.join(missing)}")
    return ClimateData(
        directory=str(d),
        subdivisions=_load_subdivisions(d / SUBDIVISION_FILE),
        district_normals=_load_district_normals(d / DISTRICT_NORMALS_FILE),
        pincodes=_load_pincodes(d / PINCODE_FILE),
        hourly=_load_hourly(d / HOURLY_FILE),
        data_hash=data_hash(d),
        files=DATA_FILES,
    )


def load_climate_data(directory: str | Path | None = None) -> ClimateData:
    """Load (once per process and directory) the calibration data from ``directory``.

    ``directory`` defaults to the repository's ``models/data``. Raises FileNotFoundError
    when a file is missing.
    """
    d = Path(directory) if directory is not None else DEFAULT_DATA_DIR
    return _load(str(d.resolve()))
