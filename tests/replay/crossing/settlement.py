"""Phase 1 of tests/replay/cross.py on a release with settlement: 032a8a3 (v3, settlement
as first recorded) or a7cd5d8 (v4: issue 24's release, the last before the bounded
histories of issue 25).

Run by cross.py with that commit's tree first on PYTHONPATH, against the server and the
SQLite file phase 2 then continues with:

    python tests/replay/crossing/settlement.py SCENARIO TARGET QUEUE STATE.json

A one-month policy at a target of its own (coverages written as the catalogue would, the
period's daily rainfall stored), converted and activated as the API does, then time skipped
on that release's workers to where the deploy finds it:
- `waiting`: the first day's data missing, three and a half days after the settlement was
  due: the settlement checks daily (WAITING), the ended policy checks daily whether it is
  settled;
- `ending`: all data in, an hour before the period's end + latency: the policy on its end
  timer, the settlement on its due timer.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import os
import sys
import uuid
from decimal import Decimal

os.environ.setdefault("PICCOLO_CONF", "models.db.piccolo_conf")
os.environ.pop("DATABASE_URL", None)


from temporalio import workflow  # noqa: E402


@workflow.defn(sandboxed=False, name="CrossClockWorkflow")
class Clock:
    """Only a timer: the time-skipping server skips from timer to timer."""

    @workflow.run
    async def run(self, seconds: float) -> None:
        await workflow.sleep(seconds)


def first_of_month_after(day: dt.date, months: int) -> dt.date:
    index = day.month - 1 + months
    return dt.date(day.year + index // 12, index % 12 + 1, 1)


async def main(scenario: str, target: str, queue: str, out: str) -> None:
    from google.protobuf.empty_pb2 import Empty
    from temporalio.api.testservice.v1 import SleepRequest
    from temporalio.client import Client, WithStartWorkflowOperation
    from temporalio.common import SearchAttributePair, TypedSearchAttributes, WorkflowIDConflictPolicy, WorkflowIDReusePolicy
    from temporalio.service import RPCError

    # No sticky queues: the workflow tasks that come after this process has gone must reach
    # the next release's workers at once (the time-skipping server does not move a task
    # from a dead worker's sticky queue to the normal one, as a real server does in 5 s).
    import temporalio.worker

    class NoCacheWorker(temporalio.worker.Worker):
        def __init__(self, *args, **kwargs) -> None:
            kwargs["max_cached_workflows"] = 0
            super().__init__(*args, **kwargs)

    temporalio.worker.Worker = NoCacheWorker

    from models.clock import utcnow
    from models.db import observations as observations_db
    from models.db import quotes as quotes_db
    from models.db.core import close_pool, migrate, open_pool
    from models.db.reference_data import load_reference_data
    from models.db.tables import Coverage, MonitoringTarget
    from models.domain.index_catalog import BY_CODE
    from models.domain.lifecycle import policy_id_for_quote, quote_deadline
    from models.domain.observations import ObservationIn
    from models.domain.quotes import build_quote, month_segments
    from models.domain.terms import CoverageSlot
    from models.temporal.converter import data_converter
    from models.temporal.ids import policy_schedule_workflow_id, policy_workflow_id
    from models.temporal.policies import PolicyWorkflowInput
    from models.temporal.quotes import CoverSnapshot
    from models.temporal.search_attributes import POLICY_STATUS, QUOTE_ID, TENANT_ID
    from workflows.policies import PolicyWorkflow
    from workflows.settlement import due_at
    from workflows.worker import Workers

    await open_pool()
    await migrate()
    await load_reference_data()
    client = await Client.connect(target, data_converter=data_converter)
    today = dt.date.today()
    start = first_of_month_after(today, 2)
    end = first_of_month_after(start, 1) - dt.timedelta(days=1)
    tenant_id = str(uuid.uuid4())

    async def now() -> dt.datetime:
        return (await client.test_service.get_current_time(Empty())).time.ToDatetime(dt.timezone.utc)

    async def advance(delta: dt.timedelta) -> None:
        while delta > dt.timedelta(0):
            chunk = min(delta, dt.timedelta(days=30))
            await client.start_workflow(Clock.run, chunk.total_seconds(), id=f"clock-{uuid.uuid4()}", task_queue=f"{queue}-clock")
            request = SleepRequest()
            request.duration.FromTimedelta(chunk)
            await client.test_service.unlock_time_skipping_with_sleep(request)
            delta -= chunk

    used = {r["monitoring_target_id"] for r in await Coverage.select(Coverage.monitoring_target_id)}
    target_id = next(r["id"] for r in await MonitoringTarget.select(MonitoringTarget.id).order_by(MonitoringTarget.id) if r["id"] not in used)
    created = utcnow()
    covers = {}
    for code, direction, trigger in (("RAINFALL_MONTHLY_TOTAL", "ABOVE", "180.5"), ("RAINFALL_DEFICIT", "BELOW", "12.5")):
        snapshot = CoverSnapshot(
            coverage_id=uuid.uuid4(), index_code=code, index_definition_id=BY_CODE[code].id, start=start, end=end,
            direction=direction, trigger=Decimal(trigger), exit=None, currency="INR", limit_minor=10_000_000,
            min_payout_minor=1_000_000, payout_per_unit_minor=50_000, gross_premium_pct=Decimal("0.015"),
            risk_premium_pct=Decimal("0.01"), pricing_version=1,
        )
        covers[CoverageSlot(index_code=code, start=start, end=end)] = snapshot
        await Coverage.insert(Coverage(
            id=snapshot.coverage_id, monitoring_target_id=target_id, index_definition_id=BY_CODE[code].id,
            risk_period_start=start, risk_period_end=end, risk_carrier="cross", currency="INR", direction=direction,
            trigger=Decimal(trigger), limit_minor=10_000_000, min_payout_minor=1_000_000, payout_per_unit_minor=50_000,
            expected_loss_ratio=Decimal("0.65"), created_by="cross", created_at=created, updated_at=created,
        ))
    draft = build_quote(
        quote_id=uuid.uuid4(), line_item_ids=[uuid.uuid4()], tenant_id=tenant_id, monitoring_target_id=target_id,
        start=start, end=end, currency="INR", sum_insured_minor=25_000_000, external_ref="cross-4711",
        covers_by_slot=covers, today=today,
    )
    days = [start + dt.timedelta(days=i) for i in range((end - start).days + 1)]
    missing = 1 if scenario == "waiting" else 0
    await observations_db.store_batch([ObservationIn(target_id, "IMD-RF-DAILY", "rainfall_mm", d, None, Decimal("7"), "IMD") for d in days[missing:]])
    await quotes_db.insert_quote(draft)
    policy_id = policy_id_for_quote(draft.id)
    state = {
        "tenant_id": tenant_id, "target_id": target_id, "start": start.isoformat(), "end": end.isoformat(),
        "policy_id": str(policy_id), "policy_workflow_id": policy_workflow_id(tenant_id, policy_id),
    }
    try:
        async with Workers(client, queue, pricing_processes=0), NoCacheWorker(client, task_queue=f"{queue}-clock", workflows=[Clock]):
            operation = WithStartWorkflowOperation(
                PolicyWorkflow.run,
                PolicyWorkflowInput(
                    tenant_id=tenant_id, policy_id=policy_id, monitoring_target_id=target_id, external_ref=draft.external_ref,
                    periods=month_segments(start, end), quote_id=draft.id,
                    lapse_at=quote_deadline(draft.valid_until, draft.risk_period_from),
                ),
                id=policy_workflow_id(tenant_id, policy_id),
                task_queue=queue,
                id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
                id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
                search_attributes=TypedSearchAttributes([
                    SearchAttributePair(TENANT_ID, tenant_id),
                    SearchAttributePair(POLICY_STATUS, "CREATED"),
                    SearchAttributePair(QUOTE_ID, str(draft.id)),
                ]),
            )
            await client.execute_update_with_start_workflow(PolicyWorkflow.convert, start_workflow_operation=operation)
            handle = client.get_workflow_handle(policy_workflow_id(tenant_id, policy_id))
            await handle.execute_update(PolicyWorkflow.activate)
            schedule = client.get_workflow_handle(policy_schedule_workflow_id(tenant_id, policy_id))
            for _ in range(400):
                try:
                    await asyncio.wait_for(schedule.result(), 1)
                    break
                except (RPCError, asyncio.TimeoutError):
                    await asyncio.sleep(0.1)
            due = due_at(end)
            if scenario == "waiting":
                await advance(due + dt.timedelta(days=3, hours=12) - await now())
            elif scenario == "ending":
                await advance(due - dt.timedelta(hours=1) - await now())
            else:
                raise SystemExit(f"unknown scenario {scenario}")
    finally:
        await close_pool()
    with open(out, "w") as f:
        json.dump(state, f)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:5]))
