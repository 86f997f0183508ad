"""Every 400 names the field it refuses, in `errors[]` (issue 29, validation: "some 400s carry
no errors[]"): the header, query and Idempotency-Key checks answered a sentence alone."""

from __future__ import annotations

from tests.conftest import assert_problem


def _fields(problem: dict) -> list[str]:
    return [e["field"] for e in problem.get("errors") or []]


async def test_header_query_and_key_refusals_name_their_field(http, tenant):
    token = await tenant.token()
    bare = {"Authorization": f"Bearer {token}"}
    assert _fields(assert_problem(await http.get("/quotes", headers=bare), 400)) == ["x-tenant-id"]
    twice = [("Authorization", f"Bearer {token}"), ("x-tenant-id", tenant.id), ("x-tenant-id", tenant.id)]
    assert _fields(assert_problem(await http.get("/quotes", headers=twice), 400)) == ["x-tenant-id"]
    assert _fields(assert_problem(await tenant.get("/policies?size=0"), 400)) == ["size"]
    assert _fields(assert_problem(await tenant.get("/policies?from=2027-02-01&to=2027-01-01"), 400)) == ["to"]
    assert _fields(assert_problem(await tenant.get("/internal/coverages?targetName=56"), 400)) == ["targetName"]
    other = "/internal/coverages?targetName=560001&monitoringTargetId=IN-19.125N-072.875E"
    assert _fields(assert_problem(await tenant.get(other), 400)) == ["monitoringTargetId"]
    long_key = {"Idempotency-Key": "k" * 201}
    body = {"monitoringTargetId": "IN-12.875N-077.625E", "riskPeriodFrom": "2027-01-01", "riskPeriodTo": "2027-01-31",
            "sumInsuredForLineItem": {"amount": 1000, "currency": "INR"}}
    assert _fields(assert_problem(await tenant.post("/quotes", json=body, headers=long_key), 400)) == ["Idempotency-Key"]
