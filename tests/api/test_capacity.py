"""Capacity limits through HTTP (issue 27; docs/capacity.md): operations staff set them, quotes
show whether they fit, binding takes capacity atomically (exactly, under concurrency) and is
refused with a 409 naming the limit, and cancellation, expiry and lapse give it back.

Every limit here is keyed to a tenant made for the test (or removed before the test ends), so
the rest of the suite never meets one."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import uuid
from decimal import Decimal

import pytest

from models.clock import utcnow
from models.db import capacity as capacity_db
from models.db.policies import set_policy_status
from models.db.tables import Policy
from models.domain.capacity import LimitKey
from models.domain.statuses import PolicyStatus
from tests.conftest import assert_problem

PATH = "/internal/capacity-limits"
TARGET = "IN-12.875N-077.625E"  # Bengaluru, pin code 560001
YEAR = dt.date.today().year + 1
MARCH = f"{YEAR}-03"


def inr(amount) -> dict:
    return {"amount": amount, "currency": "INR"}


def amount(value: dict) -> Decimal:
    assert value["currency"] == "INR", value
    return Decimal(str(value["amount"]))


async def new_quote(owner, start=f"{MARCH}-01", end=f"{MARCH}-31", sum_insured=100000) -> dict:
    body = {"monitoringTargetId": TARGET, "riskPeriodFrom": start, "riskPeriodTo": end,
            "sumInsuredForLineItem": inr(sum_insured)}
    r = await owner.post("/quotes", json=body, timeout=600)
    assert r.status_code == 200, r.text
    return r.json()


async def set_limit(staff, value, **key) -> dict:
    r = await staff.post(PATH, json={"limit": inr(value), **key})
    assert r.status_code == 201, r.text
    return r.json()


async def limit_now(staff, limit_id: str) -> dict:
    r = await staff.get(f"{PATH}/{limit_id}")
    assert r.status_code == 200, r.text
    return r.json()


@pytest.fixture(scope="module")
async def priced(tenant):
    """Bengaluru's March covers priced once (the first quote of a target prices its months)."""
    await new_quote(tenant)


async def test_operations_staff_set_list_change_and_remove_limits(operations_staff, tenant, make_tenant, actuary):
    owner_name = f"growers-{uuid.uuid4().hex[:6]}"
    owner = await make_tenant(internal=True, name=owner_name)
    body = {"tenantId": owner.id, "month": f"{YEAR}-05", "monitoringTargetId": TARGET, "limit": inr(500000)}
    for stranger in (tenant, actuary):  # a tenant's internal client, another staff role
        assert_problem(await stranger.post(PATH, json=body), 403)
        assert_problem(await stranger.get(PATH), 403)

    r = await operations_staff.post(PATH, json=body)
    assert r.status_code == 201, r.text
    limit = r.json()
    assert r.headers["location"] == f"{PATH}/{limit['id']}"
    assert limit["tenantId"] == owner.id and limit["month"] == f"{YEAR}-05" and limit["monitoringTargetId"] == TARGET
    assert limit["limit"] == inr(500000) and limit["used"] == inr(0) and limit["remaining"] == inr(500000)
    assert limit["createdBy"] == "olga"
    assert limit["description"] == f"monitoring target {TARGET}, month {YEAR}-05, tenant {owner_name}"

    # One limit per key: a second POST names the one in place.
    again = await operations_staff.post(PATH, json={**body, "limit": inr(1)})
    problem = assert_problem(again, 409)
    assert limit["id"] in problem["detail"] and again.headers["location"] == f"{PATH}/{limit['id']}"
    # Another key (no month: all months) is another limit.
    wider = await set_limit(operations_staff, 900000, tenantId=owner.id)

    listed = (await operations_staff.get(PATH)).json()
    mine = {x["id"]: x for x in listed if x["tenantId"] == owner.id}
    assert set(mine) == {limit["id"], wider["id"]}
    assert mine[wider["id"]]["month"] is None and mine[wider["id"]]["monitoringTargetId"] is None

    changed = await operations_staff._http.put(f"{PATH}/{limit['id']}", json={"limit": inr(600000)},
                                               headers=await operations_staff.headers())
    assert changed.status_code == 200, changed.text
    assert changed.json()["limit"] == inr(600000) and changed.json()["remaining"] == inr(600000)

    # Bad input names its field.
    for bad, field in [
        ({"limit": inr(1), "month": f"{YEAR}-13"}, "month"),
        ({"limit": {"amount": 1, "currency": "USD"}, "tenantId": owner.id}, "limit.currency"),
        ({"limit": inr(1), "monitoringTargetId": "IN-00.000N-000.000E"}, "monitoringTargetId"),
        ({"limit": inr(1), "tenantId": str(uuid.uuid4())}, "tenantId"),
        ({"tenantId": owner.id}, "limit"),
        ({"limit": {"amount": -1, "currency": "INR"}, "tenantId": owner.id}, "limit.amount"),
    ]:
        problem = assert_problem(await operations_staff.post(PATH, json=bad), 400)
        assert [e["field"] for e in problem["errors"]] == [field], (bad, problem)

    for limit_id in (limit["id"], wider["id"]):
        assert (await operations_staff.delete(f"{PATH}/{limit_id}")).status_code == 204
        assert_problem(await operations_staff.get(f"{PATH}/{limit_id}"), 404)
        assert_problem(await operations_staff.delete(f"{PATH}/{limit_id}"), 404)


