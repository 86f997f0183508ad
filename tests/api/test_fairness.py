"""Fair pricing capacity (issue 24, finding 5): requests that start pricing count against a
per-tenant quota (in flight and a minute), beyond which the tenant is answered 429 with
Retry-After while another tenant's first request is served; warm reads never count; the
pricing a tenant starts carries it as the Temporal fairness key.

An app with a small quota (2 at once, 3 a minute) and short simulations, on the session's
workers; travel stays at random dates so no other test has priced them."""

from __future__ import annotations

import asyncio
import datetime as dt
import random
from dataclasses import replace

import httpx
import pytest

from tests.conftest import Server, Tenant, assert_problem, free_port

CHENNAI = {"lat": "13.0827", "long": "80.2707"}


@pytest.fixture
async def small_quota(settings, service, temporal_env):
    from api.app import create_app

    app_settings = replace(
        settings, task_queue=service.task_queue, temporal_address=service.temporal_address,
        pricing_in_flight_per_tenant=2, pricing_starts_per_minute=3, simulations=4096,
    )
    async with Server(create_app(app_settings, temporal_env.client), free_port()) as server:
        async with httpx.AsyncClient(base_url=server.base_url, timeout=120) as http:
            yield http


_DRAWN: set[int] = set()  # check-in days drawn by this process: no two tests share a stay


def stays(count: int, nights: int = 2) -> list[str]:
    """Distinct stays no other test asks for (random check-in days a month to a year ahead,
    never one this process drew before: a stay another test priced is a warm read, which
    a quota does not count; test_shared_state's third stay was one in a PostgreSQL run)."""
    days = random.sample([d for d in range(40, 330) if d not in _DRAWN], count)
    _DRAWN.update(days)
    today = dt.date.today()
    return [f"{today + dt.timedelta(days=d)}/P{nights}D" for d in days]


async def cold_stay(http, tenant: Tenant, time_range: str) -> httpx.Response:
    headers = {"Authorization": f"Bearer {tenant.credentials['api_key']}", "x-tenant-id": tenant.id}
    return await http.get(f"/travel/{tenant.id}/coverages", params={**CHENNAI, "time_range": time_range},
                          headers=headers)


async def test_a_tenant_beyond_its_pricing_quota_is_refused_while_another_is_served(
    small_quota, make_tenant, temporal_env
):
    http = small_quota
    burst, quiet = Tenant((await make_tenant()).credentials, http), Tenant((await make_tenant()).credentials, http)
    # One draw for every stay of the test: two separate draws can pick the same check-in day, and
    # a stay B priced first carries B's fairness key (seen once in CI).
    *a_stays, b_stay, spare = stays(6)
    # A asks for three cold stays at once (at most 2 in flight); B asks for its first.
    answers = await asyncio.gather(*(cold_stay(http, burst, s) for s in a_stays[:3]), cold_stay(http, quiet, b_stay))
    a_codes = sorted(r.status_code for r in answers[:3])
    assert a_codes == [200, 200, 429], [r.text for r in answers]
    refused = next(r for r in answers[:3] if r.status_code == 429)
    assert "at once" in assert_problem(refused, 429)["detail"]
    assert int(refused.headers["retry-after"]) >= 1
    assert answers[3].status_code == 200, answers[3].text

    # Two starts so far this minute: of two more at once (two in flight: within that quota) a
    # third is admitted and a fourth refused (3 a minute) with the seconds until the oldest
    # start leaves the minute. Sent together, not one after the other's pricing: on a loaded
    # machine the first two starts could otherwise leave the minute before the fourth came.
    third, fourth = await asyncio.gather(cold_stay(http, burst, a_stays[3]), cold_stay(http, burst, spare))
    assert sorted((third.status_code, fourth.status_code)) == [200, 429], (third.text, fourth.text)
    over = third if third.status_code == 429 else fourth
    body = assert_problem(over, 429)
    assert "in the last minute" in body["detail"]
    assert 1 <= int(over.headers["retry-after"]) <= 60
    assert (over.headers["ratelimit-limit"], over.headers["ratelimit-remaining"]) == ("3", "0")
    # A stay already priced is a read: never counted, served at once (one of the three the
    # burst got priced: which one was refused depends on the order they arrived in).
    served = next(s for s, r in zip(a_stays[:3], answers[:3]) if r.status_code == 200)
    assert (await cold_stay(http, burst, served)).status_code == 200
    # A cold catalogue read or quote of the same tenant is refused as well, pricing nothing
    # (Coimbatore: a target no other test prices).
    from api.catalogue.window import sellable_window
    from models.db.catalogue import target_for_pin
    from models.db.tables import Coverage

    before = await Coverage.count()
    assert_problem(await burst.get("/internal/coverages?targetName=641001&size=1"), 429)
    first, _ = sellable_window(24)
    quote = await burst.post("/quotes", json={
        "monitoringTargetId": await target_for_pin("641001"), "riskPeriodFrom": f"{first}",
        "riskPeriodTo": f"{first.replace(day=28)}", "sumInsuredForLineItem": {"amount": 1000, "currency": "INR"},
    })
    assert_problem(quote, 429)
    assert await Coverage.count() == before

    # The pricing a tenant starts carries it as the Temporal fairness key (its pricing activity
    # inherits it); a tenant's only request runs at priority 2, a burst's others at 3.
    b_priority = await started_priority(temporal_env.client, b_stay)
    assert (b_priority.fairness_key, b_priority.priority_key) == (quiet.id, 2)
    admitted = [s for s, r in zip(a_stays[:3], answers[:3]) if r.status_code == 200]
    a_priorities = [await started_priority(temporal_env.client, s) for s in admitted]
    assert {p.fairness_key for p in a_priorities} == {burst.id}
    assert sorted(p.priority_key for p in a_priorities) == [2, 3]


async def started_priority(client, time_range: str):
    """The priority a stay's TravelCoveragesWorkflow was started with."""
    from models.db import travel as travel_db
    from models.domain import travel
    from models.temporal.travel import travel_coverages_workflow_id

    target_id, _ = await travel_db.nearest_target(float(CHENNAI["lat"]), float(CHENNAI["long"]))
    parsed = travel.parse_stay(time_range, dt.date.today())
    handle = client.get_workflow_handle(travel_coverages_workflow_id(target_id, parsed.first_night, parsed.last_night))
    history = await handle.fetch_history()
    return history.events[0].workflow_execution_started_event_attributes.priority
