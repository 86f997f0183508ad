"""Loader for the calibration data: the only module of the pricing core that does I/O.

Reads the CSV files (rainfall, normals, pin codes, Beijing hourly, IBTrACS cyclone tracks,
the heat parameters derived from IMD's 1° temperature grid) and the name tables (``geography_aliases.json``) of the data
directory it is given (the service gives ``models/data``: ``models.settings.DATA_DIR``; see
``/work/shared/data/README.md`` for provenance and licences) into plain arrays and records,
and computes the data hash that is stored with every pricing run. The name tables decide
which district normals and subdivision price a target, so the hash covers them too. Everything else in :mod:`activities.pricing` takes the
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
import json
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
NAME_TABLES_FILE = "geography_aliases.json"
CYCLONE_FILE = "ibtracs_north_indian_ocean_1982-2023.csv"
HEAT_CELLS_FILE = "calibration/heat_cells.csv"  # derived by bench/calibration/heat_cells.py
HEAT_PARTIAL_FILE = "calibration/heat_partial.json"
RAIN_SCALE_FILE = "calibration/rain_scale.json"  # derived by bench/calibration/rain_scale.py
RAIN_PARTIAL_FILE = "calibration/rain_partial.json"  # derived by bench/calibration/rain_partial.py
HOURLY_DAILY_FILE = "calibration/hourly_daily.json"  # derived by bench/calibration/hourly_daily.py
DATA_FILES = (
    RAIN_SCALE_FILE,
    RAIN_PARTIAL_FILE,
    HOURLY_DAILY_FILE,
    SUBDIVISION_FILE,
    DISTRICT_NORMALS_FILE,
    PINCODE_FILE,
    HOURLY_FILE,
    NAME_TABLES_FILE,
    CYCLONE_FILE,
    HEAT_CELLS_FILE,
    HEAT_PARTIAL_FILE,
)
KNOT_KMH = 1.852


@dataclass(frozen=True, eq=False)
class NameTables:
    """Today's pin-code district and state names → the 2000s names of the district-normals
    file and the IMD subdivisions (activities/pricing/geography.py says how they are used)."""

    subdivisions: tuple[str, ...]
    state_aliases: dict[str, tuple[str, ...]]  # pin-code state → normals-file state keys
    subdivision_by_state: dict[str, str]  # normals-file state key → subdivision (unsplit states)
    subdivision_splits: dict[str, dict[str, tuple[str, ...]]]  # split state → subdivision → districts
    district_aliases: dict[str, dict[str, tuple[str, str]]]  # state → district → (normals district, kind)


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
class CycloneTracks:
    """IBTrACS best-track fixes of North Indian Ocean storms, 1982–2023, in time order per storm.

    ``storm`` numbers the storms (0..S-1); ``hours`` is hours since 1970-01-01 00:00 UTC;
    ``lat``/``lon`` decimal degrees; ``wind_kmh`` the agency's maximum sustained wind (the
    file's knots × 1.852; IMD's categories, so IMD's 3-minute average).
    """

    storm: np.ndarray  # int64
    hours: np.ndarray  # float64
    lat: np.ndarray
    lon: np.ndarray
    wind_kmh: np.ndarray
    first_year: int
    last_year: int


@dataclass(frozen=True, eq=False)
class HeatCells:
    """Fitted heat parameters of the IMD 1° cells (``activities/pricing/temperature.py``):
    arrays (cells,) and (cells, 12), °C, °C per year, years."""

    cell_id: tuple[str, ...]
    lat: np.ndarray
    lon: np.ndarray
    level_c: np.ndarray
    slope_c: np.ndarray
    sd_c: np.ndarray
    n_years: np.ndarray
    partial_exponent: float


@dataclass(frozen=True, slots=True)
class RainScale:
    """From a subdivision average to a cell (``bench/calibration/rain_scale.py``): the ratio
    of coefficients of variation of monthly totals (Jun–Sep and other months) and the shift
    of logit P(dry month); ``source`` cites what they were derived from."""

    cv_factor_monsoon: float
    cv_factor_other: float
    logit_p0_shift: float
    source: str
    band_monsoon: tuple[float, float]
    band_other: tuple[float, float]
    basis_correlation: float
    basis_no_payout_excess: float
    basis_no_payout_deficit: float


@dataclass(frozen=True, slots=True)
class RainPartial:
    """Time-scale law of partial months (``bench/calibration/rain_partial.py``): for day
    fractions ``f`` of a month, the ratio of the coefficient of variation of the partial total
    to the month total's and the probability that a wet month's partial period is dry, per
    season (Jun–Sep, other months); ``h`` the power law ``CV_f / CV_1 = f^-h`` that summarises
    the ratio (used below the smallest tabulated fraction)."""

    fractions: tuple[float, ...]
    cv_ratio_monsoon: tuple[float, ...]
    cv_ratio_other: tuple[float, ...]
    p_dry_monsoon: tuple[float, ...]
    p_dry_other: tuple[float, ...]
    h_monsoon: float
    h_other: float
    source: str

    def cv_ratio(self, month: int, fraction: float) -> float:
        """CV(partial total) / CV(month total) for ``fraction`` of calendar ``month``'s days."""
        monsoon = month in (6, 7, 8, 9)
        if fraction >= 1.0:
            return 1.0
        if fraction < self.fractions[0]:
            return (self.cv_ratio_monsoon if monsoon else self.cv_ratio_other)[0] * (
                fraction / self.fractions[0]
            ) ** -(self.h_monsoon if monsoon else self.h_other)
        xs = (*self.fractions, 1.0)
        ys = (*(self.cv_ratio_monsoon if monsoon else self.cv_ratio_other), 1.0)
        return float(np.interp(fraction, xs, ys))

    def p_dry_given_wet(self, month: int, fraction: float) -> float:
        """P(partial total < 0.05 mm | the month is wet), interpolated (1 at f = 0, 0 at f = 1)."""
        if fraction >= 1.0:
            return 0.0
        xs = (0.0, *self.fractions, 1.0)
        ys = (1.0, *(self.p_dry_monsoon if month in (6, 7, 8, 9) else self.p_dry_other), 0.0)
        return float(np.interp(fraction, xs, ys))