async def test_a_bind_that_does_not_fit_is_refused_naming_the_limit_and_cancellation_gives_it_back(
    operations_staff, make_tenant, priced
):
    owner_name = f"farmers-{uuid.uuid4().hex[:6]}"
    owner = await make_tenant(internal=True, name=owner_name)
    # Two months (two line items of 100,000, each with two covers of 100,000 limit per unit):
    # the policy can pay at most 200,000 (each line item's cap), 100,000 in each month.
    spanning = await new_quote(owner, start=f"{MARCH}-01", end=f"{YEAR}-04-30")
    assert spanning["capacity"] == {"fits": True, "limit": None, "remaining": None, "required": None, "used": None}
    draft = await owner.patch(f"/quotes/{spanning['id']}")
    assert draft.status_code == 200, draft.text
    draft = draft.json()

    # Limits set now start from what is bound: the draft counts.
    whole = await set_limit(operations_staff, 1000000, tenantId=owner.id)
    march = await set_limit(operations_staff, 150000, tenantId=owner.id, month=MARCH)
    may = await set_limit(operations_staff, 150000, tenantId=owner.id, month=f"{YEAR}-05")
    assert whole["used"] == inr(200000)  # the policy's totalSumInsured, not its covers' limits (400,000)
    assert march["used"] == inr(100000) and march["remaining"] == inr(50000)
    assert may["used"] == inr(0)

    # A March quote of 100,000 does not fit the March limit: the quote says so ...
    second = await new_quote(owner)
    capacity = second["capacity"]
    assert capacity["fits"] is False
    assert capacity["limit"]["id"] == march["id"] and capacity["limit"]["month"] == MARCH
    assert capacity["remaining"] == inr(50000) and capacity["required"] == inr(100000)
    record = (await owner.get(f"/quotes/{second['id']}")).json()
    assert record["capacity"] == capacity

    # ... and binding it is refused, naming the limit and what remains; nothing is written.
    refused = await owner.patch(f"/quotes/{second['id']}")
    problem = assert_problem(refused, 409)
    assert problem["type"].endswith("/capacity-exceeded"), problem
    assert problem["limit"]["id"] == march["id"] and problem["limit"]["month"] == MARCH
    assert problem["limit"]["tenantId"] == owner.id and problem["limit"]["limit"] == inr(150000)
    assert problem["remaining"] == inr(50000) and problem["required"] == inr(100000)
    assert march["id"] in problem["detail"] and "50,000.00" in problem["detail"]
    # the tenant by its name, for people (its id is in the limit's tenantId)
    assert problem["limit"]["description"] == f"all targets, month {MARCH}, tenant {owner_name}"
    assert f"tenant {owner_name}" in problem["detail"] and march["description"] == problem["limit"]["description"]
    assert capacity["limit"]["description"] == problem["limit"]["description"]
    assert (await owner.get(f"/quotes/{second['id']}")).json()["status"] == "CREATED"
    assert await Policy.count().where(Policy.tenant_id == uuid.UUID(owner.id)) == 1
    assert (await limit_now(operations_staff, march["id"]))["used"] == inr(100000)

    # Activation keeps the draft's capacity; cancellation gives it back.
    assert (await owner.patch(f"/policies/{draft['id']}")).status_code == 200
    assert (await limit_now(operations_staff, whole["id"]))["used"] == inr(200000)
    assert (await owner.delete(f"/policies/{draft['id']}")).json()["status"] == "CANCELED"
    assert (await limit_now(operations_staff, whole["id"]))["used"] == inr(0)
    assert (await limit_now(operations_staff, march["id"]))["used"] == inr(0)

    # The refused quote stayed open: with room now, it binds.
    fits = (await owner.get(f"/quotes/{second['id']}")).json()["capacity"]
    assert fits["fits"] is True and fits["remaining"] == inr(150000)
    bound = await owner.patch(f"/quotes/{second['id']}")
    assert bound.status_code == 200, bound.text
    assert (await limit_now(operations_staff, march["id"]))["used"] == inr(100000)
    assert (await limit_now(operations_staff, whole["id"]))["used"] == inr(100000)
    for limit in (whole, march, may):
        used = (await limit_now(operations_staff, limit["id"]))["used"]
        assert amount(used) * 100 == await capacity_db.counted(
            LimitKey(limit["monitoringTargetId"], limit["month"], uuid.UUID(owner.id)), "INR"
        )
        assert (await operations_staff.delete(f"{PATH}/{limit['id']}")).status_code == 204


