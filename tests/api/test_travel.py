"""Travel surface through HTTP (issue 14): a stay's coverages by place and dates, quotes,
policies and the nights paid, with every refusal; the API key answers for its own tenant
only."""

from __future__ import annotations

import asyncio
import datetime as dt
import uuid
from decimal import Decimal

import pytest
from temporalio.testing import ActivityEnvironment

from activities.settlement import settle_period
from models.db import observations as observations_db
from models.db.tables import Quote, TravelCoverage
from models.domain import travel
from models.domain.observations import ObservationIn
from models.settings import load_settings
from models.temporal.settlement import SettlePeriodInput
from tests.conftest import assert_problem

MUMBAI = {"lat": "19.0760", "long": "72.8777"}


def stay(days_ahead: int = 20, nights: int = 3) -> tuple[dt.date, dt.date]:
    check_in = dt.date.today() + dt.timedelta(days=days_ahead)
    return check_in, check_in + dt.timedelta(days=nights)


def key_headers(tenant) -> dict[str, str]:
    return {"Authorization": f"Bearer {tenant.credentials['api_key']}", "x-tenant-id": tenant.id}


async def get_coverages(http, tenant, **params):
    return await http.get(f"/travel/{tenant.id}/coverages", params=params, headers=key_headers(tenant))


@pytest.fixture(scope="module")
async def offered(http, tenant):
    """The covers of a 3-night stay in Mumbai, 20 days ahead."""
    check_in, check_out = stay()
    r = await get_coverages(http, tenant, **MUMBAI, time_range=f"{check_in}/{check_out}")
    assert r.status_code == 200, r.text
    return check_in, check_out, r.json()["coverages"]


async def quote(http, tenant, coverage_id: str, max_payout=1500, qty=3, ref="booking-1"):
    return await http.post(
        f"/travel/{tenant.id}/quotes", headers=key_headers(tenant),
        json={"coverage_id": coverage_id, "max_payout": max_payout, "qty": qty, "technical_client_ref": ref},
    )


async def decide(http, tenant, quote_id: str, acceptance: bool):
    return await http.post(f"/travel/{tenant.id}/policies", headers=key_headers(tenant),
                           json={"quote_id": quote_id, "acceptance": acceptance})


async def test_a_stay_gets_hotel_rain_covers_at_the_nearest_target(http, tenant, offered):
    check_in, check_out, covers = offered
    assert len(covers) == 3
    for c in covers:
        assert set(c) == {"id", "name", "definition"}
        uuid.UUID(c["id"])
        assert "between 08:00 and 20:00 local time" in c["definition"]
    assert [c["definition"].split("reaches ")[1].split(" mm")[0] for c in covers] == ["5", "10", "20"]
    assert f"{check_in.day} {check_in:%B %Y}" in covers[0]["definition"]
    # The same stay asked again, as date-times with an offset, or as a duration: the same covers.
    for time_range in (f"{check_in}T15:00:00+05:30/{check_out}T11:00:00+05:30", f"{check_in}/P3D",
                       f"{check_in}T09:30:00Z/{check_out}T05:30:00Z"):
        r = await get_coverages(http, tenant, **MUMBAI, time_range=time_range)
        assert r.status_code == 200, r.text
        assert [c["id"] for c in r.json()["coverages"]] == [c["id"] for c in covers], time_range
    # Priced on the hourly rain model for exactly these nights: the distribution is stored.
    row = await TravelCoverage.select().where(TravelCoverage.coverage_id == uuid.UUID(covers[1]["id"])).first()
    assert (row["first_night"], row["last_night"]) == (check_in, check_out - dt.timedelta(days=1))
    assert len(row["night_counts"] if isinstance(row["night_counts"], list) else __import__("json").loads(row["night_counts"])) == 4
    # the stay's covers settle on the hourly station rain's ladder, frozen at creation (issue 34)
    from models.db.catalogue import coverage_row
    from models.domain.settlement_basis import basis_for

    coverage = await coverage_row(uuid.UUID(covers[1]["id"]))
    assert coverage.data_set == "IMD-RF-HOURLY"
    assert coverage.settlement_basis == basis_for("RAINFALL_DAYTIME_HOURS", "IMD-RF-HOURLY")


