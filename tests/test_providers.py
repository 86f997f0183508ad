"""Providers read their sources' real formats: IMD's binary 0.25° grid (files the test
writes in that format), Open-Meteo archive and NASA POWER answers (recorded, no network)."""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import numpy as np
import pytest

from activities.providers import imd_grid, nasa_power, open_meteo
from activities.providers.base import Target

FIXTURES = Path(__file__).parent / "fixtures" / "providers"
BENGALURU = Target("IN-12.875N-077.625E", 12.875, 77.625)


def _grid_file(days: list[dict[tuple[int, int], float]]) -> bytes:
    """Days of IMD's layout: float32 little-endian, (day, 129 latitudes, 135 longitudes), -999 elsewhere."""
    grid = np.full((len(days), imd_grid.N_LAT, imd_grid.N_LON), -999.0, dtype="<f4")
    for k, cells in enumerate(days):
        for (i, j), v in cells.items():
            grid[k, i, j] = v
    return grid.tobytes()


def test_imd_grid_file_is_read_as_imd_lays_it_out(tmp_path):
    # Bengaluru's cell centre 12.875 N 77.625 E lies between grid rows 25-26 and columns 44-45.
    corners = [(25, 44), (25, 45), (26, 44), (26, 45)]
    data = _grid_file([
        dict(zip(corners, [10.0, 20.0, 30.0, -999.0])),  # three corners with data: mean 20.0
        {},  # no data at all
        dict.fromkeys(corners, 5.25),
        {(25, 44): 0.0, (0, 0): 99.0},  # another cell's rain does not leak in
    ])
    assert len(data) == 4 * 129 * 135 * 4
    grid = imd_grid.read_grid(data)
    values = imd_grid.cell_values(grid, BENGALURU.latitude, BENGALURU.longitude)
    assert values[0] == pytest.approx(20.0) and np.isnan(values[1]) and values[2] == pytest.approx(5.25) and values[3] == 0
    rows = imd_grid.observations(grid, dt.date(2026, 7, 1), False, [BENGALURU], dt.date(2026, 7, 1), dt.date(2026, 7, 31), "IMD")
    assert [(r.day.day, r.value, r.provisional) for r in rows] == [(1, Decimal("20.0"), True), (3, Decimal("5.2"), True), (4, Decimal("0.0"), True)]
    with pytest.raises(ValueError):
        imd_grid.read_grid(data[:-4])


async def test_imd_provider_prefers_the_final_archive_over_real_time_files(tmp_path):
    corners = [(25, 44), (25, 45), (26, 44), (26, 45)]
    (tmp_path / "rain_ind0.25_25_01_02.grd").write_bytes(_grid_file([dict.fromkeys(corners, 7.0)]))
    year = [dict.fromkeys(corners, float(d % 3)) for d in range(365)]
    (tmp_path / "Rainfall_ind2025_rfp25.grd").write_bytes(_grid_file(year))
    (tmp_path / "notes.txt").write_text("not a grid")
    assert imd_grid.file_days("Rainfall_ind2025_rfp25.grd") == (dt.date(2025, 1, 1), True)
    assert imd_grid.file_days("rain_ind0.25_25_01_02.grd") == (dt.date(2025, 1, 2), False)
    rows = await imd_grid.ImdGridProvider(tmp_path).fetch([BENGALURU], dt.date(2025, 1, 1), dt.date(2025, 1, 3))
    got = sorted((r.day, r.value, r.provisional) for r in rows)
    assert got == [(dt.date(2025, 1, 1), Decimal("0.0"), False), (dt.date(2025, 1, 2), Decimal("1.0"), False), (dt.date(2025, 1, 3), Decimal("2.0"), False)]


