"""Signed webhooks received by a real local HTTP server: an endpoint registered over HTTP
(secret shown once), a policy settled that pays, the outbox dispatched to delivery
workflows on the dev server; every message verifies with the `standardwebhooks` package.
A receiver that keeps failing gets its deliveries retried with backoff over the window,
then FAILED, and its endpoint disabled with the reason (time-skipping server)."""

from __future__ import annotations

import asyncio
import datetime as dt
import uuid
from decimal import Decimal

import pytest
from litestar import Litestar, Request, post
from standardwebhooks import Webhook
from temporalio.testing import ActivityEnvironment

from activities.settlement import settle_period
from activities.webhooks import dispatch_webhooks
from models.db import observations as observations_db
from models.domain.observations import ObservationIn
from models.temporal.queues import task_queue
from models.temporal.settlement import SettlePeriodInput
from models.temporal.webhooks import DispatchInput
from tests.conftest import Server, assert_problem, free_port

TARGET = "IN-18.625N-073.875E"  # Pune, pin code 411001


class Receiver:
    """Collects what it is sent; answers `status`."""

    def __init__(self, status: int = 204) -> None:
        self.status = status
        self.received: list[tuple[dict, bytes]] = []

        @post("/hook", status_code=200)
        async def hook(request: Request) -> None:
            self.received.append((dict(request.headers), await request.body()))
            if self.status >= 300:
                from litestar.exceptions import HTTPException

                raise HTTPException(status_code=self.status, detail="receiver down")

        self.app = Litestar([hook])


async def _settle_a_paying_policy(tenant, year: int) -> dict:
    body = {"monitoringTargetId": TARGET, "riskPeriodFrom": f"{year}-07-01", "riskPeriodTo": f"{year}-07-31",
            "sumInsuredForLineItem": {"amount": 100000, "currency": "INR"}}
    quote = (await tenant.post("/quotes", json=body, timeout=600)).json()
    policy = (await tenant.patch(f"/quotes/{quote['id']}")).json()
    assert (await tenant.patch(f"/policies/{policy['id']}")).status_code == 200
    start, end = dt.date(year, 7, 1), dt.date(year, 7, 31)
    days = [start + dt.timedelta(days=i) for i in range(31)]
    await observations_db.store_batch([ObservationIn(TARGET, "IMD-RF-DAILY", "rainfall_mm", d, None, Decimal(90), "IMD") for d in days])
    await observations_db.store_batch([ObservationIn(TARGET, "REAN-SFC-HOURLY", "temperature_c", d, None, Decimal(28), "ERA5") for d in days])
    await observations_db.store_batch([ObservationIn(TARGET, "REAN-SFC-HOURLY", "wind_kmh", d, None, Decimal(20), "ERA5") for d in days])
    at = dt.datetime.combine(end + dt.timedelta(days=4), dt.time(0), tzinfo=dt.timezone.utc)
    outcome = await ActivityEnvironment().run(settle_period, SettlePeriodInput(target_id=TARGET, start=start, end=end, at=at))
    assert outcome.state == "SETTLED", outcome
    return policy


async def test_settled_events_arrive_signed_at_the_registered_endpoint(make_tenant, service, temporal_env):
    tenant = await make_tenant(internal=True)  # its own: no other test's messages reach this endpoint
    receiver = Receiver()
    async with Server(receiver.app, free_port()) as server:
        r = await tenant.post("/internal/webhook-endpoints", json={"url": f"{server.base_url}/hook", "description": "claims"})
        assert r.status_code == 201, r.text
        endpoint = r.json()
        secret = endpoint["secret"]
        assert secret.startswith("whsec_") and r.headers["location"] == f"/internal/webhook-endpoints/{endpoint['id']}"
        shown = (await tenant.get(f"/internal/webhook-endpoints/{endpoint['id']}")).json()
        assert "secret" not in shown and shown["status"] == "ENABLED" and shown["eventTypes"] == ["*"]

        policy = await _settle_a_paying_policy(tenant, dt.date.today().year + 1)
        dispatched = await ActivityEnvironment(client=temporal_env.client).run(
            dispatch_webhooks, DispatchInput(task_queue=task_queue(service.task_queue, "webhooks"))
        )
        assert dispatched >= 2
        for _ in range(300):
            mine = [(h, b) for h, b in receiver.received if policy["id"].encode() in b]
            if len(mine) >= 2:
                break
            await asyncio.sleep(0.1)
        verifier = Webhook(secret)
        payloads = [verifier.verify(body, headers) for headers, body in mine]  # raises if a signature is wrong
        assert sorted(p["type"] for p in payloads) == ["parametric_event.validated", "payout.recorded"]
        assert all(p["data"]["policyId"] == policy["id"] and p["data"]["payout"] == {"amount": "100000.00", "currency": "INR"} for p in payloads)
        assert len({h["webhook-id"] for h, _ in mine}) == 2
        # A tampered body or another secret does not verify.
        headers, body = mine[0]
        with pytest.raises(Exception):
            verifier.verify(body.replace(b"100000.00", b"900000.00"), headers)
        with pytest.raises(Exception):
            Webhook("whsec_" + "A" * 43 + "=").verify(body, headers)
        deliveries = (await tenant.get(f"/internal/webhook-endpoints/{endpoint['id']}/deliveries")).json()
        assert {d["status"] for d in deliveries} == {"DELIVERED"} and all(d["lastStatusCode"] == 200 for d in deliveries)


async def test_endpoint_registration_is_checked_and_tenant_scoped(tenant, other_tenant):
    assert_problem(await tenant.post("/internal/webhook-endpoints", json={"url": "ftp://example.com/x"}), 400)
    bad = assert_problem(await tenant.post("/internal/webhook-endpoints", json={"url": "https://receiver.example.invalid/x", "eventTypes": ["nope"]}), 400)
    assert bad["errors"][0]["field"] == "eventTypes"
    created = (await tenant.post("/internal/webhook-endpoints", json={"url": "https://receiver.example.invalid/x", "eventTypes": ["policy.expired"]})).json()
    assert_problem(await other_tenant.get(f"/internal/webhook-endpoints/{created['id']}"), 404)
    assert all(e["id"] != created["id"] for e in (await other_tenant.get("/internal/webhook-endpoints")).json())
    assert (await tenant.post(f"/internal/webhook-endpoints/{created['id']}/disable")).json()["status"] == "DISABLED"
    assert (await tenant.post(f"/internal/webhook-endpoints/{created['id']}/enable")).json()["status"] == "ENABLED"
    await tenant.post(f"/internal/webhook-endpoints/{created['id']}/disable")  # nothing is sent to it
    assert_problem(await tenant.get(f"/internal/webhook-endpoints/{uuid.uuid4()}"), 404)