async def test_twenty_concurrent_binds_against_room_for_ten_bind_exactly_ten(operations_staff, make_tenant, priced):
    """Ten tenants bind two March quotes each at once against a limit on Bengaluru in March
    with room for ten: the tenants' binds do not wait for each other anywhere but at the limit."""
    owners = [await make_tenant(internal=True) for _ in range(10)]
    quotes = []
    for group in (owners[:5], owners[5:]):
        quotes += await asyncio.gather(*[new_quote(owner) for owner in group for _ in range(2)])
    owner_of = {q["id"]: owner for owner, pair in zip(owners, zip(quotes[::2], quotes[1::2])) for q in pair}
    assert len(owner_of) == 20
    # Earlier tests' policies at Bengaluru in March count too: room for exactly ten more.
    limit = await set_limit(operations_staff, 0, monitoringTargetId=TARGET, month=MARCH)
    room = amount(limit["used"]) + 1000000
    r = await operations_staff._http.put(f"{PATH}/{limit['id']}", json={"limit": inr(str(room))},
                                         headers=await operations_staff.headers())
    assert r.status_code == 200 and r.json()["remaining"] == inr(1000000), r.text
    try:
        results = await asyncio.gather(*[owner_of[q["id"]].patch(f"/quotes/{q['id']}", timeout=120) for q in quotes])
        codes = sorted(r.status_code for r in results)
        assert codes == [200] * 10 + [409] * 10, [(r.status_code, r.text[:200]) for r in results]
        for r in results:
            if r.status_code == 409:
                problem = assert_problem(r, 409)
                assert problem["type"].endswith("/capacity-exceeded") and problem["limit"]["id"] == limit["id"]
                # a limit of all tenants: what it has left is never a tenant's to see (issue 33)
                assert "remaining" not in problem and problem["required"] == inr(100000)
        bound = 0
        for owner in owners:
            bound += await Policy.count().where(Policy.tenant_id == uuid.UUID(owner.id))
        assert bound == 10
        now = await limit_now(operations_staff, limit["id"])
        assert amount(now["used"]) == room and now["remaining"] == inr(0)
        assert await capacity_db.counted(LimitKey(TARGET, MARCH, None), "INR") == room * 100
    finally:
        assert (await operations_staff.delete(f"{PATH}/{limit['id']}")).status_code == 204


async def test_a_tenant_never_sees_what_other_tenants_take_of_a_shared_limit(operations_staff, make_tenant, priced):
    """Issue 33: a quote's `capacity` and the 409 reported `remaining` on a limit of all
    tenants, and a tenant watched a competitor bind as a drop of exactly that amount. A tenant
    sees fits / does not fit and its own usage; its view does not move when another binds."""
    watcher, competitor = await make_tenant(internal=True), await make_tenant(internal=True)
    mine = await new_quote(watcher)
    theirs = [await new_quote(competitor, sum_insured=s) for s in (100000, 120000)]
    # A limit on Bengaluru in March for all tenants, with room for 250,000 more.
    limit = await set_limit(operations_staff, 0, monitoringTargetId=TARGET, month=MARCH)
    room = amount(limit["used"]) + 250000
    r = await operations_staff._http.put(f"{PATH}/{limit['id']}", json={"limit": inr(str(room))},
                                         headers=await operations_staff.headers())
    assert r.status_code == 200, r.text
    try:
        before = (await watcher.get(f"/quotes/{mine['id']}")).json()["capacity"]
        assert before["fits"] is True and before["limit"]["id"] == limit["id"]
        assert before["remaining"] is None  # never what a shared limit has left
        assert before["used"] == inr(0) and before["required"] == inr(100000)
        assert (await competitor.patch(f"/quotes/{theirs[0]['id']}")).status_code == 200  # 150,000 left
        assert (await watcher.get(f"/quotes/{mine['id']}")).json()["capacity"] == before  # nothing moved
        assert (await competitor.patch(f"/quotes/{theirs[1]['id']}")).status_code == 200  # 30,000 left
        after = (await watcher.get(f"/quotes/{mine['id']}")).json()["capacity"]
        assert after == {**before, "fits": False}  # only whether it fits
        problem = assert_problem(await watcher.patch(f"/quotes/{mine['id']}"), 409)
        assert problem["limit"]["id"] == limit["id"] and problem["required"] == inr(100000)
        assert "remaining" not in problem and problem["used"] == inr(0)
        assert "30,000" not in problem["detail"] and "remaining" not in problem["detail"]
        # The competitor's own view counts its own binds.
        third = await new_quote(competitor, sum_insured=50000)
        assert third["capacity"]["used"] == inr(220000) and third["capacity"]["remaining"] is None
        # Operations staff keep the full view.
        now = await limit_now(operations_staff, limit["id"])
        assert amount(now["remaining"]) == 30000 and amount(now["used"]) == room - 30000
    finally:
        assert (await operations_staff.delete(f"{PATH}/{limit['id']}")).status_code == 204


