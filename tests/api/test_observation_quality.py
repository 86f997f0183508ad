"""Quality checks on every stored value, over HTTP and the direct store (issue 34;
docs/observations.md, "Quality checks"): a value a check fails is stored SUSPECT naming the
check (range, flat line, neighbours, spike), a replay changes nothing, the month's list shows
them to data and operations staff, and a data staff member's acceptance stores the value
again as GOOD naming the check accepted and who accepted it. Each fails on the old code,
which stored every value as sent."""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal

from models.db import observations as observations_db
from models.db.tables import MonitoringTarget, Observation
from models.domain.observations import ObservationIn
from models.domain.quality_checks import SPIKE_MIN_RECORD, distance_km, one_in_1000
from tests.conftest import assert_problem

URL = "/internal/observations"


def _day() -> dt.date:
    """A day of its own in the past (no other test stores there)."""
    return dt.date(2010, 1, 10) + dt.timedelta(days=uuid.uuid4().int % 4000)  # other tests: 2001-2009, now


def obs(target: str, day: dt.date, value, **changes) -> dict:
    row = {"monitoringTargetId": target, "dataSet": "IMD-RF-DAILY", "variable": "rainfall_mm", "day": day.isoformat(),
           "value": value, "source": "IMD"}
    return row | changes


async def _latest(target: str, day: dt.date) -> dict:
    return await Observation.select(
        Observation.value, Observation.quality, Observation.quality_check, Observation.revision,
        Observation.submitted_by, Observation.approved_by, Observation.reason,
    ).where(Observation.obs_key == f"{target}|IMD-RF-DAILY|rainfall_mm|{day.isoformat()}|").order_by(
        Observation.revision, ascending=False
    ).first()


async def _target_with_neighbours() -> tuple[str, list[str]]:
    rows = await MonitoringTarget.select(MonitoringTarget.id, MonitoringTarget.latitude, MonitoringTarget.longitude)
    for r in sorted(rows, key=lambda r: r["id"]):
        near = [o["id"] for o in rows if o["id"] != r["id"]
                and distance_km(r["latitude"], r["longitude"], o["latitude"], o["longitude"]) <= 40]
        if len(near) >= 3:
            return r["id"], near[:3]
    raise AssertionError("no target with three neighbours within 40 km")


async def _listed(staff, day: dt.date) -> list[dict]:
    r = await staff.get(f"{URL}/quality", params={"month": f"{day:%Y-%m}"})
    assert r.status_code == 200, r.text
    return r.json()["suspect"]