@pytest.mark.parametrize(
    "params, field",
    [
        ({"lat": "91", "long": "72.8"}, "lat"),
        ({"lat": "abc", "long": "72.8"}, "lat"),
        ({"lat": "19", "long": "-181"}, "long"),
        ({"long": "72.8"}, "lat"),
        ({"lat": "19", "long": "72.8", "time_range": "2026-12-10"}, "time_range"),
        ({"lat": "19", "long": "72.8", "time_range": "10/12/2026/13/12/2026"}, "time_range"),
        ({"lat": "19", "long": "72.8", "time_range": "next week"}, "time_range"),
        ({"lat": "19", "long": "72.8"}, "time_range"),
    ],
)
async def test_bad_coverage_queries_name_the_parameter(http, tenant, params, field):
    if field != "time_range":
        params.setdefault("time_range", "{}/{}".format(*stay()))
    body = assert_problem(await get_coverages(http, tenant, **params), 400)
    assert body["errors"][0]["field"] == field, body


async def test_stays_that_end_first_are_past_or_too_long_are_refused(http, tenant):
    check_in, check_out = stay(nights=3)
    yesterday = dt.date.today() - dt.timedelta(days=1)
    cases = {
        f"{check_out}/{check_in}": "before it starts",
        f"{check_in}/{check_in}": "no night",
        f"{yesterday}/{yesterday + dt.timedelta(days=2)}": "not after today",
        f"{check_in}/{check_in + dt.timedelta(days=31)}": "at most 30",
        f"{check_in}T15:00:00/{check_out}T11:00:00": "no offset",
        f"{check_in}/P3000000D": "at most 30",
        "9999-12-31/P1D": "9999",
        f"{check_in}/99999-01-01": "not an ISO 8601",
    }
    for time_range, why in cases.items():
        body = assert_problem(await get_coverages(http, tenant, **MUMBAI, time_range=time_range), 400)
        assert body["errors"][0]["field"] == "time_range" and why in body["detail"], (time_range, body)


async def test_every_parameter_at_fault_is_listed(http, tenant):
    body = assert_problem(await get_coverages(http, tenant, lat="", long="", time_range=""), 400)
    assert [e["field"] for e in body["errors"]] == ["lat", "long", "time_range"]


async def test_a_place_outside_the_served_area_gets_no_covers(http, tenant):
    r = await get_coverages(http, tenant, lat="48.8566", long="2.3522", time_range="{}/{}".format(*stay()))  # Paris
    assert r.status_code == 200, r.text
    assert r.json() == {"coverages": []}


async def test_a_quote_is_priced_from_the_stays_nights(http, tenant, offered):
    _, _, covers = offered
    cover = covers[1]  # 10 mm
    row = await TravelCoverage.select().where(TravelCoverage.coverage_id == uuid.UUID(cover["id"])).first()
    counts = row["night_counts"] if isinstance(row["night_counts"], list) else __import__("json").loads(row["night_counts"])
    paths = sum(counts)
    for qty in (3, 2, 1):
        r = await quote(http, tenant, cover["id"], max_payout="1500.50" if qty == 2 else 1500, qty=qty)
        assert r.status_code == 200, r.text
        body = r.json()
        assert set(body) == {"quote_id", "technical_rate", "risk_price"}
        max_payout = Decimal("1500.50") if qty == 2 else Decimal(1500)
        expected = Decimal(sum(min(k, qty) * n for k, n in enumerate(counts))) / paths
        # technical_rate: the expected payout per unit of maximum payout; risk_price: the stay's
        # premium, loaded on the catalogue's basis from the stored counts and band (docs/travel.md)
        assert Decimal(str(body["technical_rate"])) == (expected / qty).quantize(Decimal("0.000001"))
        assert 0 < body["technical_rate"] < 1
        replicates = row["replicate_counts"]
        replicates = replicates if isinstance(replicates, list) else __import__("json").loads(replicates)
        assert len(replicates) == 32 and all(sum(c) == sum(replicates[0]) for c in replicates)
        priced = travel.price(counts, max_payout, qty, travel.TravelLoads.of(load_settings()), replicates)
        assert Decimal(str(body["risk_price"])) == priced.risk_price
        assert priced.risk_price > (max_payout * expected).quantize(Decimal("0.01")) == priced.expected_loss
        assert priced.parameter_sd > 0
        stored = await Quote.select().where(Quote.id == uuid.UUID(body["quote_id"])).first()
        assert stored["kind"] == "TRAVEL" and stored["external_ref"] == "booking-1"
        assert stored["sum_insured_minor"] == int(max_payout * qty * 100)