async def test_a_lapsed_draft_and_an_expired_policy_give_capacity_back(operations_staff, make_tenant, priced):
    """The lifecycle's own writes (models/db/policies.py set_policy_status, as the policy
    workflow's activities call them at the lapse and at the end)."""
    owner = await make_tenant(internal=True)
    first, second = [await new_quote(owner) for _ in range(2)]
    drafts = [(await owner.patch(f"/quotes/{q['id']}")).json()["id"] for q in (first, second)]
    limit = await set_limit(operations_staff, 1000000, tenantId=owner.id)
    assert limit["used"] == inr(200000)

    lapsed = await set_policy_status(owner.id, uuid.UUID(drafts[0]), PolicyStatus.LAPSED, [PolicyStatus.CREATED], utcnow())
    assert lapsed.applied
    assert (await limit_now(operations_staff, limit["id"]))["used"] == inr(100000)
    # A write that changes nothing gives nothing back.
    again = await set_policy_status(owner.id, uuid.UUID(drafts[0]), PolicyStatus.LAPSED, [PolicyStatus.CREATED], utcnow())
    assert not again.applied
    assert (await limit_now(operations_staff, limit["id"]))["used"] == inr(100000)

    assert (await owner.patch(f"/policies/{drafts[1]}")).status_code == 200
    policy = uuid.UUID(drafts[1])
    assert (await set_policy_status(owner.id, policy, PolicyStatus.ACTIVE, [PolicyStatus.ACCEPTED], utcnow())).applied
    assert (await limit_now(operations_staff, limit["id"]))["used"] == inr(100000)
    assert (await set_policy_status(owner.id, policy, PolicyStatus.EXPIRED, [PolicyStatus.ACTIVE], utcnow())).applied
    assert (await limit_now(operations_staff, limit["id"]))["used"] == inr(0)
    assert (await operations_staff.delete(f"{PATH}/{limit['id']}")).status_code == 204


async def test_the_cli_sets_changes_and_lists_limits(operations_staff, make_tenant):
    """`parametric capacity set` sets the limit on a key or changes the one in place;
    `parametric capacity list` shows them, as the API does."""
    from tests.test_cli import run_cli

    name = f"cap-{uuid.uuid4().hex[:8]}"
    owner = await make_tenant(internal=True, name=name)
    first = run_cli("capacity", "set", "--tenant", name, "--month", MARCH, "--target", TARGET, "--limit", "250000")
    assert first.returncode == 0, first.stderr
    created = json.loads(first.stdout)
    assert created["tenantId"] == owner.id and created["month"] == MARCH and created["monitoringTargetId"] == TARGET
    assert created["limit"]["amount"] == 250000 and created["used"]["amount"] == 0  # numbers, as the API has them
    assert created == await limit_now(operations_staff, created["id"])  # the API's answer, field for field
    assert created["description"] == f"monitoring target {TARGET}, month {MARCH}, tenant {name}"
    assert f"tenant {name}" in first.stderr
    assert "set" in first.stderr

    second = run_cli("capacity", "set", "--tenant", name, "--month", MARCH, "--target", TARGET, "--limit", "300000.50")
    assert second.returncode == 0, second.stderr
    assert json.loads(second.stdout)["id"] == created["id"] and "changed" in second.stderr
    assert (await limit_now(operations_staff, created["id"]))["limit"] == inr(300000.5)

    listed = run_cli("capacity", "list")
    assert listed.returncode == 0, listed.stderr
    from_cli = {x["id"]: x for x in json.loads(listed.stdout)}
    assert from_cli[created["id"]] == await limit_now(operations_staff, created["id"])

    for args, named in [(("--month", f"{YEAR}-13"), "--month"), (("--tenant", "nobody-of-that-name"), "nobody"),
                        (("--target", "IN-00.000N-000.000E"), "IN-00.000N-000.000E")]:
        refused = run_cli("capacity", "set", *args, "--limit", "1")
        assert refused.returncode != 0 and named in refused.stderr, refused.stderr
    refused = run_cli("capacity", "set", "--tenant", name, "--limit", "-5")
    assert refused.returncode != 0 and "--limit" in refused.stderr
    assert (await operations_staff.delete(f"{PATH}/{created['id']}")).status_code == 204