async def test_failing_values_are_stored_suspect_listed_and_accepted(data_staff, operations_staff, make_staff):
    target, neighbours = await _target_with_neighbours()
    day = _day()
    flat = [day - dt.timedelta(days=k) for k in range(4, 0, -1)]
    # The four days before: 12.3 mm each, in one batch (a batch is checked against what was
    # stored before it: nothing here, so none is flagged), and 0 mm at the neighbours.
    first = [obs(target, d, "12.3") for d in flat] + [obs(n, day, 0) for n in neighbours]
    assert (await data_staff.post(URL, json={"observations": first})).status_code == 200
    assert [(await _latest(target, d))["quality"] for d in flat] == ["GOOD"] * 4
    # The fifth day running at 12.3 mm: a stuck feed.
    assert (await data_staff.post(URL, json={"observations": [obs(target, day, "12.3")]})).status_code == 200
    assert {k: (await _latest(target, day))[k] for k in ("quality", "quality_check")} == {
        "quality": "SUSPECT", "quality_check": "flat-line"}
    # Replayed: unchanged, still SUSPECT (the stored verdict is kept).
    again = await data_staff.post(URL, json={"observations": [obs(target, day, "12.3")]})
    assert again.json()["unchanged"] == 1 and (await _latest(target, day))["revision"] == 1
    # Revised to 150 mm where every neighbour had 0 mm: the neighbours check.
    revised = await data_staff.post(URL, json={"observations": [obs(target, day, 150)], "reason": "re-read"})
    assert revised.status_code == 200, revised.text
    assert (await _latest(target, day))["quality_check"] == "neighbours"
    # Beyond the physical range (the API refuses only above 2,000 mm): SUSPECT "range".
    other = day + dt.timedelta(days=3)
    assert (await data_staff.post(URL, json={"observations": [obs(target, other, 1200)]})).status_code == 200
    assert (await _latest(target, other))["quality_check"] == "range"

    # Listed for data and operations staff, with the check; not for others.
    for staff in (data_staff, operations_staff):
        listed = [(s["day"], s["check"], s["value"]) for s in await _listed(staff, day) if s["monitoringTargetId"] == target]
        assert (day.isoformat(), "neighbours", 150) in listed
    assert_problem(await (await make_staff("actuary")).get(f"{URL}/quality", params={"month": f"{day:%Y-%m}"}), 403)
    # The missing-day check: the month's days without a value at the target.
    listing = (await data_staff.get(f"{URL}/quality", params={"month": f"{day:%Y-%m}"})).json()
    [gaps] = [m for m in listing["missing"] if (m["monitoringTargetId"], m["dataSet"]) == (target, "IMD-RF-DAILY")]
    first = day.replace(day=1)
    month_days = [first + dt.timedelta(days=i) for i in range(31) if (first + dt.timedelta(days=i)).month == first.month]
    assert gaps["days"] == [d.isoformat() for d in month_days if d not in {*flat, day, other}]
    for bad in ("2027-13", "July", ""):
        problem = assert_problem(await data_staff.get(f"{URL}/quality", params={"month": bad}), 400)
        assert [e["field"] for e in problem["errors"]] == ["month"]

    # Accepted by a data staff member: stored again as GOOD, naming the check and who.
    ref = {"monitoringTargetId": target, "dataSet": "IMD-RF-DAILY", "variable": "rainfall_mm", "day": day.isoformat()}
    no_reason = assert_problem(await data_staff.post(f"{URL}/quality/accept", json={"observations": [ref], "reason": " "}), 400)
    assert [e["field"] for e in no_reason["errors"]] == ["reason"]
    r = await data_staff.post(f"{URL}/quality/accept", json={"observations": [ref], "reason": "cloudburst in the log"})
    assert r.status_code == 200, r.text
    assert r.json() == {"accepted": 1, "alreadyAccepted": 0, "settlementsNotified": 0}
    latest = await _latest(target, day)
    assert (latest["quality"], latest["quality_check"], latest["revision"], latest["value"]) == (
        "GOOD", "accepted:neighbours", 3, Decimal(150))
    assert latest["submitted_by"] == latest["approved_by"] == "staff:dana" and latest["reason"] == "cloudburst in the log"
    assert day.isoformat() not in [s["day"] for s in await _listed(data_staff, day) if s["monitoringTargetId"] == target]
    # Retried: nothing new. The same value posted again: unchanged, still accepted.
    r = await data_staff.post(f"{URL}/quality/accept", json={"observations": [ref], "reason": "cloudburst in the log"})
    assert r.json()["alreadyAccepted"] == 1 and (await _latest(target, day))["revision"] == 3
    assert (await data_staff.post(URL, json={"observations": [obs(target, day, 150)]})).json()["unchanged"] == 1
    # A GOOD value, or one not stored, cannot be accepted: 400 naming the row, nothing stored.
    good = ref | {"day": flat[0].isoformat()}
    unknown = ref | {"day": (day + dt.timedelta(days=1)).isoformat()}
    problem = assert_problem(await data_staff.post(f"{URL}/quality/accept", json={
        "observations": [{**ref, "day": other.isoformat()}, good, unknown], "reason": "x"}), 400)
    assert [e["field"] for e in problem["errors"]] == ["observations[1]", "observations[2]"]
    assert (await _latest(target, other))["quality"] == "SUSPECT"
    # Accepting is data staff's only.
    assert_problem(await operations_staff.post(f"{URL}/quality/accept", json={"observations": [ref], "reason": "x"}), 403)


async def test_a_spike_beyond_the_targets_1_in_1000_day_is_suspect_once_it_has_a_record(database):
    """The spike check needs 1,000 final values at the target: skipped before, then a value
    beyond its 1-in-1000 day (computed in SQL, as `one_in_1000` defines it) by more than the
    margin is SUSPECT. The direct store, as fixtures and `make dev` write, is checked too."""
    rows = await MonitoringTarget.select(MonitoringTarget.id).order_by(MonitoringTarget.id)
    target = rows[uuid.uuid4().int % len(rows)]["id"]
    start = dt.date(2003, 1, 1)
    days = [start + dt.timedelta(days=i) for i in range(SPIKE_MIN_RECORD + 2)]

    def tmax(day: dt.date, value) -> ObservationIn:
        return ObservationIn(target, "IMD-TMAX-1DEG", "temperature_c", day, None, Decimal(value), "IMD")

    async def stored(day: dt.date) -> dict:
        return await Observation.select(Observation.quality, Observation.quality_check).where(
            Observation.obs_key == f"{target}|IMD-TMAX-1DEG|temperature_c|{day.isoformat()}|").first()

    record = [Decimal(20 + i % 20) for i in range(SPIKE_MIN_RECORD - 1)]  # 20-39 °C
    await observations_db.store_batch([tmax(d, v) for d, v in zip(days, record)])
    # 999 days of record: no 1-in-1000 day yet, 45 °C passes.
    await observations_db.store_batch([tmax(days[999], 45)])
    assert await stored(days[999]) == {"quality": "GOOD", "quality_check": ""}
    # 1,000 days: the 1-in-1000 day is 39 °C (rank 999 of 1,000; 45 °C is the 1,000th).
    assert one_in_1000([*record, Decimal(45)]) == Decimal(39)
    await observations_db.store_batch([tmax(days[1000], 41), tmax(days[1001], "41.5")])
    assert await stored(days[1000]) == {"quality": "GOOD", "quality_check": ""}  # within the 2 °C margin
    assert await stored(days[1001]) == {"quality": "SUSPECT", "quality_check": "spike"}