def test_open_meteo_archive_answers_are_parsed():
    models = json.loads((FIXTURES / "frenck_python-open-meteo_historical_weather_models.json").read_text())
    rows = open_meteo.parse(models, "T1", model="era5")
    assert [(r.variable, r.day, r.value, r.data_set, r.source, r.provisional) for r in rows] == [
        ("temperature_c", dt.date(2024, 1, 1), Decimal("8.6"), "REAN-SFC-HOURLY", "open-meteo/era5", False)
    ]
    best = open_meteo.parse(models, "T1", model="archive_best_match")
    assert [r.value for r in best] == [Decimal("8.0")]
    # Hourly values of an incomplete day give no daily maximum; gusts are not taken; the daily
    # precipitation total is the reanalysis rainfall (the fallback rung of IMD's rainfall, issue 34).
    weather = json.loads((FIXTURES / "frenck_python-open-meteo_historical_weather.json").read_text())
    assert [(r.data_set, r.variable, r.day, r.value, r.source) for r in open_meteo.parse(weather, "T1")] == [
        ("REAN-SFC-HOURLY", "rainfall_mm", dt.date(1953, 1, 31), Decimal("11.9"), "open-meteo/best_match"),
        ("REAN-SFC-HOURLY", "rainfall_mm", dt.date(1953, 2, 1), Decimal("12.5"), "open-meteo/best_match"),
    ]
    full_day = {"hourly": {"time": [f"2026-07-01T{h:02d}:00" for h in range(24)], "wind_speed_10m": [10.0] * 23 + [42.5],
                           "temperature_2m": [30.0] * 12 + [None] * 12}}
    rows = open_meteo.parse(full_day, "T1", today=dt.date(2026, 7, 3))
    assert [(r.variable, r.value, r.provisional) for r in rows] == [("wind_kmh", Decimal("42.5"), True)]
    url = urlsplit(open_meteo.archive_url(12.875, 77.625, dt.date(2026, 7, 1), dt.date(2026, 7, 31), "era5"))
    assert url.netloc == "archive-api.open-meteo.com" and url.path == "/v1/archive"
    assert parse_qs(url.query) == {"latitude": ["12.8750"], "longitude": ["77.6250"], "start_date": ["2026-07-01"],
                                   "end_date": ["2026-07-31"], "daily": ["temperature_2m_max,wind_speed_10m_max,precipitation_sum"],
                                   "timezone": ["Asia/Kolkata"], "wind_speed_unit": ["kmh"], "precipitation_unit": ["mm"],
                                   "models": ["era5"]}


async def test_open_meteo_provider_fetches_per_target():
    answer = (FIXTURES / "frenck_python-open-meteo_historical_weather_models.json").read_text()
    seen = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url)
        return httpx.Response(200, text=answer, headers={"content-type": "application/json"})

    rows = await open_meteo.OpenMeteoProvider("era5", httpx.MockTransport(handler)).fetch([BENGALURU], dt.date(2024, 1, 1), dt.date(2024, 1, 1))
    assert [r.value for r in rows] == [Decimal("8.6")] and seen[0].params["latitude"] == "12.8750"


def test_nasa_power_request_and_csv_answer():
    interaction = json.loads((FIXTURES / "nasapower_vcr_daily_ag_point.json").read_text())["http_interactions"][0]
    recorded = parse_qs(urlsplit(interaction["request"]["uri"]).query)
    recorded.pop("user")
    ours = parse_qs(urlsplit(nasa_power.daily_url(
        -89.5, -179.5, dt.date(1983, 1, 1), dt.date(1983, 1, 1),
        parameters=("T2M", "T2M_MIN", "T2M_MAX", "RH2M", "WS10M", "PS"), time_standard="UTC",
    )).query)
    assert ours == recorded  # the request our adapter sends is the documented one
    rows = nasa_power.parse_csv(interaction["response"]["body"]["string"], "T1")
    assert [(r.variable, r.day, r.value, r.source) for r in rows] == [("temperature_c", dt.date(1983, 1, 1), Decimal("-22.7"), "nasa-power/merra2")]
    body = "-BEGIN HEADER-\nx\n-END HEADER-\nYEAR,DOY,T2M_MAX,WS10M_MAX\n2026,182,31.5,12.5\n2026,183,-999,-999\n"
    rows = nasa_power.parse_csv(body, "T1")
    assert [(r.variable, r.day, r.value) for r in rows] == [("temperature_c", dt.date(2026, 7, 1), Decimal("31.5")), ("wind_kmh", dt.date(2026, 7, 1), Decimal(45))]


