"""Observations stored while a settlement runs for the first time are settled (docs/observations.md,
"Settlement notices"): the writer tells the settlements over its rows' days from the settlement
rows it finds after its commit, and a first settlement wrote its rows only when done, after it
had read the data: rows committed in between were told to no settlement and never paid.
Real HTTP (a data staff member's batch), the real settlement workflow and activity on the test's
Temporal server and worker, a real database."""

from __future__ import annotations

import asyncio
import datetime as dt
from decimal import Decimal

from models.db import observations as observations_db
from models.db.tables import Payout
from models.temporal.queues import task_queue
from models.temporal.settlement import data_changed_start
from tests.api.test_observation_revisions import EXCESS, row, settled_past_policy


async def test_a_batch_stored_while_the_first_settlement_reads_is_settled(
    data_staff, tenant, service, temporal_env, monkeypatch
):
    """The month's first settlement has read a dry month (5 mm a day: nothing pays); before it
    writes its state a data staff member stores the corrected month (20 mm a day: the excess
    cover pays its limit). Old code: the batch told 0 settlements and the payout never came."""
    policy = await settled_past_policy(tenant.id, Decimal(5), settle=False)
    read, go = asyncio.Event(), asyncio.Event()
    real = observations_db.daily_values

    async def read_then_wait(target_id, index_code, *args, **kwargs):
        """The real read; the first settlement's last one (the excess cover's) then waits
        for the batch to be stored and told."""
        values = await real(target_id, index_code, *args, **kwargs)
        if target_id == policy.target and index_code == EXCESS and not read.is_set():
            read.set()
            await go.wait()
        return values

    monkeypatch.setattr(observations_db, "daily_values", read_then_wait)
    # The settlement's workflow, as a policy starts it: the period is past, so it settles at once.
    lifecycle = task_queue(service.task_queue, "lifecycle")
    await temporal_env.client.start_workflow(**data_changed_start(policy.target, policy.start, policy.end, lifecycle))
    try:
        await asyncio.wait_for(read.wait(), 60)
        days = [policy.start + dt.timedelta(days=i) for i in range((policy.end - policy.start).days + 1)]
        stored = await data_staff.post("/internal/observations", json={
            "observations": [row(policy, d, 20) for d in days], "reason": "IMD corrected the month",
        })
        assert stored.status_code == 200, stored.text
    finally:
        go.set()
    assert stored.json()["revised"] == len(days) and stored.json()["held"] == 0  # nothing was paid: no four eyes

    async def paid() -> int:
        return sum(p["amount_minor"] for p in await Payout.select(Payout.amount_minor).where(Payout.policy_id == policy.policy_id))

    for _ in range(300):  # the settlement, told, settles again on the stored month once its first run is done
        if await paid():
            break
        await asyncio.sleep(0.2)
    assert stored.json()["settlementsNotified"] == 1
    assert await paid() == 25_000_000  # 2.5 units of the excess cover's 100,000 INR limit
