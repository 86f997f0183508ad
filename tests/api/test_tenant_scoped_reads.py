"""Reads that leaked across tenants (issue 24, finding 3), through real HTTP:

- `GET /internal/settlements` showed every tenant's policy counts and payouts: a tenant now
  sees the coverages its own policies hold, with its own counts; operations staff the book;
- travel per-stay covers, priced for one tenant's guests, appeared in every tenant's
  catalogue (`GET /internal/coverages`) with a limit of 2-3 INR and a premium of 0.00: they
  are not catalogue coverages, and a cover whose premium rounds to 0 is not offered."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from temporalio.testing import ActivityEnvironment

from activities.settlement import settle_period
from models.db import observations as observations_db
from models.db.travel import insert_travel_coverages
from models.domain import travel
from models.domain.observations import ObservationIn
from models.settings import load_settings
from models.temporal.catalogue import SiteRef
from models.temporal.settlement import SettlePeriodInput
from models.temporal.travel import PricedStay, StayNights
from tests.conftest import assert_problem

TARGET = "IN-13.125N-080.125E"  # Chennai, pin code 600001
PIN = "600001"


async def _policy(tenant, start: dt.date, end: dt.date, amount: int) -> dict:
    body = {"monitoringTargetId": TARGET, "riskPeriodFrom": start.isoformat(), "riskPeriodTo": end.isoformat(),
            "sumInsuredForLineItem": {"amount": amount, "currency": "INR"}}
    quote = await tenant.post("/quotes", json=body, timeout=600)
    assert quote.status_code == 200, quote.text
    policy = (await tenant.patch(f"/quotes/{quote.json()['id']}")).json()
    assert (await tenant.patch(f"/policies/{policy['id']}")).status_code == 200
    return policy


@pytest.fixture(scope="module")
async def two_tenants_settled(make_tenant):
    """Tenants A and B hold the same Chennai covers for one month (A ₹250,000, B ₹100,000 a
    line item); the month is settled from stored rows (40 mm a day: the excess cover pays
    in full) by the real settlement activity. C holds nothing there."""
    a, b, c = [await make_tenant(internal=True) for _ in range(3)]
    year = dt.date.today().year + 1
    start, end = dt.date(year, 4, 1), dt.date(year, 4, 30)
    policies = {"a": await _policy(a, start, end, 250000), "b": await _policy(b, start, end, 100000)}
    days = [start + dt.timedelta(days=i) for i in range(30)]
    await observations_db.store_batch([ObservationIn(TARGET, "IMD-RF-DAILY", "rainfall_mm", d, None, Decimal(40), "IMD") for d in days])
    await observations_db.store_batch([ObservationIn(TARGET, "IMD-TMAX-1DEG", "temperature_c", d, None, Decimal(30), "IMD") for d in days])
    await observations_db.store_batch([ObservationIn(TARGET, "IBTRACS-WIND", "wind_kmh", d, None, Decimal(10), "IBTrACS") for d in days])
    at = dt.datetime.combine(end + dt.timedelta(days=4), dt.time(0), tzinfo=dt.timezone.utc)
    outcome = await ActivityEnvironment().run(settle_period, SettlePeriodInput(target_id=TARGET, start=start, end=end, at=at))
    assert outcome.state == "SETTLED", outcome
    return a, b, c, policies


def _paid(tenant_events: list[dict]) -> Decimal:
    return sum((Decimal(str(e["payout"]["amount"])) for e in tenant_events), Decimal(0))


async def test_a_tenant_sees_only_its_own_settlements(two_tenants_settled, operations_staff):
    a, b, c, policies = two_tenants_settled
    query = f"/internal/settlements?targetId={TARGET}&state=SETTLED"
    paid_a = _paid((await a.get(f"/policies/{policies['a']['id']}/events")).json())
    paid_b = _paid((await b.get(f"/policies/{policies['b']['id']}/events")).json())
    assert paid_a == 250000 and paid_b == 100000  # the excess cover paid each line item in full

    mine = (await a.get(query)).json()
    assert mine, "A holds covers there"
    # Each row counts A's one policy and A's payouts only (the old code showed 2 policies and
    # ₹350,000: B's policy and payout).
    assert {r["policies"] for r in mine} == {1}
    assert sum(Decimal(str(r["paid"]["amount"])) for r in mine) == paid_a
    theirs = (await b.get(query)).json()
    assert {r["policies"] for r in theirs} == {1}
    assert sum(Decimal(str(r["paid"]["amount"])) for r in theirs) == paid_b
    assert (await c.get(query)).json() == []  # C holds nothing at the target

    book = (await operations_staff.get(query)).json()
    by_coverage = {r["coverageId"]: r for r in book}
    for row in mine:  # operations see the whole book: both tenants' policies and payouts
        whole = by_coverage[row["coverageId"]]
        assert whole["policies"] == 2
    assert sum(Decimal(str(r["paid"]["amount"])) for r in book if r["coverageId"] in {m["coverageId"] for m in mine}) == paid_a + paid_b
    one = (await operations_staff.get(f"{query}&tenantId={a.id}")).json()
    assert [(r["coverageId"], r["policies"], r["paid"]) for r in one] == [(r["coverageId"], r["policies"], r["paid"]) for r in mine]


async def test_a_tenant_cannot_ask_for_another_tenants_settlements(two_tenants_settled):
    a, b, _, _ = two_tenants_settled
    problem = assert_problem(await a.get(f"/internal/settlements?tenantId={b.id}"), 400)
    assert problem["errors"][0]["field"] == "tenantId"
    assert (await a.get(f"/internal/settlements?tenantId={a.id}&targetId={TARGET}")).json()
    assert_problem(await a.get("/internal/settlements?tenantId=not-a-uuid"), 400)


@pytest.fixture(scope="module")
async def a_priced_stay(tenant):
    """Chennai stay covers written as the travel pricing writes them: the 5 mm cover pays
    some nights, the 20 mm one none of its 1,000 paths (so its premium is 0 at any amount)."""
    first = dt.date.today() + dt.timedelta(days=40)
    stay = travel.Stay(first, first + dt.timedelta(days=2))
    site = SiteRef(target_id=TARGET, target_name="Chennai", district="Chennai", state="Tamil Nadu",
                   latitude=13.125, longitude=80.125)
    counts = {Decimal(5): [700, 200, 80, 20], Decimal(10): [900, 90, 10, 0], Decimal(20): [1000, 0, 0, 0]}
    priced = PricedStay(site=site, first_night=stay.first_night, last_night=stay.last_night, seed=1, simulations=1000,
                        model_version="test", data_hash="test", workflow_id="test",
                        by_trigger=[StayNights(trigger=t, night_counts=counts[t]) for t in travel.TRIGGERS_MM])
    ids = await insert_travel_coverages(priced, "Parametric Re Ltd", load_settings())
    return stay, dict(zip(travel.TRIGGERS_MM, ids))


async def test_travel_stay_covers_are_not_catalogue_coverages(tenant, other_tenant, a_priced_stay, actuary):
    stay, ids = a_priced_stay
    stay_ids = {str(i) for i in ids.values()}
    for caller in (tenant, other_tenant):
        listed = (await caller.get(f"/internal/coverages?targetName={PIN}&size=100")).json()
        assert listed["content"] and not stay_ids & {c["id"] for c in listed["content"]}
        everything = (await caller.get("/internal/coverages?size=100")).json()
        assert all(c["createdBy"] != "travel" for c in everything["content"])
        for coverage_id in stay_ids:
            assert_problem(await caller.get(f"/internal/coverages/{coverage_id}"), 404)
    assert_problem(await actuary.get(f"/internal/coverages/{ids[Decimal(5)]}"), 404)
    assert_problem(await actuary.get(f"/internal/coverages/{ids[Decimal(5)]}/pricing-runs"), 404)
    assert_problem(await actuary.post(f"/internal/coverages/{ids[Decimal(5)]}/pricing-runs", json={}), 404)


async def test_a_stay_cover_no_path_pays_is_not_offered(http, tenant, a_priced_stay):
    stay, ids = a_priced_stay
    headers = {"Authorization": f"Bearer {tenant.credentials['api_key']}"}
    check_out = stay.last_night + dt.timedelta(days=1)
    r = await http.get(f"/travel/{tenant.id}/coverages", headers=headers,
                       params={"lat": "13.125", "long": "80.125", "time_range": f"{stay.first_night}/{check_out}"})
    assert r.status_code == 200, r.text
    offered = {c["id"] for c in r.json()["coverages"]}
    assert offered == {str(ids[Decimal(5)]), str(ids[Decimal(10)])}  # not the 20 mm cover nobody is paid by
    # A cover whose expected payout rounds to 0.00 is not sold (whatever the minimum premium):
    # 0.01 INR a night at 5 mm (0.42 nights expected) is an expected payout of 0.0042 INR.
    quote = await http.post(f"/travel/{tenant.id}/quotes", headers=headers,
                            json={"coverage_id": str(ids[Decimal(5)]), "max_payout": 0.01, "qty": 3, "technical_client_ref": "b-1"})
    problem = assert_problem(quote, 400)
    assert problem["errors"][0]["field"] == "max_payout" and "rounds to 0.00" in problem["detail"]
    fine = await http.post(f"/travel/{tenant.id}/quotes", headers=headers,
                           json={"coverage_id": str(ids[Decimal(5)]), "max_payout": 1000, "qty": 3, "technical_client_ref": "b-2"})
    assert fine.status_code in (200, 201), fine.text
    # Expected payout 420.00; no band stored; the 1-in-100 payout is 3 nights (20 of the 1,000
    # paths pay 3): (420 + 0.06 (3,000 - 420)) / (1 - 0.20) = 718.50 (docs/travel.md).
    assert Decimal(str(fine.json()["risk_price"])) == Decimal("718.50")
    assert Decimal(str(fine.json()["technical_rate"])) == Decimal("0.140000")