async def test_bad_quotes_are_refused(http, tenant, offered):
    _, _, covers = offered
    cid = covers[0]["id"]
    for body_changes, field in (
        ({"max_payout": 0}, "max_payout"),
        ({"max_payout": -10}, "max_payout"),
        ({"max_payout": "1500.001"}, "max_payout"),
        ({"qty": 0}, "qty"),
        ({"qty": 4}, "qty"),
        ({"technical_client_ref": " "}, "technical_client_ref"),
        ({"coverage_id": "not-a-uuid"}, "coverage_id"),
    ):
        args = {"coverage_id": cid, "max_payout": 1500, "qty": 3, "ref": "b"}
        args.update({("ref" if k == "technical_client_ref" else k): v for k, v in body_changes.items()})
        body = assert_problem(await quote(http, tenant, **args), 400)
        assert any(e["field"] == field for e in body.get("errors", [])) or field in body["detail"], (body_changes, body)
    assert_problem(await quote(http, tenant, str(uuid.uuid4())), 404)
    # Money exact: a JSON number finer than the paisa is refused, not rounded through a float.
    r = await http.post(f"/travel/{tenant.id}/quotes", headers={**key_headers(tenant), "content-type": "application/json"}, content=(
        '{"coverage_id": "%s", "max_payout": 1500.0000000000001, "qty": 3, "technical_client_ref": "b"}' % cid))
    assert assert_problem(r, 400)["errors"][0]["field"] == "max_payout"
    # No coercion: a string where the spec says integer is refused, naming the field.
    for changes, field in (({"qty": "3"}, "qty"), ({"qty": True}, "qty"), ({"qty": 2.5}, "qty"),
                           ({"technical_client_ref": 7}, "technical_client_ref")):
        body = {"coverage_id": cid, "max_payout": 1500, "qty": 3, "technical_client_ref": "b", **changes}
        r = await http.post(f"/travel/{tenant.id}/quotes", headers=key_headers(tenant), json=body)
        assert assert_problem(r, 400)["errors"][0]["field"] == field, (changes, r.text)
    r = await http.post(f"/travel/{tenant.id}/quotes", headers=key_headers(tenant), json={"coverage_id": cid})
    assert_problem(r, 400)


async def tenant_status(tenant, policy_id: str) -> str:
    """The policy's status as the tenant surface's GET /policies lists it."""
    page = 0
    while True:
        r = await tenant.get("/policies", params={"size": 100, "page": page})
        assert r.status_code == 200, r.text
        found = [p["status"] for p in r.json()["content"] if p["id"] == policy_id]
        if found or page + 1 >= r.json()["totalPages"]:
            assert found, f"policy {policy_id} not listed"
            return found[0]
        page += 1


async def test_accepting_makes_one_active_policy_visible_on_the_tenant_surface(http, tenant, offered):
    _, _, covers = offered
    q = (await quote(http, tenant, covers[1]["id"], ref="booking-accept")).json()
    r = await decide(http, tenant, q["quote_id"], True)
    assert r.status_code == 200, r.text
    body = r.json()
    assert set(body) == {"policy_id", "confirmation_message"} and body["policy_id"]
    assert body["policy_id"] in body["confirmation_message"]
    again = await decide(http, tenant, q["quote_id"], True)
    assert again.status_code == 200 and again.json()["policy_id"] == body["policy_id"]  # never two policies
    assert await tenant_status(tenant, body["policy_id"]) in ("ACCEPTED", "ACTIVE")
    assert_problem(await decide(http, tenant, q["quote_id"], False), 409)  # accepted: no declining now
    # Cancellable like any policy.
    cancelled = await tenant.delete(f"/policies/{body['policy_id']}")
    assert cancelled.status_code in (200, 204), cancelled.text
    assert await tenant_status(tenant, body["policy_id"]) == "CANCELED"


