"""The data's own basis risk (issue 34; docs/observations.md, "The data's own basis risk"),
over real HTTP against the test service: `GET /internal/observations/basis-risk?month=` gives,
per data set pair (primary vs calibrated fallback, provisional vs final) and index definition,
how often the trigger decision flips over the month's covers and the mean absolute difference
of the index, from the stored observations; 400 naming `month`; staff only.

The month is 2003-07, which no other test's covers start in; the coverages and observations
are written to the database as the catalogue and the store leave them (a provisional value
and its final revision are two revisions of one key)."""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal

from models.clock import utcnow
from models.db.core import insert_rows
from models.db.tables import Coverage, Observation
from models.domain.index_catalog import BY_CODE
from models.domain.observations import ObservationIn
from tests.api.test_portfolio import _targets
from tests.conftest import assert_problem

JULY = [dt.date(2003, 7, d) for d in range(1, 32)]
OVERLAP = [dt.date(2003, 5, 1) + dt.timedelta(days=i) for i in range(61)]  # May and June: the calibration's


async def coverage(target: str, code: str, trigger: str) -> uuid.UUID:
    now, spec = utcnow(), BY_CODE[code]
    cid = uuid.uuid4()
    await insert_rows([Coverage(
        id=cid, monitoring_target_id=target, index_definition_id=spec.id, risk_period_start=JULY[0],
        risk_period_end=JULY[-1], risk_carrier="Test Re", currency="INR", direction=spec.direction,
        trigger=Decimal(trigger), limit_minor=100_000, min_payout_minor=0, payout_per_unit_minor=1_000,
        expected_loss_ratio=Decimal("0.6"), created_by="test", created_at=now, updated_at=now, data_set="IMD-RF-DAILY",
    )])
    return cid


def rows(target: str, data_set: str, values: dict[dt.date, Decimal], revision: int, provisional: bool) -> list:
    now = utcnow()
    return [Observation(
        monitoring_target_id=target, variable="rainfall_mm", observed_on=day, hour=None, value=value,
        source="imd-realtime" if provisional else "test", provisional=provisional, received_at=now, data_set=data_set,
        quality="GOOD", revision=revision,
        obs_key=ObservationIn(target, data_set, "rainfall_mm", day, None, value, "test").key,
    ) for day, value in values.items()]


async def test_flips_and_differences_per_data_set_pair_over_http(data_staff, actuary, operations_staff, make_tenant):
    a, _ = await _targets()
    await coverage(a, "RAINFALL_MONTHLY_TOTAL", "150")  # ABOVE 150 mm
    await coverage(a, "RAINFALL_DEFICIT", "160")  # BELOW 160 mm
    # the overlap: the primary's final value is twice the fallback's, every day (slope 2, no error)
    overlap = {d: Decimal(i % 7) + Decimal("0.5") for i, d in enumerate(OVERLAP)}
    provisional = {d: Decimal("4.8") for d in JULY[:-1]} | {JULY[-1]: Decimal(1)}  # 145 mm
    final = {d: Decimal(5) for d in JULY[:-1]} | {JULY[-1]: Decimal(5)}  # 155 mm
    fallback = {d: Decimal("2.5") for d in JULY[:-1]} | {JULY[-1]: Decimal(3)}  # 78 mm: 156 mm calibrated
    await insert_rows(
        rows(a, "IMD-RF-DAILY", {d: 2 * v for d, v in overlap.items()}, 1, False)
        + rows(a, "IMD-RF-DAILY", provisional, 1, True) + rows(a, "IMD-RF-DAILY", final, 2, False)
        + rows(a, "REAN-SFC-HOURLY", overlap | fallback, 1, False),
        without=("id",),
    )

    r = await data_staff.get("/internal/observations/basis-risk", params={"month": "2003-07"})
    assert r.status_code == 200, r.text
    body = r.json(parse_float=Decimal)
    assert body["month"] == "2003-07" and "flips when one triggers" in body["method"]
    got = [(x["other"], x["comparison"], x["indexCode"], x["unit"], x["covers"], x["compared"], x["flips"],
            x["flipRate"], x["meanAbsDifference"], x["maxAbsDifference"]) for x in body["rows"] if x["dataSet"] == "IMD-RF-DAILY"]
    assert got == [
        # provisional 145 mm against final 155 mm: the excess cover (150) flips, the deficit cover (160) does not
        ("IMD-RF-DAILY provisional", "PROVISIONAL_FINAL", "RAINFALL_DEFICIT", "mm", 1, 1, 0, 0, 10, 10),
        ("IMD-RF-DAILY provisional", "PROVISIONAL_FINAL", "RAINFALL_MONTHLY_TOTAL", "mm", 1, 1, 1, 1, 10, 10),
        # the primary's final 155 mm against the calibrated fallback's 156 mm: the same side of either trigger
        ("REAN-SFC-HOURLY", "PRIMARY_FALLBACK", "RAINFALL_DEFICIT", "mm", 1, 1, 0, 0, 1, 1),
        ("REAN-SFC-HOURLY", "PRIMARY_FALLBACK", "RAINFALL_MONTHLY_TOTAL", "mm", 1, 1, 0, 0, 1, 1),
    ]

    # actuaries and operations staff read it too; a month without covers has no rows
    assert (await actuary.get("/internal/observations/basis-risk", params={"month": "2003-07"})).json() == r.json()
    empty = await operations_staff.get("/internal/observations/basis-risk", params={"month": "2002-01"})
    assert empty.status_code == 200 and empty.json()["rows"] == []
    # a malformed month: 400 naming it; a tenant's client: 403
    for bad in ("2003-13", "July", "1999-07"):
        problem = assert_problem(await data_staff.get("/internal/observations/basis-risk", params={"month": bad}), 400)
        assert "month" in str(problem)
    assert_problem(await data_staff.get("/internal/observations/basis-risk"), 400)
    tenant = await make_tenant(internal=True)
    assert_problem(await tenant.get("/internal/observations/basis-risk", params={"month": "2003-07"}), 403)


async def test_the_figure_a_technical_report_quotes_for_its_data_set():
    """The 12 whole months before the report's day, this data set's covers only (the month's
    covers of the test above; runs after it in this module)."""
    from models.db.basis_risk import recent_months
    from models.domain.basis_risk import report_sentence

    first, last, figures = await recent_months("IMD-RF-DAILY", dt.date(2004, 7, 15))
    assert (first, last) == (dt.date(2003, 7, 1), dt.date(2004, 6, 30))
    assert {r.data_set for r in figures} == {"IMD-RF-DAILY"}
    sentence = report_sentence(figures, "IMD-RF-DAILY", "RAINFALL_MONTHLY_TOTAL", first, last)
    assert "covers starting Jul 2003–Jun 2004" in sentence
    assert "(REAN-SFC-HOURLY): the trigger decision flips on 0 of 2 covers compared (0.0 %); this index differs by 1 mm" in sentence
    assert "(IMD-RF-DAILY provisional): the trigger decision flips on 1 of 2 covers compared (50.0 %)" in sentence