async def test_internal_policies_and_travel_acceptance_are_refused_beyond_a_limit(operations_staff, make_tenant, http,
                                                                                  priced):
    """The internal surface (POST /internal/policies, POST /internal/quotes/{id}/accept) and the
    travel surface's acceptance bind through the same write: refused alike, naming the limit."""
    from tests.api.test_business_partners import PARTNER
    from tests.api.test_fast_quotes import new_fast_quote, wait_for_state
    from tests.api.test_travel import MUMBAI, decide, get_coverages, stay
    from tests.api.test_travel import quote as travel_quote

    owner = await make_tenant(internal=True)
    query = f"targetName=560001&from={MARCH}-01&to={MARCH}-31&size=100"
    covers = [c["id"] for c in (await owner.get(f"/internal/coverages?{query}")).json()["content"] if c["status"] == "ACTIVE"]
    assert covers, query
    customer = (await owner.post("/internal/business-partners", json=PARTNER)).json()["id"]
    created = await owner.post("/internal/fast-quotes", json=new_fast_quote(customer, covers[:1], amount="100000.00"))
    assert created.status_code == 201, created.text
    fast = await wait_for_state(owner, created.json()["id"], ("completed", "error"))
    assert fast["state"] == "completed", fast
    assert fast["capacity"] == {"fits": True, "limit": None, "remaining": None, "required": None, "used": None}
    limit = await set_limit(operations_staff, 60000, tenantId=owner.id)
    capacity = (await owner.get(f"/internal/quotes/{fast['id']}")).json()["capacity"]
    assert capacity["fits"] is False and capacity["limit"]["id"] == limit["id"]
    assert capacity["remaining"] == inr(60000) and capacity["required"] == inr(100000)

    for attempt in (
        owner.post("/internal/policies", json={"@type": "NewPolicyFromQuote", "quoteId": fast["id"]}),
        owner.post(f"/internal/quotes/{fast['id']}/accept", json={"externalPolicyId": "POL-CAP-1"}),
    ):
        problem = assert_problem(await attempt, 409)
        assert problem["type"].endswith("/capacity-exceeded") and problem["limit"]["id"] == limit["id"], problem
        assert problem["remaining"] == inr(60000) and problem["required"] == inr(100000)
    assert (await owner.get(f"/internal/quotes/{fast['id']}")).json()["state"] == "completed"

    check_in, check_out = stay()
    offered = await get_coverages(http, owner, **MUMBAI, time_range=f"{check_in}/{check_out}")
    assert offered.status_code == 200, offered.text
    q = await travel_quote(http, owner, offered.json()["coverages"][0]["id"], max_payout=25000, qty=3, ref="cap-1")
    assert q.status_code in (200, 201), q.text
    refused = await decide(http, owner, q.json()["quote_id"], True)
    problem = assert_problem(refused, 409)
    assert problem["type"].endswith("/capacity-exceeded") and problem["limit"]["id"] == limit["id"], problem
    assert problem["remaining"] == inr(60000) and problem["required"] == inr(75000)
    assert await Policy.count().where(Policy.tenant_id == uuid.UUID(owner.id)) == 0

    # Room made: the same quotes bind.
    raised = await operations_staff._http.put(f"{PATH}/{limit['id']}", json={"limit": inr(175000)},
                                              headers=await operations_staff.headers())
    assert raised.status_code == 200, raised.text
    r = await owner.post("/internal/policies", json={"@type": "NewPolicyFromQuote", "quoteId": fast["id"]})
    assert r.status_code == 201, r.text
    accepted = await decide(http, owner, q.json()["quote_id"], True)
    assert accepted.status_code == 200, accepted.text
    assert (await limit_now(operations_staff, limit["id"]))["used"] == inr(175000)
    assert (await operations_staff.delete(f"{PATH}/{limit['id']}")).status_code == 204
