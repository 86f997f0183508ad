"""Settlement of one monitoring target's covers over one risk period, for every policy that
holds them. Workflow id `settlement:<target>:<start>:<end>`, search attributes
`MonitoringTargetId` and `SettlementState` (docs/settlement.md).

    sleep until the day after the period's end + DATA_LATENCY
    settle ──complete and final──▶ SETTLED ──data-changed (a revision)──▶ settle again (adjustments)
      │                                                     └──REVISION_WINDOW over──▶ done
      └─missing or provisional──▶ WAITING: again on data-changed or daily ──MISSING_DATA_WINDOW──▶ FLAGGED

Started by each policy's workflow when it is activated (the first start wins, the others
find it running), so a month end costs a handful of workflow tasks per target and period,
whatever the number of policies. All I/O is in `settle_period`.
"""

from __future__ import annotations

import asyncio
import datetime as dt

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from activities.settlement import settle_period
    from activities.webhooks import dispatch_webhooks
    from models.temporal.queues import task_queue
    from models.temporal.webhooks import DispatchInput
    from models.domain.lifecycle import day_start
    from models.temporal.search_attributes import MONITORING_TARGET_ID, SETTLEMENT_STATE
    from models.temporal.settlement import (
        DATA_CHANGED_SIGNAL,
        SETTLEMENT_WORKFLOW,
        STATUS_QUERY,
        CoverageSettled,
        SettlementInput,
        SettlePeriodInput,
        SettlePeriodOutcome,
    )

# Observations of a day are final this long after it ends (IMD's gridded rainfall is
# published within two days; reanalysis within five).
DATA_LATENCY = dt.timedelta(days=3)
# Missing or provisional data: settlement tries again daily (and when data arrives) for this
# long after it is due, then flags the coverage for ops and keeps waiting for data.
MISSING_DATA_WINDOW = dt.timedelta(days=7)
RETRY_EVERY = dt.timedelta(days=1)
# A revision of final data within this long after the due date re-settles (adjustments).
REVISION_WINDOW = dt.timedelta(days=90)
SETTLE_TIMEOUT = dt.timedelta(minutes=30)
SETTLE_HEARTBEAT = dt.timedelta(seconds=30)  # a page takes seconds; a lost worker is noticed in 30 s
SETTLE_RETRY = RetryPolicy(initial_interval=dt.timedelta(seconds=1), maximum_interval=dt.timedelta(minutes=5))
# settle_period on the settlement task queue, not beside the lifecycle's Update-serving writes.
PATCH_SETTLEMENT_QUEUE = "settlement-own-queue"


def due_at(end: dt.date) -> dt.datetime:
    """When a period ending on `end` (inclusive) is settled first."""
    return day_start(end + dt.timedelta(days=1)) + DATA_LATENCY


@workflow.defn(name=SETTLEMENT_WORKFLOW)
class SettlementWorkflow:
    @workflow.init
    def __init__(self, request: SettlementInput) -> None:
        self._input = request
        self._changes = 0
        self._state = "SCHEDULED"
        self._coverages: list[CoverageSettled] = []
        self._runs = 0

    @workflow.signal(name=DATA_CHANGED_SIGNAL)
    def data_changed(self) -> None:
        self._changes += 1

    @workflow.query(name=STATUS_QUERY)
    def status(self) -> dict:
        return {
            "targetId": self._input.target_id,
            "periodStart": self._input.start.isoformat(),
            "periodEnd": self._input.end.isoformat(),
            "dueAt": due_at(self._input.end).isoformat(),
            "state": self._state,
            "settlementRuns": self._runs,
            "coverages": [
                {
                    "coverageId": str(c.coverage_id),
                    "indexCode": c.index_code,
                    "state": c.state,
                    "revision": c.revision,
                    "indexValue": None if c.index_value is None else str(c.index_value),
                    "detail": c.detail,
                }
                for c in self._coverages
            ],
        }

    @workflow.run
    async def run(self, request: SettlementInput) -> str:
        workflow.upsert_search_attributes(
            [MONITORING_TARGET_ID.value_set(request.target_id), SETTLEMENT_STATE.value_set("WAITING")]
        )
        due = due_at(request.end)
        await self._wait(due - workflow.now())
        flag_after = due + MISSING_DATA_WINDOW
        while True:
            outcome = await self._settle(flag_missing=workflow.now() >= flag_after)
            if outcome.state == "SETTLED":
                break
            await self._wait(RETRY_EVERY)
        revisions_until = workflow.now() + REVISION_WINDOW
        while True:
            seen = self._changes
            remaining = revisions_until - workflow.now()
            if remaining <= dt.timedelta(0):
                break
            try:
                await workflow.wait_condition(lambda: self._changes != seen, timeout=remaining)
            except asyncio.TimeoutError:
                break
            await self._settle(flag_missing=False)
        return self._state

    async def _wait(self, delay: dt.timedelta) -> None:
        """Sleep `delay`, or less if observations over the period arrive."""
        if delay <= dt.timedelta(0):
            return
        seen = self._changes
        try:
            await workflow.wait_condition(lambda: self._changes != seen, timeout=delay)
        except asyncio.TimeoutError:
            pass

    async def _settle(self, flag_missing: bool) -> SettlePeriodOutcome:
        outcome = await workflow.execute_activity(
            settle_period,
            SettlePeriodInput(
                target_id=self._input.target_id,
                start=self._input.start,
                end=self._input.end,
                at=workflow.now(),
                flag_missing=flag_missing,
            ),
            start_to_close_timeout=SETTLE_TIMEOUT,
            heartbeat_timeout=SETTLE_HEARTBEAT,
            retry_policy=SETTLE_RETRY,
            summary=f"Settle {self._input.target_id} {self._input.start}..{self._input.end}",
            **({"task_queue": task_queue(workflow.info().task_queue, "settlement")}
               if workflow.patched(PATCH_SETTLEMENT_QUEUE) else {}),
        )
        self._runs += 1
        self._coverages = outcome.coverages
        # The events' webhooks (written with them) go out now, not at the next dispatch tick.
        await workflow.execute_activity(
            dispatch_webhooks,
            DispatchInput(task_queue=task_queue(workflow.info().task_queue, "webhooks")),
            start_to_close_timeout=dt.timedelta(minutes=10),
            heartbeat_timeout=dt.timedelta(minutes=1),
            retry_policy=SETTLE_RETRY,
        )
        if outcome.state != self._state:
            self._state = outcome.state
            workflow.upsert_search_attributes([SETTLEMENT_STATE.value_set(outcome.state)])
        return outcome