async def test_the_largest_nightly_payout_is_quoted_and_sold(http, tenant, offered):
    """1,000,000 INR a night: the line item holds a million units (the quantity column
    holds it on PostgreSQL too)."""
    _, _, covers = offered
    r = await quote(http, tenant, covers[2]["id"], max_payout=1_000_000, ref="booking-palace")
    assert r.status_code == 200, r.text
    accepted = await decide(http, tenant, r.json()["quote_id"], True)
    assert accepted.status_code == 200, accepted.text
    over = await quote(http, tenant, covers[2]["id"], max_payout="1000000.01")
    assert assert_problem(over, 400)["errors"][0]["field"] == "max_payout"


async def test_a_hotel_rain_cover_is_not_sold_by_fast_quote(tenant, offered):
    from tests.api.test_fast_quotes import PARTNER, new_fast_quote

    _, _, covers = offered
    partner = await tenant.post("/internal/business-partners", json=PARTNER)
    assert partner.status_code == 201, partner.text
    r = await tenant.post("/internal/fast-quotes", json=new_fast_quote(partner.json()["id"], [covers[0]["id"]]))
    problem = assert_problem(r, 400)
    assert problem["errors"][0]["field"] == "coverageIds[0]" and "travel surface" in problem["detail"], problem


async def test_declining_and_expired_quotes(http, tenant, other_tenant, offered):
    _, _, covers = offered
    q = (await quote(http, tenant, covers[0]["id"], ref="booking-decline")).json()
    r = await decide(http, tenant, q["quote_id"], False)
    assert r.status_code == 200, r.text
    assert r.json()["policy_id"] is None and "declined" in r.json()["confirmation_message"]
    assert (await decide(http, tenant, q["quote_id"], False)).status_code == 200  # idempotent
    assert "REJECTED" in assert_problem(await decide(http, tenant, q["quote_id"], True), 409)["detail"]
    # Expired: the quote's validity is over (its row says so; the API refuses before the workflow).
    old = (await quote(http, tenant, covers[0]["id"], ref="booking-old")).json()
    await Quote.update({Quote.valid_until: dt.date.today() - dt.timedelta(days=2)}).where(Quote.id == uuid.UUID(old["quote_id"]))
    assert "EXPIRED" in assert_problem(await decide(http, tenant, old["quote_id"], True), 409)["detail"]
    # Unknown, malformed, another tenant's.
    assert_problem(await decide(http, tenant, str(uuid.uuid4()), True), 404)
    assert_problem(await decide(http, tenant, "nope", True), 400)
    assert_problem(await decide(http, other_tenant, q["quote_id"], True), 404)
    r = await http.post(f"/travel/{tenant.id}/policies", headers=key_headers(tenant), json={"quote_id": q["quote_id"]})
    assert_problem(r, 400)
    # acceptance must be a boolean: a 0 or 1 never decides a quote.
    live = (await quote(http, tenant, covers[0]["id"], ref="booking-live")).json()
    for value in (0, 1, "true"):
        r = await http.post(f"/travel/{tenant.id}/policies", headers=key_headers(tenant),
                            json={"quote_id": live["quote_id"], "acceptance": value})
        assert assert_problem(r, 400)["errors"][0]["field"] == "acceptance", r.text
    stored = await Quote.select(Quote.status).where(Quote.id == uuid.UUID(live["quote_id"])).first()
    assert stored["status"] == "CREATED"


async def test_a_wrong_or_another_tenants_key_is_401(http, tenant, other_tenant):
    time_range = "{}/{}".format(*stay())
    for headers, path_tenant in (
        ({"Authorization": "Bearer pk_wrong", "x-tenant-id": tenant.id}, tenant.id),
        ({"Authorization": f"Bearer {other_tenant.credentials['api_key']}", "x-tenant-id": tenant.id}, tenant.id),
        ({"Authorization": f"Bearer {tenant.credentials['api_key']}", "x-tenant-id": other_tenant.id}, other_tenant.id),
        ({"Authorization": f"Bearer {tenant.credentials['api_key']}", "x-tenant-id": other_tenant.id}, tenant.id),
        ({"x-tenant-id": tenant.id}, tenant.id),
    ):
        for r in (
            await http.get(f"/travel/{path_tenant}/coverages", params={**MUMBAI, "time_range": time_range}, headers=headers),
            await http.post(f"/travel/{path_tenant}/quotes", json={}, headers=headers),
            await http.post(f"/travel/{path_tenant}/policies", json={}, headers=headers),
        ):
            assert_problem(r, 401)


