"""Operations staff hold and release a policy's payouts (issue 24, "operations: ... hold or
release payouts"; docs/roles.md): settlement goes on while held, the instruction to pay
(`payout.recorded`) waits in the outbox and goes out, signed, once released. Through real
HTTP, a real local receiver, the real settlement activity and the real dispatcher."""

from __future__ import annotations

import asyncio
import datetime as dt
import uuid
from decimal import Decimal

from standardwebhooks import Webhook
from temporalio.testing import ActivityEnvironment

from activities.settlement import settle_period
from activities.webhooks import dispatch_webhooks
from models.db import observations as observations_db
from models.domain.observations import ObservationIn
from models.temporal.queues import task_queue
from models.temporal.settlement import SettlePeriodInput
from models.temporal.webhooks import DispatchInput
from tests.api.test_webhooks import Receiver
from tests.conftest import Server, assert_problem, free_port

TARGET = "IN-22.625N-088.375E"  # Kolkata, pin code 700001


async def _paying_policy(tenant, year: int, month: int = 6) -> tuple[dict, dt.date, dt.date]:
    """A policy over `month` of `year` at Kolkata. Tests that settle use a month of their own:
    a cover on its source ladder settled once (every policy holding it paid) is not settled
    again on the same values, and activation is refused once a period has begun, so only a
    test could add a policy to a settled cover (docs/settlement.md, "Two payments")."""
    first = dt.date(year, month, 1)
    last = (first + dt.timedelta(days=32)).replace(day=1) - dt.timedelta(days=1)
    body = {"monitoringTargetId": TARGET, "riskPeriodFrom": f"{first}", "riskPeriodTo": f"{last}",
            "sumInsuredForLineItem": {"amount": 100000, "currency": "INR"}}
    quote = await tenant.post("/quotes", json=body, timeout=600)
    assert quote.status_code == 200, quote.text
    policy = (await tenant.patch(f"/quotes/{quote.json()['id']}")).json()
    assert (await tenant.patch(f"/policies/{policy['id']}")).status_code == 200
    return policy, first, last


async def _settle(start: dt.date, end: dt.date) -> None:
    days = [start + dt.timedelta(days=i) for i in range((end - start).days + 1)]
    for data_set, variable, value in (("IMD-RF-DAILY", "rainfall_mm", 150), ("IMD-TMAX-1DEG", "temperature_c", 28),
                                      ("IBTRACS-WIND", "wind_kmh", 20)):
        await observations_db.store_batch([ObservationIn(TARGET, data_set, variable, d, None, Decimal(value), "test") for d in days])
    at = dt.datetime.combine(end + dt.timedelta(days=4), dt.time(0), tzinfo=dt.timezone.utc)
    outcome = await ActivityEnvironment().run(settle_period, SettlePeriodInput(target_id=TARGET, start=start, end=end, at=at))
    assert outcome.state == "SETTLED", outcome


async def _received(receiver: Receiver, policy_id: str, types: set[str], secret: str, seconds: float = 30) -> set[str]:
    verifier = Webhook(secret)
    for _ in range(int(seconds * 10)):
        seen = {verifier.verify(b, h)["type"] for h, b in receiver.received if policy_id.encode() in b}
        if types <= seen:
            return seen
        await asyncio.sleep(0.1)
    return {verifier.verify(b, h)["type"] for h, b in receiver.received if policy_id.encode() in b}


