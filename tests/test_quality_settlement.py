"""No SUSPECT value pays, end to end (issue 34; docs/observations.md, "Quality checks"): a
heat cover sold before the source ladder (final-only, as today) over a month whose peak day
a quality check makes SUSPECT (53 °C: beyond the physical range) waits with nothing paid,
by the real settlement activity; once a data staff member accepts the value over HTTP, the
period settles and pays on it. On the old code the value was stored GOOD and paid at once."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from models.db import observations as observations_db
from models.db.tables import Observation
from models.domain.observations import ObservationIn
from tests.test_heat_wind_settlement_data import (
    HEAT,
    _days,
    _events,
    _free_target,
    _month_before_last,
    _old_coverage,
    _old_snapshot,
    _paid_minor,
    _policy,
    _settle,
)


async def test_a_suspect_peak_pays_nothing_until_data_staff_accept_it(database, data_staff):
    target = (await _free_target())["id"]
    start, end = _month_before_last()
    coverage_id = await _old_coverage(target, HEAT, start, end)
    policy_id = await _policy(target, start, end, [_old_snapshot(coverage_id, HEAT, start, end)])
    days = _days(start, end)
    peak = days[len(days) // 2]
    await observations_db.store_batch([
        ObservationIn(target, "REAN-SFC-HOURLY", "temperature_c", d, None, Decimal(53) if d == peak else Decimal(38), "ERA5")
        for d in days
    ])
    stored = await Observation.select(Observation.quality, Observation.quality_check).where(
        Observation.obs_key == f"{target}|REAN-SFC-HOURLY|temperature_c|{peak.isoformat()}|").first()
    assert stored == {"quality": "SUSPECT", "quality_check": "range"}

    waiting = await _settle(target, start, end)
    assert [c.state for c in waiting.coverages] != ["SETTLED"], waiting
    assert all(e["payout_minor"] == 0 for e in await _events(policy_id))  # nothing paid on it

    ref = {"monitoringTargetId": target, "dataSet": "REAN-SFC-HOURLY", "variable": "temperature_c", "day": peak.isoformat()}
    r = await data_staff.post("/internal/observations/quality/accept",
                              json={"observations": [ref], "reason": "checked against the station record"})
    assert r.status_code == 200, r.text
    assert r.json()["accepted"] == 1

    settled = await _settle(target, start, end)
    assert [(c.state, c.index_value) for c in settled.coverages] == [("SETTLED", Decimal(53))]
    paid = [e for e in await _events(policy_id) if e["payout_minor"] > 0]
    assert [e["payout_minor"] for e in paid] == [_paid_minor(HEAT, Decimal(53))]