def test_nasa_power_corrected_precipitation_is_reanalysis_rainfall():
    """PRECTOTCORR (mm/day) is the fallback rung of IMD's daily rainfall (issue 34): asked for
    by default and stored as REAN-SFC-HOURLY rainfall_mm; -999 stays missing."""
    query = parse_qs(urlsplit(nasa_power.daily_url(12.875, 77.625, dt.date(2026, 7, 1), dt.date(2026, 7, 3))).query)
    assert query["parameters"] == ["T2M_MAX,WS10M_MAX,PRECTOTCORR"] and query["time-standard"] == ["LST"]
    # POWER's CSV answer as the recorded ones lay it out (header block, then YEAR,DOY rows)
    body = ("-BEGIN HEADER-\r\nNASA/POWER Source Native Resolution Daily Data \r\n"
            "The value for missing source data that cannot be computed or is outside of the sources availability range: -999 \r\n"
            "parameter(s): \r\nT2M_MAX     MERRA-2 Temperature at 2 Meters Maximum (C) \r\n"
            "PRECTOTCORR MERRA-2 Precipitation Corrected (mm/day) \r\n-END HEADER-\r\n"
            "YEAR,DOY,T2M_MAX,PRECTOTCORR\r\n2026,182,29.1,14.37\r\n2026,183,28.4,-999\r\n2026,184,-999,0.0\r\n")
    rows = nasa_power.parse_csv(body, "T1")
    assert [(r.data_set, r.variable, r.day, r.value) for r in rows] == [
        ("REAN-SFC-HOURLY", "temperature_c", dt.date(2026, 7, 1), Decimal("29.1")),
        ("REAN-SFC-HOURLY", "rainfall_mm", dt.date(2026, 7, 1), Decimal("14.37")),
        ("REAN-SFC-HOURLY", "temperature_c", dt.date(2026, 7, 2), Decimal("28.4")),
        ("REAN-SFC-HOURLY", "rainfall_mm", dt.date(2026, 7, 3), Decimal(0)),
    ]


def test_nasa_power_answers_by_month_and_day_are_read():
    """The `sb` community answers YEAR,MO,DY rows (recorded); they were read as YEAR,DOY (KeyError)."""
    interaction = json.loads((FIXTURES / "nasapower_vcr_daily_sb_point_LST.json").read_text())["http_interactions"][0]
    rows = nasa_power.parse_csv(interaction["response"]["body"]["string"], "T1")
    assert [(r.variable, r.day, r.value) for r in rows] == [("temperature_c", dt.date(1983, 1, 1), Decimal("-24.88"))]


async def test_the_simulated_feed_is_deterministic_labelled_and_valid(database):
    from activities.observations import _site_model
    from activities.providers.simulated import SimulatedProvider
    from models.domain.observations import check_batch

    provider = SimulatedProvider(_site_model)
    rows = await provider.fetch([BENGALURU], dt.date(2025, 7, 1), dt.date(2025, 7, 31))
    again = await provider.fetch([BENGALURU], dt.date(2025, 7, 1), dt.date(2025, 7, 31))
    assert rows == again  # the same values every run: re-running the feed changes nothing
    assert all(r.simulated and r.source.startswith("simulated") for r in rows)
    assert check_batch(rows, today=dt.date(2026, 1, 1), max_rows=None) == []
    kinds = {(r.data_set, r.variable, r.hour is None) for r in rows}
    # heat and wind in the data sets covers settle on now and in the reanalysis of those sold
    # before; rainfall in the reanalysis too (the fallback rung of IMD's rainfall)
    assert kinds == {("IMD-RF-DAILY", "rainfall_mm", True), ("REAN-SFC-HOURLY", "temperature_c", True),
                     ("REAN-SFC-HOURLY", "wind_kmh", True), ("IMD-RF-HOURLY", "rainfall_mm", False),
                     ("IMD-TMAX-1DEG", "temperature_c", True), ("IBTRACS-WIND", "wind_kmh", True),
                     ("REAN-SFC-HOURLY", "rainfall_mm", True)}
    assert not any(r.provisional for r in rows)  # July 2025's archive is long out
    daily = [r for r in rows if r.data_set == "IMD-RF-DAILY"]
    assert len(daily) == 31 and sum(r.value for r in daily) > 0  # July in Bengaluru is wet
    part = await provider.fetch([BENGALURU], dt.date(2025, 7, 10), dt.date(2025, 7, 12))
    assert [r for r in rows if dt.date(2025, 7, 10) <= r.day <= dt.date(2025, 7, 12)] == part  # any window, same values