@dataclass(frozen=True, slots=True)
class HourlyDailyCalibration:
    """The hotel-rain model's wet-hour persistence per season, fitted to Indian daily records
    (``bench/calibration/hourly_daily.py``; :mod:`.hourly`); ``source`` cites them."""

    persistence_monsoon: float  # Jun-Sep
    persistence_other: float
    source: str

    def persistence_by_month(self) -> tuple[float, ...]:
        return tuple(self.persistence_monsoon if m in (6, 7, 8, 9) else self.persistence_other for m in range(1, 13))


@dataclass(frozen=True, eq=False)
class ClimateData:
    """Everything the pricing models are calibrated on, plus the hash of the files used."""

    directory: str
    subdivisions: dict[str, SubdivisionHistory]
    district_normals: tuple[DistrictNormal, ...]
    pincodes: tuple[PincodeCentroid, ...]
    hourly: HourlyStation
    names: NameTables
    cyclones: CycloneTracks
    heat: HeatCells
    rain_scale: RainScale
    rain_partial: RainPartial
    data_hash: str  # "sha256:<64 hex>"
    files: tuple[str, ...]
    hourly_daily: HourlyDailyCalibration | None = None


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


def _load_name_tables(path: Path) -> NameTables:
    raw = json.loads(path.read_text(encoding="utf-8"))
    return NameTables(
        subdivisions=tuple(raw["subdivisions"]),
        state_aliases={k: tuple(v) for k, v in raw["state_aliases"].items()},
        subdivision_by_state=dict(raw["subdivision_by_state"]),
        subdivision_splits={s: {sub: tuple(d) for sub, d in m.items()} for s, m in raw["subdivision_splits"].items()},
        district_aliases={s: {d: (t[0], t[1]) for d, t in m.items()} for s, m in raw["district_aliases"].items()},
    )


def _load_cyclones(path: Path) -> CycloneTracks:
    rows = _read_rows(path)
    ids: dict[str, int] = {}
    storm, hours, lat, lon, wind = [], [], [], [], []
    for r in rows:
        when = np.datetime64(r["DATETIME"].strip().replace(" ", "T"), "h")
        storm.append(ids.setdefault(r["CS_ID"].strip(), len(ids)))
        hours.append(float(when.astype(np.int64)))
        lat.append(float(r["LAT"]))
        lon.append(float(r["LON"]))
        wind.append(float(r["MSWS"]) * KNOT_KMH)
    order = np.lexsort((np.array(hours), np.array(storm)))
    years = [int(r["DATETIME"][:4]) for r in rows]
    take = lambda v, t=np.float64: np.asarray(v, dtype=t)[order]  # noqa: E731
    return CycloneTracks(
        storm=take(storm, np.int64),
        hours=take(hours),
        lat=take(lat),
        lon=take(lon),
        wind_kmh=take(wind),
        first_year=min(years),
        last_year=max(years),
    )


