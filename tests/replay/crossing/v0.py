"""Phase 1 of tests/replay/cross.py on the code of d12c364 (v0: the workflows before issue 9).

Run by cross.py with that commit's tree first on PYTHONPATH, against the server and the
SQLite file phase 2 then continues with:

    python tests/replay/crossing/v0.py SCENARIO TARGET QUEUE STATE.json

It migrates the database as v0 did, starts the runs a deploy meets on v0's workers, drives
them to where the deploy finds them, writes what phase 2 needs to STATE.json and exits
(its workers stop: the runs wait for the next deploy's). Only v0's modules are imported,
with the names they had then (models.commands, models.quote_store, workflows.policy, ...).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import datetime as dt
import json
import os
import sys
import uuid
from decimal import Decimal

os.environ.setdefault("PICCOLO_CONF", "models.piccolo_conf")
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


def quote_draft(tenant_id: str, start: dt.date, months: int, today: dt.date):
    """As v0's tests/replay/record.py built its quotes (Bengaluru, rainfall excess and deficit)."""
    from models.commands import CoverageSlot, CoverSnapshot
    from models.quote_builder import build_quote, month_segments

    end = first_of_month_after(start, months) - dt.timedelta(days=1)

    def cover(code: str, s: dt.date, e: dt.date):
        return CoverSnapshot(
            coverage_id=uuid.uuid5(uuid.NAMESPACE_URL, f"cross:{tenant_id}:{code}:{s}"),
            index_code=code,
            index_definition_id=uuid.uuid5(uuid.NAMESPACE_URL, code),
            start=s,
            end=e,
            direction="ABOVE" if code == "RAINFALL_MONTHLY_TOTAL" else "BELOW",
            trigger=Decimal("180.5") if code == "RAINFALL_MONTHLY_TOTAL" else Decimal("12.5"),
            exit=None,
            currency="INR",
            limit_minor=10_000_000,
            min_payout_minor=1_000_000,
            payout_per_unit_minor=50_000,
            gross_premium_pct=Decimal("0.015"),
            risk_premium_pct=Decimal("0.01"),
            pricing_version=1,
        )

    covers = {
        CoverageSlot(index_code=code, start=s, end=e): cover(code, s, e)
        for s, e in month_segments(start, end)
        for code in ("RAINFALL_MONTHLY_TOTAL", "RAINFALL_DEFICIT")
    }
    return build_quote(
        quote_id=uuid.uuid4(),
        line_item_ids=[uuid.uuid4() for _ in month_segments(start, end)],
        tenant_id=tenant_id,
        monitoring_target_id="IN-12.875N-077.625E",
        start=start,
        end=end,
        currency="INR",
        sum_insured_minor=25_000_000,
        external_ref="cross-4711",
        covers_by_slot=covers,
        today=today,
    )


