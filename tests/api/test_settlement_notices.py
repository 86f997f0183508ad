"""Observations stored, settlements told: a sweep instead of a dual write (issue 25,
finding 1a; docs/observations.md, "Settlements are told").

Storing observations and telling the settlements over their days were two writes: when the
second was lost (Temporal unreachable, or the process died after the commit), a retry found
the rows unchanged and told nothing, and a SETTLED settlement re-settles only when told, so
the revision was never paid. Now the rows' settlement notices commit with them, and the
`settlement-notices` Schedule's sweep tells every notice left untold. The crash windows are
shown for real: a batch stored through an API whose Temporal is unreachable, and a held
revision approved by the store function the approval runs, with no one left to tell."""

from __future__ import annotations

import asyncio
import datetime as dt
import uuid
from dataclasses import replace
from decimal import Decimal

import httpx
import pytest
from temporalio.client import Client, ScheduleOverlapPolicy
from temporalio.service import RPCError

from models.db import observation_revisions as revisions_db
from models.domain.observations import ObservationIn, Provenance
from models.temporal.converter import data_converter
from models.temporal.ids import settlement_workflow_id
from models.temporal.observations import INGEST_SCHEDULE_ID
from models.temporal.webhooks import DISPATCH_SCHEDULE_ID
from tests.api.test_observation_revisions import _adjustments, _events, _stored, row, settled_past_policy
from tests.conftest import Server, Tenant, free_port

# The sweep's Schedule (models.temporal.observations.NOTICE_SWEEP_SCHEDULE_ID), by its name:
# on the code before the sweep, the tests fail where it is missing, not at an import.
NOTICE_SWEEP_SCHEDULE_ID = "settlement-notices"


@pytest.fixture
async def schedules(service, temporal_env, settings):
    """The Schedules a worker creates (workflows.worker.ensure_schedules) for the test
    service's queues; deleted afterwards, so no other test sees them run."""
    from workflows.worker import ensure_schedules

    await ensure_schedules(temporal_env.client, replace(settings, task_queue=service.task_queue))
    yield temporal_env.client
    for schedule_id in (NOTICE_SWEEP_SCHEDULE_ID, DISPATCH_SCHEDULE_ID, INGEST_SCHEDULE_ID, "start-sweep"):
        try:
            await temporal_env.client.get_schedule_handle(schedule_id).delete()
        except RPCError:
            pass


async def sweep_until(client: Client, done, timeout: float = 90) -> None:
    """Run the settlement-notices Schedule now, again and again (as its minutes would), until
    `done()` holds."""
    handle = client.get_schedule_handle(NOTICE_SWEEP_SCHEDULE_ID)
    deadline = asyncio.get_running_loop().time() + timeout
    while not await done():
        assert asyncio.get_running_loop().time() < deadline, "the sweep did not tell the settlement"
        await handle.trigger(overlap=ScheduleOverlapPolicy.ALLOW_ALL)
        await asyncio.sleep(2)


def create_api(settings, temporal: Client):
    from api.app import create_app

    return create_app(settings, temporal)


async def past_policy(tenant_id: str, daily_mm: Decimal):
    """`settled_past_policy`, its own store's notice told (its settlement ran: the test
    settled it), so only what the test stores next is left to tell."""
    from models.clock import utcnow

    policy = await settled_past_policy(tenant_id, daily_mm)
    try:
        from models.db.tables import SettlementNotice
    except ImportError:  # the code before notices (run to see these tests fail on it)
        return policy
    await SettlementNotice.update({SettlementNotice.notified_at: utcnow()}).where(
        SettlementNotice.monitoring_target_id == policy.target
    )
    return policy


async def _notices(target: str) -> list[dict]:
    from models.db.tables import SettlementNotice

    return await SettlementNotice.select(SettlementNotice.notified_at, SettlementNotice.settlements).where(
        SettlementNotice.monitoring_target_id == target
    ).order_by(SettlementNotice.created_at)


