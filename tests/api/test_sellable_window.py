"""The sellable window (issue 24, finding 5; docs/catalogue.md): catalogue `from`/`to` and quote
periods only from the first day of next month through the 24th month; anything else is a 400
naming the parameter that creates and prices nothing, never a 500. Travel stays keep their
own window (up to a year ahead) and refuse impossible dates with a 400."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

import httpx
import pytest

from api.catalogue.service import period_slots
from api.catalogue.window import sellable_window
from tests.api.test_fairness import cold_stay, stays
from tests.conftest import Server, Tenant, assert_problem, free_port

FIRST, LAST = sellable_window(24)
BEFORE, AFTER = FIRST - dt.timedelta(days=1), LAST + dt.timedelta(days=1)


def leap_day_in_window() -> dt.date | None:
    for year in range(FIRST.year, LAST.year + 1):
        day = dt.date(year, 2, 28) + dt.timedelta(days=1)
        if day.month == 2 and FIRST <= day <= LAST:
            return day
    return None


def test_the_window_is_24_whole_months_from_next_month():
    assert sellable_window(24, dt.date(2026, 11, 26)) == (dt.date(2026, 12, 1), dt.date(2028, 11, 30))
    assert sellable_window(24, dt.date(2026, 12, 31)) == (dt.date(2027, 1, 1), dt.date(2028, 12, 31))
    assert sellable_window(24, dt.date(2027, 1, 1)) == (dt.date(2027, 2, 1), dt.date(2029, 1, 31))
    window = (dt.date(2026, 12, 1), dt.date(2028, 11, 30))
    # A leap day's month, 12 months on but never past the window; at most 13 months.
    slots = period_slots(dt.date(2028, 2, 29), None, window)
    assert min(s.start for s in slots) == dt.date(2028, 2, 1) and max(s.end for s in slots) == dt.date(2028, 11, 30)
    assert len({s.start for s in slots}) == 10
    assert len({s.start for s in period_slots(dt.date(2026, 12, 1), None, window)}) == 12


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("from=0001-01-01", "from"),  # created and priced 35 coverages for the year 1
        ("from=9999-06-01", "from"),  # was a 500
        (f"from={BEFORE}", "from"),
        (f"from={AFTER}", "from"),
        (f"from={FIRST}&to={AFTER}", "to"),
        (f"to={BEFORE}", "to"),
        (f"from={FIRST.year + 1}-02-30", "from"),
        ("from=27-06-01", "from"),
        (f"from={LAST}&to={FIRST}", "to"),
    ],
)
async def test_catalogue_periods_outside_the_window_are_400_and_create_nothing(tenant, query, field):
    from models.db.tables import Coverage

    before = await Coverage.count()
    body = assert_problem(await tenant.get(f"/internal/coverages?targetName=560001&{query}"), 400)
    assert body["errors"][0]["field"] == field, body
    assert body["detail"].startswith(f"{field}: "), body
    assert await Coverage.count() == before
    assert await Coverage.count().where(Coverage.risk_period_start < FIRST.replace(year=2000)) == 0


async def test_a_leap_day_in_the_window_is_a_date_like_any_other(settings, service, temporal_env, make_tenant):
    """`from=2028-02-29` without `to` was a 500 (its year + 1 has no Feb 29). Served by an app
    whose pricing quota the tenant has spent, so the read is refused by the quota (429),
    not by the date, and prices nothing."""
    from api.app import create_app

    leap = leap_day_in_window()
    if leap is None:
        pytest.skip("no Feb 29 in the sellable window this year")
    app = create_app(replace(settings, task_queue=service.task_queue, temporal_address=service.temporal_address,
                             pricing_starts_per_minute=1, simulations=4096), temporal_env.client)
    async with Server(app, free_port()) as api, httpx.AsyncClient(base_url=api.base_url, timeout=60) as http:
        caller = Tenant((await make_tenant()).credentials, http)
        spent = await cold_stay(http, caller, stays(1)[0])  # its one pricing start this minute
        assert spent.status_code == 200, spent.text
        r = await caller.get(f"/internal/coverages?targetName=560001&from={leap}")
        assert_problem(r, 429)


async def test_quote_periods_outside_the_window_are_400_naming_the_field(tenant):
    def body(start: dt.date | str, end: dt.date | str) -> dict:
        return {"monitoringTargetId": "IN-12.875N-077.625E", "riskPeriodFrom": str(start), "riskPeriodTo": str(end),
                "sumInsuredForLineItem": {"amount": 100000, "currency": "INR"}}

    tomorrow = dt.date.today() + dt.timedelta(days=1)
    cases = [
        (body("9999-06-01", "9999-06-30"), "riskPeriodFrom"),
        (body("0001-01-01", "0001-01-31"), "riskPeriodFrom"),
        (body(LAST, AFTER), "riskPeriodTo"),
        (body(AFTER, AFTER + dt.timedelta(days=30)), "riskPeriodFrom"),
    ]
    if tomorrow < FIRST:  # this month's remaining days are not sold
        cases.append((body(tomorrow, FIRST + dt.timedelta(days=27)), "riskPeriodFrom"))
    for quote, field in cases:
        problem = assert_problem(await tenant.post("/quotes", json=quote), 400)
        assert problem["errors"][0]["field"] == field, (quote, problem)


@pytest.mark.parametrize(
    "time_range",
    [
        "9999-12-31T23:00:00-05:00/P1D",  # the year 10000 in India: was a 500
        "0001-01-01T00:00:00+05:00/P1D",  # before the year 1 in India: was a 500
        "9999-06-01/9999-06-03",
        "0001-01-01/0001-01-03",
        f"{FIRST.year + 1 if (FIRST.year + 1) % 4 else FIRST.year + 2}-02-29/P2D",  # no Feb 29 that year
        "99999-01-01/P1D",
        f"{dt.date.today() + dt.timedelta(days=10)}/P99999999999999999999D",
    ],
)
async def test_impossible_travel_dates_are_400(http, tenant, time_range):
    headers = {"Authorization": f"Bearer {tenant.credentials['api_key']}", "x-tenant-id": tenant.id}
    r = await http.get(f"/travel/{tenant.id}/coverages", headers=headers,
                       params={"lat": "19.0760", "long": "72.8777", "time_range": time_range})
    problem = assert_problem(r, 400)
    assert problem["errors"][0]["field"] == "time_range", problem
