"""The book's risk (issue 27; docs/portfolio.md), over real HTTP against the test service:
`GET /internal/portfolio` answers 202 while a book's first run computes on the pricing queue,
then its figures (in-force totals exact to the minor unit, AEP/OEP at six return periods, the
as-if years); a changed book answers the last result as STALE and starts a run whose result
is the next version; who reads which book.

Each tenant's book is written straight to the database as conversion and activation leave
it (quote, policy ACTIVE, one line item a month with its covers' snapshots)."""

from __future__ import annotations

import asyncio
import calendar
import datetime as dt
import uuid
from decimal import Decimal

import pytest

from models.clock import utcnow
from models.db.core import insert_rows
from models.db.tables import LineItem, MonitoringTarget, Policy, PortfolioPaths, Quote
from models.domain.index_catalog import BY_CODE
from tests.conftest import assert_problem

YEAR = utcnow().year + 1  # risk months still to come
RETURN_PERIODS = [10, 25, 50, 100, 200, 250]


async def _targets() -> list[str]:
    rows = await MonitoringTarget.select(MonitoringTarget.id).order_by(MonitoringTarget.id).limit(2)
    assert len(rows) == 2, "reference data holds monitoring targets"
    return [r["id"] for r in rows]


def _cover(code: str, month: int, trigger: str, direction: str, year: int = YEAR) -> dict:
    start = dt.date(year, month, 1)
    end = dt.date(year, month, calendar.monthrange(year, month)[1])
    return {
        "coverage_id": str(uuid.uuid4()), "index_code": code, "index_definition_id": str(BY_CODE[code].id),
        "start": start.isoformat(), "end": end.isoformat(), "direction": direction, "trigger": trigger,
        "exit": None, "currency": "INR", "limit_minor": 100_000, "min_payout_minor": 0,
        "payout_per_unit_minor": 1_000, "gross_premium_pct": "0.06", "risk_premium_pct": "0.04",
        "pricing_version": 1, "data_set": None,
    }


async def _policy(tenant_id: str, target: str, months: list[int], units: int, premium_minor: int,
                  year: int = YEAR) -> uuid.UUID:
    """An ACTIVE policy at `target`: one line item a month (excess rain over 150 mm at 10 INR a mm
    and deficit under 40 mm, 1,000 INR a unit each), `units` units, capped at units x 1,000 INR."""
    now = utcnow()
    quote_id, policy_id = uuid.uuid4(), uuid.uuid4()
    tenant = uuid.UUID(tenant_id)
    cap = units * 100_000
    await insert_rows([Quote(
        id=quote_id, tenant_id=tenant, kind="TENANT", name="portfolio test", status="CONVERTED", state="ACCEPTED",
        monitoring_target_id=target, currency="INR", created_at=now, updated_at=now,
    )])
    await insert_rows([Policy(
        id=policy_id, tenant_id=tenant, quote_id=quote_id, kind="TENANT", name=f"farm {policy_id.hex[:6]}",
        status="ACTIVE", inception_date=dt.date(year, months[0], 1), expiry_date=dt.date(year, months[-1], 28),
        currency="INR", total_sum_insured_minor=cap * len(months), gross_premium_minor=premium_minor * len(months),
        activated_at=now, signature_confirmed=True, created_at=now, updated_at=now,
    )])
    await insert_rows([
        LineItem(
            id=uuid.uuid4(), tenant_id=tenant, policy_id=policy_id, position=i, name=f"{year}-{m:02d}",
            period_start=dt.date(year, m, 1), period_end=dt.date(year, m, calendar.monthrange(year, m)[1]),
            currency="INR", quantity=Decimal(units), sum_insured_minor=cap, total_sum_insured_minor=cap,
            min_payout_minor=0, payout_per_unit_minor=units * 1_000, premium_minor=premium_minor,
            covers=[_cover("RAINFALL_MONTHLY_TOTAL", m, "150", "ABOVE", year), _cover("RAINFALL_DEFICIT", m, "40", "BELOW", year)],
        )
        for i, m in enumerate(months)
    ])
    return policy_id


async def _computed(client, params=None, want_version: int | None = None) -> dict:
    """Ask until the book's figures are CURRENT (a run computes them on the pricing queue)."""
    for _ in range(240):
        r = await client.get("/internal/portfolio", params=params or {})
        if r.status_code == 200 and r.json()["status"] == "CURRENT" and (
            want_version is None or r.json()["version"] == want_version
        ):
            return r.json(parse_float=Decimal)  # amounts are JSON numbers with the exact decimals
        assert r.status_code in (200, 202), r.text
        await asyncio.sleep(0.5)
    raise AssertionError(f"no current result: {r.status_code} {r.text}")


def money(amount: str) -> dict:
    return {"amount": Decimal(amount), "currency": "INR"}


@pytest.fixture(scope="module", autouse=True)
async def whole_book_paths_removed_after():
    """A whole-book run keeps its losses per path, against which later quotes take their
    capital (docs/portfolio.md): removed when the module ends, so the rest of the suite prices
    as before."""
    yield
    await PortfolioPaths.delete(force=True)


