"""Heat and wind covers settle on what they are priced on (issue 26, finding 2).

Heat and wind were priced on IMD's 1° maximum-temperature grid and IBTrACS tracks and settled
on reanalysis fields (`REAN-SFC-HOURLY`). Covers created from pricing-2026.4.0 on settle on
the pricing products themselves: the target's IMD 1° cell (`IMD-TMAX-1DEG`) and the wind the
pricing's own field gives at the target from the storm's track (`IBTRACS-WIND`); the covers
sold before keep the reanalysis. Checked here with the real settlement activity on the test
database: a heat cover the catalogue creates settles on its cell's values (reanalysis rows do
not settle it); a wind cover settles on the track wind a constructed storm brings, exactly
what the pricing's wind field says; an old coverage keeps settling on the reanalysis. Also
the providers' parsers (IMD's temperature grids written in its binary layout, track files),
the validation of the new data sets, and the documents naming both data sets."""

from __future__ import annotations

import dataclasses
import datetime as dt
import io
import re
import uuid
from decimal import Decimal

import msgspec
import numpy as np
import pypdf
import pytest
from temporalio.testing import ActivityEnvironment

from activities.providers import ibtracs, imd_grid
from activities.providers.base import Target
from activities.settlement import settle_period
from models.clock import utcnow
from models.db import observations as observations_db
from models.db.catalogue import coverage_row, create_coverages, site_of
from models.db.core import insert_rows, write_transaction
from models.db.tables import Coverage, LineItem, MonitoringTarget, Observation, ParametricEvent, Policy, PolicyItem
from models.domain.index_catalog import BY_CODE
from models.domain.observations import ObservationIn, check_batch
from models.domain.payout import linear_payout_exact
from models.domain.quotes import CoverSnapshot
from models.domain.terms import CoverageSlot, CoverTerms, ProposedTerms
from models.temporal.settlement import SettlePeriodInput

HEAT, WIND = "TEMPERATURE_MAX", "WIND_MAX_SPEED"
LIMIT_MINOR = 10_000_000  # 100,000 INR a unit of cover
QUANTITY = Decimal("2.5")
# Heat: 10,000 at 40 °C, 20,000 per °C beyond, the limit from 44.5 °C. Wind: 10,000 at 100
# km/h, 2,000 per km/h beyond, the limit from 145 km/h.
TERMS = {
    HEAT: dict(direction="ABOVE", trigger=Decimal("40"), exit=Decimal("44.5"), payout_per_unit=Decimal("20000")),
    WIND: dict(direction="ABOVE", trigger=Decimal("100"), exit=Decimal("145"), payout_per_unit=Decimal("2000")),
}


def _month_before_last() -> tuple[dt.date, dt.date]:
    end = (dt.date.today().replace(day=1) - dt.timedelta(days=1)).replace(day=1) - dt.timedelta(days=1)
    return end.replace(day=1), end


def _days(start: dt.date, end: dt.date) -> list[dt.date]:
    return [start + dt.timedelta(days=i) for i in range((end - start).days + 1)]


async def _free_target() -> dict:
    used = {r["monitoring_target_id"] for r in await Coverage.select(Coverage.monitoring_target_id)}
    used |= {r["monitoring_target_id"] for r in await Observation.select(Observation.monitoring_target_id).distinct()}
    rows = await MonitoringTarget.select(MonitoringTarget.id, MonitoringTarget.latitude, MonitoringTarget.longitude).order_by(
        MonitoringTarget.id
    )
    return next(r for r in rows if r["id"] not in used and 10 < r["latitude"] < 25)


async def _catalogue_coverage(target: str, code: str, start: dt.date, end: dt.date):
    """A coverage as the catalogue created one from pricing-2026.4.0 until the source ladder
    (issue 34): the data set it settles on recorded, no settlement basis (final values only,
    on that data set). Those created since carry a basis and settle on its ladder, where the
    calibrated reanalysis is a declared fallback rung (tests/test_settlement_ladder_*)."""
    t = TERMS[code]
    proposal = ProposedTerms(
        slot=CoverageSlot(index_code=code, start=start, end=end), viable=True, reason="", direction=t["direction"],
        trigger=t["trigger"], exit=t["exit"], limit=Decimal(100_000), min_payout=Decimal(10_000),
        payout_per_unit=t["payout_per_unit"], currency="INR", trigger_probability=0.1,
    )
    [planned] = await create_coverages(await site_of(target), [proposal], "test", "test", Decimal("0.65"), 1000)
    await Coverage.update({Coverage.settlement_basis: None}).where(Coverage.id == planned.coverage_id)
    return await coverage_row(planned.coverage_id)


