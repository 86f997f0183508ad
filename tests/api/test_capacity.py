"""Capacity limits through HTTP (issue 27; docs/capacity.md): operations staff set them, quotes
show whether they fit, binding takes capacity atomically (exactly, under concurrency) and is
refused with a 409 naming the limit, and cancellation, expiry and lapse give it back.

Every limit here is keyed to a tenant made for the test (or removed before the test ends), so
the rest of the suite never meets one."""

from __future__ import annotations

import datetime as dt
import json
import uuid
from decimal import Decimal

import pytest

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
    owner = await make_tenant(internal=True)
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
    assert limit["description"] == f"monitoring target {TARGET}, month {YEAR}-05, tenant {owner.id}"

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
    assert Decimal(created["limit"]["amount"]) == 250000 and created["used"]["amount"] == "0.00"
    assert "set" in first.stderr

    second = run_cli("capacity", "set", "--tenant", name, "--month", MARCH, "--target", TARGET, "--limit", "300000.50")
    assert second.returncode == 0, second.stderr
    assert json.loads(second.stdout)["id"] == created["id"] and "changed" in second.stderr
    assert (await limit_now(operations_staff, created["id"]))["limit"] == inr(300000.5)

    listed = run_cli("capacity", "list")
    assert listed.returncode == 0, listed.stderr
    assert created["id"] in {x["id"] for x in json.loads(listed.stdout)}

    for args, named in [(("--month", f"{YEAR}-13"), "--month"), (("--tenant", "nobody-of-that-name"), "nobody"),
                        (("--target", "IN-00.000N-000.000E"), "IN-00.000N-000.000E")]:
        refused = run_cli("capacity", "set", *args, "--limit", "1")
        assert refused.returncode != 0 and named in refused.stderr, refused.stderr
    refused = run_cli("capacity", "set", "--tenant", name, "--limit", "-5")
    assert refused.returncode != 0 and "--limit" in refused.stderr
    assert (await operations_staff.delete(f"{PATH}/{created['id']}")).status_code == 204