async def test_the_books_risk_over_http(make_tenant, operations_staff):
    acme, globex = await make_tenant(internal=True), await make_tenant(internal=True)
    a, b = await _targets()
    first = await _policy(acme.id, a, [7, 8], 20, 120_000)
    await _policy(acme.id, b, [7], 10, 60_000)
    await _policy(globex.id, a, [9], 5, 30_000)
    # still ACTIVE (awaiting its settlement), its risk periods over: not in the book's figures
    await _policy(acme.id, a, [3], 10, 60_000, year=YEAR - 2)

    r = await acme.get("/internal/portfolio")
    assert r.status_code == 202, r.text
    assert r.headers["retry-after"] == "5"
    started = r.json()
    assert started["status"] == "COMPUTING" and started["workflowId"].startswith(f"portfolio:{acme.id}:")

    mine = await _computed(acme)
    assert mine["version"] == 1 and mine["tenantId"] == acme.id and mine["workflowId"] == started["workflowId"]
    assert mine["policies"] == 2 and mine["lineItems"] == 3
    # in force, exact: caps 2 x 20,000 + 10,000; premiums 2 x 1,200 + 600
    assert mine["insured"] == money("50000.00") and mine["premium"] == money("3000.00")
    by_target = {t["monitoringTargetId"]: t for t in mine["byTarget"]}
    assert by_target[a]["insured"] == money("40000.00") and by_target[b]["insured"] == money("10000.00")
    assert [m["month"] for m in mine["byMonth"]] == [f"{YEAR}-07", f"{YEAR}-08"]
    assert mine["byMonth"][0]["insured"] == money("30000.00")
    assert [p["peril"] for p in mine["byPeril"]] == ["RAINFALL"]
    assert [p["returnPeriod"] for p in mine["aep"]] == RETURN_PERIODS == [p["returnPeriod"] for p in mine["oep"]]
    losses = [p["loss"]["amount"] for p in mine["aep"]]
    assert losses == sorted(losses) and losses[-1] <= Decimal(50000)
    for aep, oep in zip(mine["aep"], mine["oep"]):
        assert oep["loss"]["amount"] <= aep["loss"]["amount"]  # one target-month <= the year
        assert aep["tvar"]["amount"] >= aep["loss"]["amount"]
        assert "standardError" in aep and "tvarStandardError" in aep
    el = sum(t["expectedLoss"]["amount"] for t in mine["byTarget"])
    assert abs(el - mine["expectedLoss"]["amount"]) <= Decimal("0.02")
    assert mine["asIfRecord"]["years"] >= 50 and 1 <= len(mine["asIfYears"]) <= 10
    years = mine["asIfYears"]
    assert [y["loss"]["amount"] for y in years] == sorted((y["loss"]["amount"] for y in years), reverse=True)
    for y in years:
        assert sum(t["loss"]["amount"] for t in y["byTarget"]) == y["loss"]["amount"]
        assert y["loss"]["amount"] <= Decimal(50000)
    assert mine["simulation"]["paths"] >= 1 << 16 and "independent" in mine["simulation"]["dependence"]

    # the same book again: the stored result, no new run
    again = await acme.get("/internal/portfolio")
    assert again.status_code == 200 and again.json()["version"] == 1 and again.json()["computingWorkflowId"] is None

    # operations staff read acme's book (the same stored result) and the whole book
    theirs = await _computed(operations_staff, {"tenantId": acme.id})
    assert theirs["version"] == 1 and theirs["insured"] == mine["insured"]
    other = await _computed(globex)
    assert other["insured"] == money("5000.00") and other["policies"] == 1
    whole = await _computed(operations_staff)
    assert whole["tenantId"] is None
    assert whole["insured"]["amount"] >= Decimal("55000.00")

    # the book changes: the last result answers STALE, naming the run computing the new book
    await Policy.update({Policy.status: "CANCELED", Policy.canceled_at: utcnow()}).where(Policy.id == first)
    stale = await acme.get("/internal/portfolio")
    assert stale.status_code == 200, stale.text
    assert stale.json()["status"] == "STALE" and stale.json()["version"] == 1
    assert stale.json()["computingWorkflowId"].startswith(f"portfolio:{acme.id}:")
    assert stale.json()["computingWorkflowId"] != started["workflowId"]
    fresh = await _computed(acme, want_version=2)
    assert fresh["policies"] == 1 and fresh["insured"] == money("10000.00") and fresh["premium"] == money("600.00")
    assert fresh["bookHash"] != mine["bookHash"]


async def test_who_reads_which_book(make_tenant, operations_staff):
    acme, globex = await make_tenant(internal=True), await make_tenant(internal=True)
    problem = assert_problem(await acme.get("/internal/portfolio", params={"tenantId": globex.id}), 400)
    assert "tenantId" in str(problem)
    assert_problem(await operations_staff.get("/internal/portfolio", params={"tenantId": str(uuid.uuid4())}), 404)
    assert_problem(await operations_staff.get("/internal/portfolio", params={"tenantId": "not-a-uuid"}), 400)
    # a tenant with nothing in force: an empty book, computed like any other
    empty = await _computed(acme)
    assert empty["policies"] == 0 and empty["insured"] == money("0.00") and empty["aep"] == []