async def _old_coverage(target: str, code: str, start: dt.date, end: dt.date) -> uuid.UUID:
    """A coverage as it was written before pricing-2026.4.0: no data set recorded."""
    now, t = utcnow(), TERMS[code]
    coverage_id = uuid.uuid4()
    await insert_rows([Coverage(
        id=coverage_id, monitoring_target_id=target, index_definition_id=BY_CODE[code].id, risk_period_start=start,
        risk_period_end=end, risk_carrier="test", currency="INR", direction=t["direction"], trigger=t["trigger"],
        exit=t["exit"], limit_minor=LIMIT_MINOR, min_payout_minor=1_000_000, payout_per_unit_minor=int(t["payout_per_unit"] * 100),
        expected_loss_ratio=Decimal("0.65"), created_by="test", created_at=now, updated_at=now,
    )])
    return coverage_id


def _snapshot(row) -> CoverSnapshot:
    """The cover frozen into the quote and policy, as the catalogue surface freezes it."""
    from api.catalogue.service import snapshot

    return snapshot(row)


def _old_snapshot(coverage_id: uuid.UUID, code: str, start: dt.date, end: dt.date) -> dict:
    """A snapshot as frozen before the data set was kept (its JSON has no data set)."""
    t = TERMS[code]
    cover = CoverSnapshot(
        coverage_id=coverage_id, index_code=code, index_definition_id=BY_CODE[code].id, start=start, end=end,
        direction=t["direction"], trigger=t["trigger"], exit=t["exit"], currency="INR", limit_minor=LIMIT_MINOR,
        min_payout_minor=1_000_000, payout_per_unit_minor=int(t["payout_per_unit"] * 100),
        gross_premium_pct=Decimal("0.015"), risk_premium_pct=Decimal("0.01"), pricing_version=1,
    )
    frozen = msgspec.to_builtins(cover)
    frozen.pop("data_set")
    return frozen


async def _policy(target: str, start: dt.date, end: dt.date, covers: list[dict]) -> uuid.UUID:
    """An active policy of a tenant over the past month holding the covers (written as the
    demo's is: cover is never sold once its period has begun)."""
    now = utcnow()
    tenant, policy_id, item_id = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    async with write_transaction():
        await insert_rows([Policy(
            id=policy_id, tenant_id=tenant, quote_id=uuid.uuid4(), kind="TENANT", name="data sets", status="ACTIVE",
            inception_date=start, expiry_date=end, currency="INR", total_sum_insured_minor=25_000_000,
            gross_premium_minor=0, activated_at=dt.datetime.combine(start, dt.time(0), tzinfo=dt.timezone.utc) - dt.timedelta(days=1),
            signature_confirmed=True, created_at=now, updated_at=now,
        )])
        await insert_rows([LineItem(
            id=item_id, tenant_id=tenant, policy_id=policy_id, position=0, name=f"{start:%b %Y}", period_start=start,
            period_end=end, currency="INR", quantity=QUANTITY, sum_insured_minor=25_000_000,
            total_sum_insured_minor=25_000_000, min_payout_minor=0, payout_per_unit_minor=0, premium_minor=0, covers=covers,
        )])
        await insert_rows([PolicyItem(
            id=uuid.uuid5(item_id, c["coverage_id"] if isinstance(c["coverage_id"], str) else str(c["coverage_id"])),
            tenant_id=tenant, policy_id=policy_id, coverage_id=uuid.UUID(str(c["coverage_id"])), name=c["index_code"],
            quantity=QUANTITY, currency="INR", sum_insured_minor=LIMIT_MINOR, total_sum_insured_minor=25_000_000,
            total_min_payout_minor=0,
        ) for c in covers])
    return policy_id


async def _settle(target: str, start: dt.date, end: dt.date):
    return await ActivityEnvironment().run(
        settle_period, SettlePeriodInput(target_id=target, start=start, end=end, at=utcnow())
    )


async def _events(policy_id: uuid.UUID) -> list[dict]:
    return await ParametricEvent.select().where(ParametricEvent.policy_id == policy_id)