async def test_the_simulated_feed_is_provisional_first_then_final_with_a_fallback_to_calibrate(database, tmp_path):
    """Issue 34: the simulated real-time product gives provisional values of IMD's data sets
    the next day; the month's archive (published after ARCHIVE_LAG_DAYS, or at once by the
    demo) gives the final ones, which revise them; the reanalysis rainfall (the fallback rung)
    follows the same path with its own noise, so two months of overlap fit a calibration with
    an error to state. On the old feed every value was final and the reanalysis had no rain."""
    from activities.observations import _site_model
    from activities.providers.simulated import SimulatedProvider
    from models.domain.observations import check_batch
    from models.domain.settlement_basis import MIN_PAIRS, fit_calibration
    from models.domain.simulated_archive import ARCHIVE_LAG_DAYS, publish

    july = (dt.date(2025, 7, 1), dt.date(2025, 7, 31))
    laddered = {"IMD-RF-DAILY", "IMD-TMAX-1DEG", "IBTRACS-WIND"}
    real_time = await SimulatedProvider(_site_model, tmp_path, today=dt.date(2025, 8, 1)).fetch([BENGALURU], *july)
    primary = {r.key: r for r in real_time if r.data_set in laddered}
    assert len(primary) == 3 * 31 and all(r.provisional for r in primary.values())
    assert all(not r.provisional for r in real_time if r.data_set == "IMD-RF-HOURLY")  # no ladder: as reported
    assert check_batch(real_time, today=dt.date(2025, 8, 1), max_rows=None) == []
    fallback = {r.day: r for r in real_time if r.data_set == "REAN-SFC-HOURLY" and r.variable == "rainfall_mm"}
    assert [d.day for d, r in sorted(fallback.items()) if r.provisional] == list(range(26, 32))  # ERA5T: younger than 7 days

    publish(tmp_path, 2025, 7)  # the demo's archive step
    archived = await SimulatedProvider(_site_model, tmp_path, today=dt.date(2025, 8, 1)).fetch([BENGALURU], *july)
    final = {r.key: r for r in archived if r.data_set in laddered}
    assert final.keys() == primary.keys() and not any(r.provisional for r in final.values())
    rain = [k for k in final if k.startswith(f"{BENGALURU.id}|IMD-RF-DAILY")]
    assert sum(final[k].value != primary[k].value for k in rain) > 10  # the archive revises the real-time values
    # the archive comes by itself ARCHIVE_LAG_DAYS after the month, with the same values
    later = await SimulatedProvider(_site_model, None, today=july[1] + dt.timedelta(days=ARCHIVE_LAG_DAYS)).fetch([BENGALURU], *july)
    assert {r.key: r for r in later if r.data_set in laddered} == final
    before = await SimulatedProvider(_site_model, None, today=july[1] + dt.timedelta(days=ARCHIVE_LAG_DAYS - 1)).fetch([BENGALURU], *july)
    assert {r.key: r for r in before if r.data_set in laddered} == primary  # and not a day before
    assert [(r.key, r.value) for r in before] == [(r.key, r.value) for r in real_time]  # (the reanalysis is the reanalysis)

    # the overlap: June and July, final IMD beside the reanalysis, fit a calibration with an error
    history = await SimulatedProvider(_site_model, None, today=dt.date(2025, 10, 1)).fetch([BENGALURU], dt.date(2025, 6, 1), july[1])
    imd = {r.day: r.value for r in history if r.data_set == "IMD-RF-DAILY"}
    era5 = {r.day: r.value for r in history if r.data_set == "REAN-SFC-HOURLY" and r.variable == "rainfall_mm"}
    calibration = fit_calibration([(d, era5[d], imd[d]) for d in sorted(imd)], "REAN-SFC-HOURLY", "target")
    assert calibration is not None and calibration.pairs == 61 >= MIN_PAIRS
    assert Decimal("0.5") < calibration.slope < Decimal("1.5") and Decimal(0) < calibration.sigma < Decimal(15)