async def main(scenario: str, target: str, queue: str, out: str) -> None:
    from google.protobuf.empty_pb2 import Empty
    from temporalio import activity
    from temporalio.api.testservice.v1 import SleepRequest
    from temporalio.client import Client, WithStartWorkflowOperation
    from temporalio.common import SearchAttributePair, TypedSearchAttributes, WorkflowIDConflictPolicy
    from temporalio.exceptions import ApplicationError
    from temporalio.worker import Worker

    from models import quote_store
    from models.commands import ConvertQuoteInput, PolicyWorkflowInput, QuoteWorkflowInput
    from models.converter import data_converter
    from models.db import close_pool, migrate, open_pool
    from models.reference_data import load_reference_data
    from models.workflow_ids import MONITORING_TARGET_ID, QUOTE_STATE, TENANT_ID, policy_workflow_id, quote_workflow_id
    from workflows.policy import PolicyWorkflow
    from workflows.quote import QuoteWorkflow
    from workflows.worker import ACTIVITIES, WORKFLOWS, build_document_worker

    @activity.defn(name="render_policy_schedule")
    async def render_fails(request) -> None:
        raise ApplicationError("the renderer is down")

    await open_pool()
    await migrate()
    await load_reference_data()
    client = await Client.connect(target, data_converter=data_converter)
    today = dt.date.today()
    start = first_of_month_after(today, 2)
    tenant_id = str(uuid.uuid4())
    activities = list(ACTIVITIES)
    if scenario == "schedule-failing":
        activities = [a for a in activities if a.__name__ != "render_policy_schedule"] + [render_fails]
    state: dict = {"tenant_id": tenant_id, "start": start.isoformat()}

    async def advance(delta: dt.timedelta) -> None:
        await client.start_workflow(Clock.run, delta.total_seconds(), id=f"clock-{uuid.uuid4()}", task_queue=f"{queue}-clock")
        request = SleepRequest()
        request.duration.FromTimedelta(delta)
        await client.test_service.unlock_time_skipping_with_sleep(request)

    async def policy(months: int):
        """As v0's recorder: the quote converted in the database, the policy's workflow started."""
        draft = quote_draft(tenant_id, start, months, today)
        await quote_store.insert_quote(draft)
        policy_id = uuid.uuid4()
        assert await quote_store.convert_quote(
            ConvertQuoteInput(tenant_id=tenant_id, quote_id=draft.id, policy_id=policy_id,
                              line_item_ids=[uuid.uuid4() for _ in draft.line_items])
        )
        handle = await client.start_workflow(
            PolicyWorkflow.run,
            PolicyWorkflowInput(tenant_id=tenant_id, policy_id=policy_id, monitoring_target_id=draft.monitoring_target_id,
                                external_ref=None, periods=[(i.start, i.end) for i in draft.line_items]),
            id=policy_workflow_id(tenant_id, policy_id),
            task_queue=queue,
        )
        state.update(policy_workflow_id=handle.id, policy_id=str(policy_id), quote_id=str(draft.id))
        await first_task_done(handle)
        return handle

    async def first_task_done(handle) -> None:
        """The run's first workflow task completed here, on v0's code (not by the next
        release's workers after this process has gone)."""
        for _ in range(600):
            if any(e.HasField("workflow_task_completed_event_attributes") for e in (await handle.fetch_history()).events):
                return
            await asyncio.sleep(0.1)
        raise AssertionError(f"{handle.id}: no workflow task completed")

    async def render_done(handle) -> None:
        for _ in range(600):
            if any(e.HasField("activity_task_completed_event_attributes") for e in (await handle.fetch_history()).events):
                return
            await asyncio.sleep(0.25)
        raise AssertionError("the schedule did not render")

    try:
        # No workflow cache, so no sticky queues: the tasks that come after this process has gone
        # must reach the next release's workers at once (the time-skipping server does not move
        # a task from a dead worker's sticky queue to the normal one, as a real server does).
        async with Worker(client, task_queue=queue, workflows=WORKFLOWS, activities=activities, max_cached_workflows=0,
                          activity_executor=concurrent.futures.ThreadPoolExecutor(max_workers=4)), \
                build_document_worker(client, queue), \
                Worker(client, task_queue=f"{queue}-clock", workflows=[Clock], max_cached_workflows=0):
            if scenario == "quote":
                # A quote the deploy finds CREATED; it is converted after it.
                draft = quote_draft(tenant_id, start, 3, today)
                await client.execute_update_with_start_workflow(
                    QuoteWorkflow.created,
                    start_workflow_operation=WithStartWorkflowOperation(
                        QuoteWorkflow.run,
                        QuoteWorkflowInput(draft=draft),
                        id=quote_workflow_id(tenant_id, draft.id),
                        task_queue=queue,
                        id_conflict_policy=WorkflowIDConflictPolicy.FAIL,
                        search_attributes=TypedSearchAttributes([
                            SearchAttributePair(TENANT_ID, tenant_id),
                            SearchAttributePair(QUOTE_STATE, "CREATED"),
                            SearchAttributePair(MONITORING_TARGET_ID, draft.monitoring_target_id),
                        ]),
                    ),
                )
                state.update(quote_workflow_id=quote_workflow_id(tenant_id, draft.id), quote_id=str(draft.id))
                await first_task_done(client.get_workflow_handle(state["quote_workflow_id"]))
            elif scenario == "draft":
                await policy(3)  # a draft the deploy finds waiting for its activation
            elif scenario == "schedule-failing":
                handle = await policy(3)
                await handle.execute_update(PolicyWorkflow.activate)
                # The schedule's render (an awaited activity then) fails and is being retried.
                for _ in range(600):
                    events = (await handle.fetch_history()).events
                    if any(e.HasField("activity_task_scheduled_event_attributes") for e in events):
                        break
                    await asyncio.sleep(0.1)
            elif scenario == "active":
                handle = await policy(3)
                await handle.execute_update(PolicyWorkflow.activate)
                await render_done(handle)
                start_at = dt.datetime.combine(start, dt.time(0), tzinfo=dt.timezone.utc)
                now = (await client.test_service.get_current_time(Empty())).time.ToDatetime(dt.timezone.utc)
                await advance(start_at - now + dt.timedelta(days=5))  # ACTIVE on v0's code
                assert (await handle.query("status"))["status"] == "ACTIVE"
            else:
                raise SystemExit(f"unknown scenario {scenario}")
    finally:
        await close_pool()
    with open(out, "w") as f:
        json.dump(state, f)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:5]))