def _paid_minor(code: str, index: Decimal) -> int:
    t = TERMS[code]
    per_unit = linear_payout_exact(index, direction="ABOVE", trigger=t["trigger"], payout_per_unit=t["payout_per_unit"],
                                   limit=Decimal(100_000), min_payout=Decimal(10_000), exit=t["exit"])
    return int(per_unit * QUANTITY * 100)


# --- heat ----------------------------------------------------------------------------------------


async def test_a_heat_cover_created_now_settles_on_its_imd_cell_not_on_the_reanalysis(database):
    target = await _free_target()
    start, end = _month_before_last()
    row = await _catalogue_coverage(target["id"], HEAT, start, end)
    assert row.data_set == "IMD-TMAX-1DEG"  # the catalogue records what it settles on
    cover = _snapshot(row)
    assert cover.data_set == "IMD-TMAX-1DEG"  # and the quote and policy freeze it
    policy_id = await _policy(target["id"], start, end, [msgspec.to_builtins(cover)])
    days = _days(start, end)
    # The reanalysis says 45 °C every day (the old data set would pay the limit): it does not
    # settle this cover, which waits for its own data.
    await observations_db.store_batch([ObservationIn(target["id"], "REAN-SFC-HOURLY", "temperature_c", d, None, Decimal(45), "ERA5") for d in days])
    waiting = await _settle(target["id"], start, end)
    assert [c.state for c in waiting.coverages] == ["WAITING"] and "no value for" in waiting.coverages[0].detail
    assert await _events(policy_id) == []
    # The cell's IMD values: 38 °C but 41.25 °C on one day.
    peak = days[len(days) // 2]
    await observations_db.store_batch([
        ObservationIn(target["id"], "IMD-TMAX-1DEG", "temperature_c", d, None, Decimal("41.25") if d == peak else Decimal(38), "IMD")
        for d in days
    ])
    settled = await _settle(target["id"], start, end)
    assert [(c.state, c.index_value) for c in settled.coverages] == [("SETTLED", Decimal("41.25"))]
    [event] = await _events(policy_id)
    assert event["data_set"] == "IMD-TMAX-1DEG" and Decimal(event["index_value"]) == Decimal("41.25")
    assert event["payout_minor"] == _paid_minor(HEAT, Decimal("41.25")) == 8_750_000  # 2.5 × (10,000 + 1.25 × 20,000)
    # The claim report names the data set the event was settled on.
    from activities.document_inputs import claim_report_input
    from reports.render import render_claim_report

    claim = await claim_report_input(str(event["tenant_id"]), event["id"])
    assert claim.data_set == "IMD-TMAX-1DEG" and "IMD 1° gridded daily maximum temperature" in claim.data_set_description
    text = _text(render_claim_report(claim))
    assert "IMD-TMAX-1DEG" in text and "1° gridded daily maximum temperature" in text


async def test_an_old_heat_coverage_keeps_settling_on_the_reanalysis(database):
    target = await _free_target()
    start, end = _month_before_last()
    coverage_id = await _old_coverage(target["id"], HEAT, start, end)
    policy_id = await _policy(target["id"], start, end, [_old_snapshot(coverage_id, HEAT, start, end)])
    days = _days(start, end)
    await observations_db.store_batch([ObservationIn(target["id"], "IMD-TMAX-1DEG", "temperature_c", d, None, Decimal(30), "IMD") for d in days])
    assert [c.state for c in (await _settle(target["id"], start, end)).coverages] == ["WAITING"]
    await observations_db.store_batch([ObservationIn(target["id"], "REAN-SFC-HOURLY", "temperature_c", d, None, Decimal("42.5"), "ERA5") for d in days])
    settled = await _settle(target["id"], start, end)
    assert [(c.state, c.index_value) for c in settled.coverages] == [("SETTLED", Decimal("42.5"))]
    [event] = await _events(policy_id)
    assert event["data_set"] == "REAN-SFC-HOURLY" and event["payout_minor"] == _paid_minor(HEAT, Decimal("42.5"))


# --- wind ----------------------------------------------------------------------------------------


def _storm_csv(storm_id: str, fixes: list[tuple[dt.datetime, float, float, float]]) -> str:
    """A track file in the record's columns (wind in knots)."""
    lines = ["DATETIME,CAT,CS_ID,LAT,LON,MSWS,ORIGIN_BASIN"]
    for when, lat, lon, knots in fixes:
        lines.append(f"{when:%Y-%m-%d %H:%M:%S},SCS,{storm_id},{lat:.2f},{lon:.2f},{knots:g},BOB")
    return "\n".join(lines) + "\n"


def _crossing(target: dict, day: dt.date, offset_deg: float = 0.4, knots: float = 81.0):
    """A storm moving north past the target, `offset_deg` of longitude east of it, 6-hourly
    fixes over two days, crossing the target's latitude at 00 UTC of `day`."""
    t0 = dt.datetime.combine(day, dt.time(0))
    return [(t0 + dt.timedelta(hours=h), round(target["latitude"] + h * 0.05, 2), round(target["longitude"] + offset_deg, 2),
             knots) for h in range(-24, 25, 6)]


async def test_a_wind_cover_settles_on_the_track_wind_the_price_uses(database, tmp_path):
    from activities.pricing.climate_data import KNOT_KMH, CycloneTracks
    from activities.pricing.wind import target_events

    target = await _free_target()
    start, end = _month_before_last()
    row = await _catalogue_coverage(target["id"], WIND, start, end)
    assert row.data_set == "IBTRACS-WIND"
    policy_id = await _policy(target["id"], start, end, [msgspec.to_builtins(_snapshot(row))])
    # The reanalysis has calm days (and would pay nothing): it does not settle this cover.
    days = _days(start, end)
    await observations_db.store_batch([ObservationIn(target["id"], "REAN-SFC-HOURLY", "wind_kmh", d, None, Decimal(20), "ERA5") for d in days])
    assert [c.state for c in (await _settle(target["id"], start, end)).coverages] == ["WAITING"]
    # A storm passes 0.4° east of the target mid-month; the best track of its season.
    fixes = _crossing(target, days[14])
    (tmp_path / f"ibtracs_ni_{start.year}-{start.year}.csv").write_text(_storm_csv("TEST01", fixes))
    rows = await ibtracs.IbtracsProvider(tmp_path).fetch(
        [Target(target["id"], target["latitude"], target["longitude"])], start, end
    )
    assert len(rows) == len(days) and not any(r.provisional for r in rows)
    await observations_db.store_batch(rows)
    # What the pricing's wind model makes of the same track: its peak at the target.
    hours = np.array([float(np.datetime64(f[0], "h").astype(np.int64)) for f in fixes])
    tracks = CycloneTracks(
        storm=np.zeros(len(fixes), dtype=np.int64), hours=hours, lat=np.array([f[1] for f in fixes]),
        lon=np.array([f[2] for f in fixes]), wind_kmh=np.array([f[3] * KNOT_KMH for f in fixes]),
        first_year=start.year, last_year=start.year,
    )
    [event_of_price] = target_events(tracks, target["latitude"], target["longitude"])
    expected = Decimal(f"{event_of_price.peak_kmh:.1f}")
    assert Decimal(100) < expected < Decimal(145)  # between trigger and exit: the payout says which wind
    settled = await _settle(target["id"], start, end)
    assert [(c.state, c.index_value) for c in settled.coverages] == [("SETTLED", expected)]
    [event] = await _events(policy_id)
    assert event["data_set"] == "IBTRACS-WIND"
    assert event["payout_minor"] == _paid_minor(WIND, expected) > 0
    by_day = {r.day: r.value for r in rows}
    assert by_day[days[0]] == 0 and max(by_day.values()) == expected  # no storm: no cyclone wind


# --- providers -----------------------------------------------------------------------------------


def _tmax_file(days: list[dict[tuple[int, int], float]], n: int) -> bytes:
    """Days of IMD's temperature layout: float32 little-endian, (day, n latitudes, n longitudes), 99.9 elsewhere."""
    grid = np.full((len(days), n, n), 99.9, dtype="<f4")
    for k, cells in enumerate(days):
        for (i, j), v in cells.items():
            grid[k, i, j] = v
    return grid.tobytes()


async def test_imd_temperature_files_give_the_value_of_the_cell_the_price_is_fitted_on(tmp_path):
    from activities.pricing import load_climate_data
    from activities.pricing.temperature import fit_temperature_model
    from models.settings import DATA_DIR

    chennai = Target("IN-13.125N-080.125E", 13.125, 80.125)
    heat = load_climate_data(DATA_DIR).heat
    priced_cell = fit_temperature_model(heat, chennai.latitude, chennai.longitude).cell_id
    cells = imd_grid.TmaxCells.read()
    name, lat, lon = cells.of(chennai)
    assert name == priced_cell == "13.5N_80.5E"  # the price's cell, by the one shared function
    # 1° archive: row (13.5 - 7.5) / 1 = 6, column (80.5 - 67.5) / 1 = 13; 0.5° real time: 12, 26.
    year = [{(6, 13): 30.0 + (d % 10) / 4, (6, 12): 50.0} for d in range(365)]
    year[40] = {}  # a day without data
    (tmp_path / "Maxtemp_MaxT_2025.GRD").write_bytes(_tmax_file(year, 31))
    (tmp_path / "max09022025.grd").write_bytes(_tmax_file([{(12, 26): 35.55}], 61))  # the archive has 9 Feb
    (tmp_path / "max10022025.grd").write_bytes(_tmax_file([{(12, 26): 33.33}], 61))  # the archive lacks 10 Feb
    (tmp_path / "max01012026.grd").write_bytes(_tmax_file([{(12, 26): 29.87, (12, 27): 45.0}], 61))  # not archived yet
    assert imd_grid.tmax_file_days("Maxtemp_MaxT_2025.GRD") == (dt.date(2025, 1, 1), True)
    assert imd_grid.tmax_file_days("max01012026.grd") == (dt.date(2026, 1, 1), False)
    with pytest.raises(ValueError):
        imd_grid.read_tmax_grid(_tmax_file([{}], 31)[:-4], final=True)
    with pytest.raises(ValueError):
        imd_grid.read_tmax_grid(_tmax_file([{}, {}], 61), final=False)  # a real-time file is one day
    rows = await imd_grid.ImdGridProvider(tmp_path, cells).fetch([chennai], dt.date(2025, 2, 9), dt.date(2026, 1, 1))
    got = {r.day: (r.value, r.provisional) for r in rows}
    assert all(r.data_set == "IMD-TMAX-1DEG" and r.variable == "temperature_c" for r in rows)
    assert len(got) == len(rows) == 327  # 9 Feb - 31 Dec 2025, and 1 Jan 2026
    assert got[dt.date(2025, 2, 9)] == (Decimal("32.25"), False)  # the final archive wins over the real-time value
    assert got[dt.date(2025, 2, 10)] == (Decimal("33.33"), True)  # no archive value: the real-time one, provisional
    assert got[dt.date(2025, 2, 11)] == (Decimal("30.25"), False)
    assert got[dt.date(2026, 1, 1)] == (Decimal("29.87"), True)  # provisional until the year's archive comes
    assert check_batch(rows, today=dt.date(2026, 1, 2), max_rows=None) == []


async def test_a_track_file_gives_every_covered_day_a_value_provisional_until_the_best_track(tmp_path):
    target = {"latitude": 17.7, "longitude": 83.3}
    vizag = Target("T", 17.7, 83.3)
    day = dt.date(2026, 10, 12)
    fixes = _crossing(target, day, offset_deg=0.0, knots=100.0)  # straight over the target
    operational = _storm_csv("OPS01", [(w, la, lo, k - 10) for w, la, lo, k in fixes])
    (tmp_path / "ibtracs_ni_provisional_2026-10-01_2026-10-20.csv").write_text(operational)
    assert ibtracs.file_days("ibtracs_ni_provisional_2026-10-01_2026-10-20.csv") == (dt.date(2026, 10, 1), dt.date(2026, 10, 20), False)
    assert ibtracs.file_days("ibtracs_north_indian_ocean_1982-2023.csv") == (dt.date(1982, 1, 1), dt.date(2023, 12, 31), True)
    assert ibtracs.file_days("notes.txt") is None
    rows = await ibtracs.IbtracsProvider(tmp_path).fetch([vizag], dt.date(2026, 10, 5), dt.date(2026, 10, 25))
    assert [r.day for r in rows] == _days(dt.date(2026, 10, 5), dt.date(2026, 10, 20))  # what the file covers
    assert all(r.provisional for r in rows)
    assert max(r.value for r in rows) == Decimal(f"{90 * 1.852:.1f}")  # the eye passes over: the fix's wind
    # The season's best track (100 kt) revises them: final, and it wins.
    (tmp_path / "ibtracs_ni_2026-2026.csv").write_text(_storm_csv("BT01", fixes))
    rows = await ibtracs.IbtracsProvider(tmp_path).fetch([vizag], dt.date(2026, 10, 5), dt.date(2026, 10, 25))
    assert [r.day for r in rows] == _days(dt.date(2026, 10, 5), dt.date(2026, 10, 25)) and not any(r.provisional for r in rows)
    assert max(r.value for r in rows) == Decimal(f"{100 * 1.852:.1f}")
    assert check_batch(rows, today=dt.date(2026, 11, 1), max_rows=None) == []


def test_validation_takes_the_new_data_sets_with_their_variables():
    day = dt.date(2026, 5, 1)
    good = [ObservationIn("T", "IMD-TMAX-1DEG", "temperature_c", day, None, Decimal("44.2"), "IMD"),
            ObservationIn("T", "IBTRACS-WIND", "wind_kmh", day, None, Decimal("0"), "IBTrACS"),
            ObservationIn("T", "REAN-SFC-HOURLY", "temperature_c", day, None, Decimal("40"), "ERA5")]
    assert check_batch(good, today=day) == []
    bad = [ObservationIn("T", "IMD-TMAX-1DEG", "wind_kmh", day, None, Decimal(1), "IMD"),
           ObservationIn("T", "IBTRACS-WIND", "wind_kmh", day, 3, Decimal(1), "IBTrACS"),
           ObservationIn("T", "IMD-TMAX-1DEG", "temperature_c", day, None, Decimal(75), "IMD")]
    assert [(p.row, p.field) for p in check_batch(bad, today=day)] == [(0, "variable"), (1, "hour"), (2, "value")]


# --- documents -----------------------------------------------------------------------------------


def _text(pdf: bytes) -> str:
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    return " ".join(" ".join((p.extract_text() or "").replace("\u00a0", " ") for p in reader.pages).split())


def _heat_terms(data_set: str) -> CoverTerms:
    t = TERMS[HEAT]
    return CoverTerms(index_code=HEAT, start=dt.date(2027, 5, 1), end=dt.date(2027, 5, 31), direction="ABOVE",
                      trigger=t["trigger"], exit=t["exit"], limit=Decimal(100_000), min_payout=Decimal(10_000),
                      payout_per_unit=t["payout_per_unit"], currency="INR", data_set=data_set)


@pytest.mark.parametrize("data_set", ["IMD-TMAX-1DEG", "REAN-SFC-HOURLY"])
def test_fact_sheet_and_technical_report_name_the_settlement_and_pricing_data(data_set):
    from activities.document_inputs import cover_facts
    from reports import render_fact_sheet, render_technical_pricing_report
    from tests.document_samples import samples

    target = {"id": "IN-28.625N-077.125E", "name": "New Delhi", "latitude": 28.625, "longitude": 77.125}
    facts = cover_facts(_heat_terms(data_set), coverage_id=uuid.uuid4(), premium_pct=Decimal("0.05"), target=target,
                        cell="28.5N_77.5E")
    sheet = samples.sample_fact_sheet_input()
    report = samples.sample_technical_pricing_report_input()
    fact_text = _text(render_fact_sheet(dataclasses.replace(sheet, cover=dataclasses.replace(sheet.cover, data_basis=facts.data_basis))))
    tech_text = _text(render_technical_pricing_report(
        dataclasses.replace(report, cover=dataclasses.replace(report.cover, data_basis=facts.data_basis))
    ))
    # The fact sheet: what the cover is paid on and priced on, and the mapping, in a line.
    assert f"Paid on {data_set}" in fact_text and "priced on IMD-TMAX-1DEG" in fact_text
    # The technical report: the settlement data set, when its values are final, the pricing
    # data set and the mapping in full.
    assert f"Settles on {data_set}" in tech_text and "Priced on IMD-TMAX-1DEG" in tech_text
    assert "cell 28.5N_77.5E" in tech_text
    if data_set == "IMD-TMAX-1DEG":
        assert "the same data, the same 1° cell (28.5N_77.5E)" in fact_text
        assert "final when IMD publishes the year's quality-controlled archive" in fact_text
        assert "identity: cell 28.5N_77.5E of the same IMD 1° grid" in tech_text
        assert "Maxtemp_MaxT_" in tech_text
    else:
        assert "no mapping to the settlement data could be fitted (basis risk)" in fact_text
        assert "none fitted" in tech_text and "ERA5" in tech_text