async def test_nights_paid_are_read_by_day(http, tenant, offered):
    """The policy's stay settled by the real activity from hourly observations: the one
    night whose daytime rain reached 10 mm pays max_payout, read by day."""
    check_in, check_out, covers = offered
    q = (await quote(http, tenant, covers[1]["id"], max_payout=2000, ref="booking-rain")).json()
    policy_id = (await decide(http, tenant, q["quote_id"], True)).json()["policy_id"]
    row = await TravelCoverage.select().where(TravelCoverage.coverage_id == uuid.UUID(covers[1]["id"])).first()
    target = row["monitoring_target_id"]
    nights = [check_in + dt.timedelta(days=i) for i in range(3)]
    rows = []
    for i, night in enumerate(nights):
        for hour in range(24):
            mm = Decimal(0)
            if i == 0 and hour in (10, 11, 12):
                mm = Decimal(4)  # 12 mm in the day: pays
            if i == 1 and hour == 22:
                mm = Decimal(30)  # after 20:00: does not count
            if i == 2 and 8 <= hour < 17:
                mm = Decimal(1)  # 9 mm in the day: below the trigger
            rows.append(ObservationIn(target, "IMD-RF-HOURLY", "rainfall_mm", night, hour, mm, "IMD"))
    await observations_db.store_batch(rows)
    at = dt.datetime.combine(check_out + dt.timedelta(days=3), dt.time(0), tzinfo=dt.timezone.utc)
    outcome = await ActivityEnvironment().run(
        settle_period, SettlePeriodInput(target_id=target, start=nights[0], end=nights[-1], at=at))
    assert outcome.state == "SETTLED", outcome
    r = await http.get(f"/travel/{tenant.id}/parametric-event", params={"validated_day": str(at.date())},
                       headers=key_headers(tenant))
    assert r.status_code == 200, r.text
    mine = [e for e in r.json()["validated_events"] if e["policy_id"] == policy_id]
    assert [(e["policy_id"], e["event_type"], e["validated_day"], e["kind"]) for e in mine] == [
        (policy_id, "DAYTIME_RAIN", str(at.date()), "SETTLEMENT")]
    assert [Decimal(str(e["validated_amount"])) for e in mine] == [Decimal(2000)]


async def test_a_stay_over_a_month_end_is_settled_as_one_period(http, tenant, temporal_env):
    """The policy's one period is the stay, whatever months it spans: its settlement
    workflow is the one of the stay's coverage (a period per calendar month would match no
    coverage and never settle)."""
    from models.temporal.ids import settlement_workflow_id

    today = dt.date.today()
    month_end = dt.date(today.year + (today.month >= 11), (today.month + 1) % 12 + 1, 1) - dt.timedelta(days=1)
    check_in = month_end - dt.timedelta(days=1)  # nights: the last two of the month, the first of the next
    r = await get_coverages(http, tenant, **MUMBAI, time_range=f"{check_in}/{check_in + dt.timedelta(days=3)}")
    assert r.status_code == 200, r.text
    cover = r.json()["coverages"][1]
    q = (await quote(http, tenant, cover["id"], ref="booking-month-end")).json()
    assert (await decide(http, tenant, q["quote_id"], True)).status_code == 200
    row = await TravelCoverage.select().where(TravelCoverage.coverage_id == uuid.UUID(cover["id"])).first()
    assert row["first_night"].month != row["last_night"].month
    from temporalio.service import RPCError

    handle = temporal_env.client.get_workflow_handle(
        settlement_workflow_id(row["monitoring_target_id"], row["first_night"], row["last_night"]))
    for _ in range(100):  # the policy's workflow starts it right after the activation answers
        try:
            assert (await handle.describe()).status is not None
            break
        except RPCError:
            await asyncio.sleep(0.1)
    else:
        raise AssertionError("no settlement workflow for the stay's period")
