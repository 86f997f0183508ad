"""Payout holds keep their promises (docs/roles.md, "Payout holds"): a hold stops the
instruction to pay also when it is already on its way, a release that committed answers 200
whatever Temporal does, and one policy has one hold in place however many ask at once.
Through real HTTP, a real local receiver, the real settlement activity and dispatcher."""

from __future__ import annotations

import asyncio
import datetime as dt
from dataclasses import replace

import httpx
from temporalio.client import Client

from models.temporal.converter import data_converter
from tests.api.test_payout_holds import _paying_policy
from tests.conftest import Server, Tenant, assert_problem, free_port


def _api(settings, service, temporal: Client):
    from api.app import create_app

    return create_app(replace(settings, task_queue=service.task_queue), temporal)


async def test_a_release_that_committed_answers_200_when_temporal_is_unreachable(
    make_tenant, operations_staff, service, settings
):
    """The release commits, then starts a dispatch at once (a shortcut: the `webhook-dispatch`
    Schedule finds the messages anyway). With Temporal unreachable that start failed after
    the commit: the client got a 5xx, and its retry a 409 "released before"."""
    tenant = await make_tenant(internal=True)
    policy, _, _ = await _paying_policy(tenant, dt.date.today().year + 1)
    held = await operations_staff.post("/internal/payout-holds", json={"policyId": policy["id"], "reason": "screening"})
    assert held.status_code == 201, held.text
    hold_id = held.json()["id"]
    unreachable = await Client.connect(f"127.0.0.1:{free_port()}", lazy=True, data_converter=data_converter)
    async with Server(_api(settings, service, unreachable), free_port()) as server, httpx.AsyncClient(
        base_url=server.base_url, timeout=60
    ) as http:
        staff = Tenant(operations_staff.credentials, http)
        released = await staff.post(f"/internal/payout-holds/{hold_id}/release", json={"reason": "cleared"})
        assert released.status_code == 200, released.text
        assert released.json()["state"] == "RELEASED" and released.json()["releaseReason"] == "cleared"
        assert_problem(await staff.post(f"/internal/payout-holds/{hold_id}/release"), 409)


async def test_one_hold_per_policy_when_several_ask_at_once(make_tenant, operations_staff):
    """Holds asked for at once: one is placed (201), the others answer 409 naming it. The
    check-then-insert let each of them through on PostgreSQL (READ COMMITTED: none saw the
    others' uncommitted row): two HELD holds, one of which a release left in place."""
    tenant = await make_tenant(internal=True)
    policy, _, _ = await _paying_policy(tenant, dt.date.today().year + 1)
    body = {"policyId": policy["id"], "reason": "disputed claim"}
    for _ in range(4):
        answers = await asyncio.gather(*(operations_staff.post("/internal/payout-holds", json=body) for _ in range(4)))
        assert sorted(a.status_code for a in answers) == [201, 409, 409, 409], [a.text for a in answers]
        [placed] = [a.json()["id"] for a in answers if a.status_code == 201]
        for refused in (a for a in answers if a.status_code == 409):
            problem = assert_problem(refused, 409)
            assert placed in problem["detail"] and refused.headers["location"] == f"/internal/payout-holds/{placed}"
        held = (await operations_staff.get(f"/internal/payout-holds?policyId={policy['id']}&state=HELD")).json()
        assert [h["id"] for h in held] == [placed]
        assert (await operations_staff.post(f"/internal/payout-holds/{placed}/release")).status_code == 200