def test_the_simulated_feed_asks_for_the_calibration_overlap_before_open_periods():
    """The simulated run fills open periods (at most 62 days back) and the 62 days before
    them: final primary values beside the fallback's, the overlap a calibration needs (>= 30
    days). The old run started at the open period: a fallback never had a calibration."""
    from activities.observations import feed_window

    today = dt.date(2026, 11, 29)
    assert feed_window("simulated", today, 10, dt.date(2026, 10, 1)) == (dt.date(2026, 7, 31), dt.date(2026, 11, 28))
    assert feed_window("simulated", today, 10, dt.date(2026, 1, 1)) == (dt.date(2026, 7, 28), dt.date(2026, 11, 28))
    # a period that began yesterday gets its overlap at once; one still to come, nothing yet
    assert feed_window("simulated", today, 10, dt.date(2026, 11, 28)) == (dt.date(2026, 9, 27), dt.date(2026, 11, 28))
    assert feed_window("simulated", today, 10, today)[0] == today > feed_window("simulated", today, 10, today)[1]
    assert feed_window("open-meteo", today, 10, dt.date(2026, 10, 1)) == (dt.date(2026, 11, 19), dt.date(2026, 11, 28))


def test_demo_rainfall_sums_exactly_and_passes_the_flat_line_check():
    """`demo settle --rain-mm`: the month's total to the 0.1 mm over uneven days, the same in
    the real-time product, its reanalysis and the archive. The old demo spread it evenly: the
    same non-zero value every day, which the flat-line check holds SUSPECT (never paid), so the
    demo's INITIAL payment would have waited for the calculation deadline."""
    from models.db.demo import demo_rainfall
    from models.domain.quality_checks import (
        FLAT_LINE,
        THRESHOLDS,
        Context,
        failed_check,
    )

    start, end = dt.date(2026, 10, 1), dt.date(2026, 10, 31)
    real_time = demo_rainfall(BENGALURU.id, start, end, Decimal(420), final=False)
    archive = demo_rainfall(BENGALURU.id, start, end, Decimal(420), final=True)
    imd = [r for r in real_time if r.data_set == "IMD-RF-DAILY"]
    era5 = [r for r in real_time if r.data_set == "REAN-SFC-HOURLY"]
    assert len(imd) == len(era5) == len(archive) == 31
    assert sum(r.value for r in imd) == Decimal(420) and all(r.provisional for r in imd)
    assert [(r.day, r.value) for r in archive] == [(r.day, r.value) for r in imd] == [(r.day, r.value) for r in era5]
    assert not any(r.provisional for r in archive) and all(r.simulated and r.value >= 0 for r in real_time + archive)
    assert demo_rainfall(BENGALURU.id, start, end, Decimal(420), final=False) == real_time  # repeatable
    flat = THRESHOLDS[("IMD-RF-DAILY", "rainfall_mm")].flat_days
    values = [r.value for r in imd]
    assert all(failed_check("IMD-RF-DAILY", "rainfall_mm", v, Context(before=tuple(values[max(0, i - flat):i]))) is None
               for i, v in enumerate(values))
    even = Decimal(420) / 31
    assert failed_check("IMD-RF-DAILY", "rainfall_mm", even, Context(before=(even,) * flat)) == FLAT_LINE  # the old spread


def test_a_source_longer_than_its_column_is_refused_and_the_simulated_ones_fit():
    """`observation.source` is Varchar(50): PostgreSQL refused the simulated real-time
    product's 61-character source mid-run (`demo settle` waited for ever there, SQLite kept
    it). A batch is refused naming `source` instead, before anything is written, and the
    simulated feed's sources fit."""
    from dataclasses import replace

    from activities.providers.simulated import FALLBACK_SOURCE, REAL_TIME_SOURCE, SOURCE
    from models.domain.observations import MAX_SOURCE, ObservationIn, check_batch

    assert all(len(s) <= MAX_SOURCE for s in (SOURCE, REAL_TIME_SOURCE, FALLBACK_SOURCE))
    row = ObservationIn("IN-12.875N-077.625E", "IMD-RF-DAILY", "rainfall_mm", dt.date(2026, 7, 1), None, Decimal(1), "x" * 51)
    [problem] = check_batch([row], dt.date(2026, 11, 29))
    assert (problem.row, problem.field) == (0, "source") and "50" in problem.message
    assert check_batch([replace(row, source="x" * 50)], dt.date(2026, 11, 29)) == []