def _load_heat(cells_path: Path, partial_path: Path) -> HeatCells:
    rows = _read_rows(cells_path)
    ids = list(dict.fromkeys(r["cell_id"] for r in rows))
    pos = {c: i for i, c in enumerate(ids)}
    shape = (len(ids), 12)
    level, slope, sd, n = np.zeros(shape), np.zeros(shape), np.zeros(shape), np.zeros(shape, dtype=np.int64)
    lat, lon = np.zeros(len(ids)), np.zeros(len(ids))
    for r in rows:
        i, m = pos[r["cell_id"]], int(r["month"]) - 1
        lat[i], lon[i] = float(r["lat"]), float(r["lon"])
        level[i, m], slope[i, m] = float(r["level_2024_c"]), float(r["slope_c_per_year"])
        sd[i, m], n[i, m] = float(r["resid_sd_c"]), int(r["n_years"])
    partial = json.loads(partial_path.read_text(encoding="utf-8"))
    return HeatCells(tuple(ids), lat, lon, level, slope, sd, n, float(partial["exponent"]))


def _load_rain_scale(path: Path) -> RainScale:
    raw = json.loads(path.read_text(encoding="utf-8"))
    basis = raw["basis_risk"]
    return RainScale(
        cv_factor_monsoon=float(raw["cv_factor"]["monsoon"]),
        cv_factor_other=float(raw["cv_factor"]["other"]),
        logit_p0_shift=float(raw["logit_p0_shift"]),
        source=raw["source"],
        band_monsoon=tuple(raw["cv_factor_band"]["monsoon"]),
        band_other=tuple(raw["cv_factor_band"]["other"]),
        basis_correlation=float(basis["correlation_point_vs_subdivision"]["monsoon"]),
        basis_no_payout_excess=float(basis["p_no_payout_given_local_loss_excess"]),
        basis_no_payout_deficit=float(basis["p_no_payout_given_local_loss_deficit"]),
    )


def _load_rain_partial(path: Path) -> RainPartial:
    raw = json.loads(path.read_text(encoding="utf-8"))
    return RainPartial(
        fractions=tuple(float(f) for f in raw["fractions"]),
        cv_ratio_monsoon=tuple(float(v) for v in raw["monsoon"]["cv_ratio"]),
        cv_ratio_other=tuple(float(v) for v in raw["other"]["cv_ratio"]),
        p_dry_monsoon=tuple(float(v) for v in raw["monsoon"]["p_dry_given_wet_month"]),
        p_dry_other=tuple(float(v) for v in raw["other"]["p_dry_given_wet_month"]),
        h_monsoon=float(raw["monsoon"]["h"]),
        h_other=float(raw["other"]["h"]),
        source=raw["source"],
    )


def _load_hourly_daily(path: Path) -> HourlyDailyCalibration:
    raw = json.loads(path.read_text(encoding="utf-8"))
    return HourlyDailyCalibration(
        persistence_monsoon=float(raw["persistence"]["monsoon"]),
        persistence_other=float(raw["persistence"]["other"]),
        source=raw["source"],
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
        names=_load_name_tables(d / NAME_TABLES_FILE),
        cyclones=_load_cyclones(d / CYCLONE_FILE),
        heat=_load_heat(d / HEAT_CELLS_FILE, d / HEAT_PARTIAL_FILE),
        rain_scale=_load_rain_scale(d / RAIN_SCALE_FILE),
        rain_partial=_load_rain_partial(d / RAIN_PARTIAL_FILE),
        data_hash=data_hash(d),
        files=DATA_FILES,
        hourly_daily=_load_hourly_daily(d / HOURLY_DAILY_FILE),
    )


def load_climate_data(directory: str | Path) -> ClimateData:
    """Load (once per process and directory) the calibration data from ``directory`` (the
    service's is ``models.settings.DATA_DIR``). Raises FileNotFoundError when a file is missing.
    """
    return _load(str(Path(directory).resolve()))