async def test_a_batch_stored_while_temporal_was_unreachable_is_re_settled_by_the_sweep(
    data_staff, tenant, service, settings, temporal_env, schedules
):
    policy = await past_policy(tenant.id, Decimal(40))  # far beyond the limit: a revision changes no amount
    day = policy.start
    batch = {"observations": [row(policy, day, 41)], "reason": "re-read"}
    # An API process whose Temporal is unreachable: the batch commits, telling fails.
    unreachable = await Client.connect(f"127.0.0.1:{free_port()}", lazy=True, data_converter=data_converter)
    cut_off = create_api(replace(settings, task_queue=service.task_queue), unreachable)
    async with Server(cut_off, free_port()) as server, httpx.AsyncClient(base_url=server.base_url, timeout=60) as http:
        first = await Tenant(data_staff.credentials, http).post("/internal/observations", json=batch)
    assert first.status_code == 200, first.text  # stored: a 5xx would have the client retry for nothing
    assert first.json() == {
        "received": 1, "new": 0, "revised": 1, "unchanged": 0, "settlementsNotified": 0, "held": 0, "heldRevisionId": None,
    }
    assert [(s["revision"], s["value"]) for s in await _stored(policy, day)][-1] == (2, Decimal(41))
    # The client's retry (through the working API) finds the rows unchanged and tells nothing.
    again = await data_staff.post("/internal/observations", json=batch)
    assert (again.json()["unchanged"], again.json()["settlementsNotified"]) == (1, 0)
    handle = temporal_env.client.get_workflow_handle(settlement_workflow_id(policy.target, policy.start, policy.end))
    with pytest.raises(RPCError):  # no settlement was told: none runs
        await handle.describe()
    notice = (await _notices(policy.target))[-1]
    assert notice["notified_at"] is None

    async def re_settled() -> bool:
        try:
            status = await handle.query("status")
        except RPCError:
            return False
        return status["settlementRuns"] >= 1 and all(c["revision"] == 2 for c in status["coverages"])

    await sweep_until(temporal_env.client, re_settled)
    status = await handle.query("status")
    assert all(c["state"] == "SETTLED" and c["revision"] == 2 for c in status["coverages"]), status
    notice = (await _notices(policy.target))[-1]
    assert notice["notified_at"] is not None and notice["settlements"] == 1


async def test_an_approval_that_died_after_storing_its_rows_is_paid_by_the_sweep(tenant, temporal_env, schedules):
    """A provider's revision held for four eyes and approved: the approval's store commits
    the rows (as the decide activity does) and its process dies before telling the
    settlement. The sweep tells it, and the policy is paid its ADJUSTMENT."""
    policy = await past_policy(tenant.id, Decimal(10))
    settled = await _events(tenant, policy)
    provider = Provenance(submitted_by="provider:imd-grid", reason="imd-grid published these values")
    held = await revisions_db.submit_batch(
        [ObservationIn(policy.target, "IMD-RF-DAILY", "rainfall_mm", policy.start, None, Decimal(20), "IMD")], provider
    )
    assert (held.held, held.stored) == (1, [])
    decided = await revisions_db.decide(held.revision_id, revisions_db.APPROVED, "staff:dana", "checked with IMD")
    assert decided.state == revisions_db.APPROVED and len(decided.rows) == 1
    # ... and here the approving process died: nothing told the settlement.
    assert await _adjustments(tenant, policy, timeout=3) == []
    assert await _events(tenant, policy) == settled

    async def paid() -> bool:
        return bool(await _adjustments(tenant, policy, timeout=0))

    await sweep_until(temporal_env.client, paid)
    [adjustment] = await _adjustments(tenant, policy)
    assert adjustment["payout"] == {"amount": 12500, "currency": "INR"} and adjustment["revision"] == 2  # 10 mm × 500 × 2.5
    told = [n for n in await _notices(policy.target) if n["settlements"]]
    assert len(told) == 1 and told[0]["notified_at"] is not None


async def test_notices_commit_with_their_rows_and_name_their_days(database):
    """One notice per target and store, naming the days of the rows stored (not those found
    unchanged); a replayed batch writes none."""
    from models.db import observations as observations_db
    from models.db.tables import MonitoringTarget
    from models.db.core import json_value
    from models.db.tables import SettlementNotice

    targets = [r["id"] for r in await MonitoringTarget.select(MonitoringTarget.id).limit(2)]
    day = dt.date(2001, 1, 1) + dt.timedelta(days=uuid.uuid4().int % 3000)
    rows = [ObservationIn(t, "IMD-RF-DAILY", "rainfall_mm", day + dt.timedelta(days=k), None, Decimal(k), "IMD")
            for t in targets for k in (0, 2)]
    outcome = await observations_db.store_batch(rows)
    assert len(outcome.notices) == 2
    stored = await SettlementNotice.select().where(SettlementNotice.id.is_in(list(outcome.notices)))
    assert {(n["monitoring_target_id"], tuple(json_value(n["days"]))) for n in stored} == {
        (t, (day.isoformat(), (day + dt.timedelta(days=2)).isoformat())) for t in targets
    }
    assert all(n["notified_at"] is None for n in stored)
    assert (await observations_db.store_batch(rows)).notices == ()
