"""Payout holds keep their promises (docs/roles.md, "Payout holds"): a hold stops the
instruction to pay also when it is already on its way, a release that committed answers 200
whatever Temporal does, and one policy has one hold in place however many ask at once.
Through real HTTP, a real local receiver, the real settlement activity and dispatcher."""

from __future__ import annotations

import asyncio
import datetime as dt
from dataclasses import replace

import httpx
from standardwebhooks import Webhook
from temporalio.client import Client
from temporalio.testing import ActivityEnvironment

from activities.webhooks import deliver_webhook, dispatch_webhooks
from models.temporal.converter import data_converter
from models.temporal.ids import webhook_delivery_workflow_id
from models.temporal.queues import task_queue
from models.temporal.webhooks import DispatchInput
from tests.api.test_payout_holds import _paying_policy, _settle
from tests.api.test_webhooks import Receiver
from tests.conftest import Server, Tenant, assert_problem, free_port

PAYOUT = "payout.recorded"
ON_HOLD = "not sent: the policy's payouts are on hold"


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


async def test_a_hold_stops_a_payout_message_already_on_its_way(make_tenant, operations_staff, service, temporal_env):
    """The hold is placed after the settlement's dispatch, while the receiver fails: the
    delivery's next attempt finds it and sends nothing (it went out on that attempt, the
    hold notwithstanding, and the hold showed 0 messages waiting); released, it is sent."""
    tenant = await make_tenant(internal=True)
    receiver = Receiver(status=500)

    async def dispatch(**options) -> None:
        hooks = task_queue(service.task_queue, "webhooks")
        await ActivityEnvironment(client=temporal_env.client).run(dispatch_webhooks, DispatchInput(task_queue=hooks, **options))

    async with Server(receiver.app, free_port()) as server:
        endpoint = (await tenant.post("/internal/webhook-endpoints", json={"url": f"{server.base_url}/hook"})).json()
        verifier = Webhook(endpoint["secret"])
        policy, start, end = await _paying_policy(tenant, dt.date.today().year + 1, month=7)

        def payout_messages(since: int = 0) -> int:
            return sum(
                1 for h, b in receiver.received[since:]
                if policy["id"].encode() in b and verifier.verify(b, h)["type"] == PAYOUT
            )

        async def wait_for(condition, seconds: float = 30) -> None:
            for _ in range(int(seconds * 5)):
                if await condition():
                    return
                await asyncio.sleep(0.2)

        await _settle(start, end)  # a wet July: the policy is paid 100,000
        await dispatch()  # the settlement's own dispatch: the payout message is on its way
        await wait_for(lambda: asyncio.sleep(0, payout_messages() > 0))
        assert payout_messages() == 1  # refused (500): retried 5 s later, then backing off

        held = await operations_staff.post("/internal/payout-holds", json={"policyId": policy["id"], "reason": "sanctions"})
        assert held.status_code == 201, held.text
        hold = held.json()
        receiver.status, switched = 200, len(receiver.received)  # the receiver is back

        async def next_attempt_done() -> bool:
            deliveries = (await tenant.get(f"/internal/webhook-endpoints/{endpoint['id']}/deliveries")).json()
            return payout_messages(switched) > 0 or any(d["lastError"].startswith(ON_HOLD) for d in deliveries)

        await wait_for(next_attempt_done)
        assert payout_messages(switched) == 0, "the instruction to pay went out while the policy was held"
        view = (await operations_staff.get(f"/internal/payout-holds/{hold['id']}")).json()
        assert view["waitingMessages"] == 1  # recorded, dispatched, not sent
        await asyncio.sleep(6)  # nothing more is attempted while held
        assert payout_messages(switched) == 0

        [delivery] = [d for d in (await tenant.get(f"/internal/webhook-endpoints/{endpoint['id']}/deliveries")).json()
                      if d["lastError"].startswith(ON_HOLD)]
        assert delivery["status"] == "PENDING"

        async def attempt_of_first_run():
            """An attempt of the run the hold stopped (a retry Temporal still had in hand)."""
            env = ActivityEnvironment(client=temporal_env.client)
            env.info = replace(env.info, workflow_id=webhook_delivery_workflow_id(delivery["id"]))
            return await env.run(deliver_webhook, delivery["id"])

        assert not (await attempt_of_first_run()).delivered  # still held: not sent

        released = await operations_staff.post(f"/internal/payout-holds/{hold['id']}/release", json={"reason": "cleared"})
        assert released.status_code == 200, released.text
        stale = await attempt_of_first_run()  # released, but that run is over: the run after the hold sends it
        assert not stale.delivered and stale.detail.endswith(f"{delivery['id']}:after-hold-1"), stale
        assert payout_messages(switched) == 0
        await dispatch(orphaned_after_seconds=0)  # the webhook-dispatch Schedule's next pass, now
        await wait_for(lambda: asyncio.sleep(0, payout_messages(switched) > 0))
        assert payout_messages(switched) == 1

        async def none_waiting() -> bool:
            return (await operations_staff.get(f"/internal/payout-holds/{hold['id']}")).json()["waitingMessages"] == 0

        await wait_for(none_waiting)
        assert await none_waiting()
        deliveries = (await tenant.get(f"/internal/webhook-endpoints/{endpoint['id']}/deliveries")).json()
        assert {d["status"] for d in deliveries} == {"DELIVERED"}, deliveries
        assert (await attempt_of_first_run()).detail == "delivered before"
        await dispatch(orphaned_after_seconds=0)  # later passes start nothing again
        await asyncio.sleep(1)
        assert payout_messages(switched) == 1  # paid once