async def test_held_payouts_wait_for_their_release(make_tenant, operations_staff, service, temporal_env):
    tenant = await make_tenant(internal=True)
    stranger = await make_tenant(internal=True)
    receiver = Receiver()
    dispatch = lambda: ActivityEnvironment(client=temporal_env.client).run(  # noqa: E731
        dispatch_webhooks, DispatchInput(task_queue=task_queue(service.task_queue, "webhooks"))
    )
    async with Server(receiver.app, free_port()) as server:
        endpoint = (await tenant.post("/internal/webhook-endpoints", json={"url": f"{server.base_url}/hook"})).json()
        policy, start, end = await _paying_policy(tenant, dt.date.today().year + 1)

        # Only operations staff hold payouts; the tenant itself, or another, may not.
        body = {"policyId": policy["id"], "reason": "sanctions screening of the payee"}
        assert_problem(await tenant.post("/internal/payout-holds", json=body), 403)
        held = await operations_staff.post("/internal/payout-holds", json=body)
        assert held.status_code == 201, held.text
        hold = held.json()
        assert held.headers["location"] == f"/internal/payout-holds/{hold['id']}"
        assert hold["state"] == "HELD" and hold["heldBy"] == "olga" and hold["tenantId"] == tenant.id
        again = assert_problem(await operations_staff.post("/internal/payout-holds", json=body), 409)
        assert hold["id"] in again["detail"]

        await _settle(start, end)  # a wet June: the excess cover pays 100,000
        await dispatch()
        seen = await _received(receiver, policy["id"], {"parametric_event.validated"}, endpoint["secret"])
        await asyncio.sleep(1)  # nothing more arrives while held
        seen = await _received(receiver, policy["id"], {"parametric_event.validated"}, endpoint["secret"], seconds=0.1)
        assert seen == {"parametric_event.validated"}  # the event is a fact; the instruction to pay waits
        view = (await operations_staff.get(f"/internal/payout-holds/{hold['id']}")).json()
        assert view["payoutsWhileHeld"] == 1 and view["amountWhileHeld"] == {"amount": 100000, "currency": "INR"}
        assert view["waitingMessages"] == 1
        # The policy holder's insurer sees that its payouts are held and since when, nothing else
        # (issue 33: it read the reason and the staff member's name: a tipping-off risk); nobody
        # else sees the hold.
        theirs = await tenant.get(f"/internal/payout-holds/{hold['id']}")
        assert theirs.json() == {"id": hold["id"], "policyId": policy["id"], "state": "HELD", "heldAt": view["heldAt"],
                                 "releasedAt": None}
        listed = await tenant.get("/internal/payout-holds?state=HELD")
        assert listed.json() == [theirs.json()]
        for answer in (theirs, listed):
            assert "sanctions" not in answer.text and "olga" not in answer.text
        assert_problem(await stranger.get(f"/internal/payout-holds/{hold['id']}"), 404)
        assert (await stranger.get("/internal/payout-holds")).json() == []
        assert_problem(await tenant.get(f"/internal/payout-holds?tenantId={stranger.id}"), 400)
        assert_problem(await tenant.post(f"/internal/payout-holds/{hold['id']}/release"), 403)

        released = await operations_staff.post(f"/internal/payout-holds/{hold['id']}/release",
                                               json={"reason": "screening cleared"})
        assert released.status_code == 200, released.text
        assert released.json()["state"] == "RELEASED" and released.json()["releasedBy"] == "olga"
        after = await tenant.get(f"/internal/payout-holds/{hold['id']}")
        assert after.json() == {**theirs.json(), "state": "RELEASED", "releasedAt": released.json()["releasedAt"]}
        assert "screening cleared" not in after.text and "olga" not in after.text
        seen = await _received(receiver, policy["id"], {"payout.recorded"}, endpoint["secret"])
        assert seen == {"parametric_event.validated", "payout.recorded"}
        assert_problem(await operations_staff.post(f"/internal/payout-holds/{hold['id']}/release"), 409)
        assert (await operations_staff.get(f"/internal/payout-holds/{hold['id']}")).json()["waitingMessages"] == 0


async def test_holding_an_unknown_policy_is_404_and_bad_bodies_400(operations_staff):
    assert_problem(await operations_staff.post("/internal/payout-holds",
                                               json={"policyId": str(uuid.uuid4()), "reason": "x"}), 404)
    problem = assert_problem(await operations_staff.post("/internal/payout-holds",
                                                         json={"policyId": str(uuid.uuid4()), "reason": "  "}), 400)
    assert problem["errors"][0]["field"] == "reason"
    assert_problem(await operations_staff.post("/internal/payout-holds", json={"reason": "x"}), 400)
    assert_problem(await operations_staff.get(f"/internal/payout-holds/{uuid.uuid4()}"), 404)
