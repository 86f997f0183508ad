"""The lifecycle of a policy: CREATED (draft) → ACCEPTED (activation) → ACTIVE from the first
cover's risk-period start → EXPIRED after the last cover's end; CANCELED from ACCEPTED or
ACTIVE. Workflow id `policy:<tenant>:<policy id>`.

Monitoring sleeps on durable timers, one per distinct risk-period start plus one for the
end: a handful of workflow tasks per policy, never one per day. Cancelling wakes every
timer and ends the workflow, so covers no longer trigger.
"""

from __future__ import annotations

import asyncio
import datetime as dt

from temporalio import workflow
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from activities.documents import PolicyScheduleRequest, render_policy_schedule
    from activities.quotes import transition_policy
    from models.commands import PolicyTransitionInput, PolicyWorkflowInput
    from models.workflow_ids import POLICY_STATUS
    from workflows.coverage_documents import RENDER_RETRY, RENDER_TIMEOUT
    from workflows.lifecycle import BACKGROUND_WRITE_RETRY, WRITE_RETRY, WRITE_TIMEOUT, refuse, write_failed

# Observations of a day are final this long after it ends (settlement waits for them).
DATA_LATENCY = dt.timedelta(days=3)


def _start_of(day: dt.date) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(0, 0), tzinfo=dt.timezone.utc)


@workflow.defn
class PolicyWorkflow:
    @workflow.init
    def __init__(self, request: PolicyWorkflowInput) -> None:
        self._input = request
        self._status = "CREATED"
        self._periods = [{"start": s.isoformat(), "end": e.isoformat(), "monitoring": "PENDING"} for s, e in request.periods]

    @workflow.query
    def status(self) -> dict:
        return {"policyId": str(self._input.policy_id), "status": self._status, "periods": self._periods}

    @workflow.run
    async def run(self, request: PolicyWorkflowInput) -> str:
        await workflow.wait_condition(lambda: self._status in ("ACCEPTED", "CANCELED"))
        if self._status == "ACCEPTED":
            await workflow.execute_activity(
                render_policy_schedule,
                PolicyScheduleRequest(tenant_id=request.tenant_id, policy_id=request.policy_id),
                start_to_close_timeout=RENDER_TIMEOUT,
                retry_policy=RENDER_RETRY,
            )
        starts = sorted({s for s, _ in request.periods})
        for start in starts:
            if await self._sleep_until(_start_of(start)):
                return await self._finish()
            for period in self._periods:
                if period["start"] == start.isoformat():
                    period["monitoring"] = "MONITORING"
            if self._status == "ACCEPTED":
                self._status = "ACTIVATING"
                await self._write("ACTIVE", ["ACCEPTED"], background=True)
                self._set("ACTIVE")
        last_end = max(e for _, e in request.periods)
        if await self._sleep_until(_start_of(last_end) + dt.timedelta(days=1) + DATA_LATENCY):
            return await self._finish()
        for period in self._periods:
            period["monitoring"] = "ENDED"
        self._status = "EXPIRING"
        await self._write("EXPIRED", ["ACTIVE"], background=True)
        self._set("EXPIRED")
        return await self._finish()

    async def _sleep_until(self, moment: dt.datetime) -> bool:
        """Durable timer; True if the policy was cancelled meanwhile."""
        delay = moment - workflow.now()
        if delay > dt.timedelta(0):
            try:
                await workflow.wait_condition(lambda: self._status == "CANCELED", timeout=delay)
            except asyncio.TimeoutError:
                pass
        # A cancel that is being written counts as cancelled: no cover triggers after it.
        return self._status in ("CANCELING", "CANCELED")

    async def _finish(self) -> str:
        await workflow.wait_condition(workflow.all_handlers_finished)
        if self._status == "CANCELED":
            for period in self._periods:
                if period["monitoring"] != "ENDED":
                    period["monitoring"] = "CANCELED"
        return self._status

    @workflow.update
    async def activate(self) -> str:
        if self._status != "CREATED":
            raise refuse("activate the policy", self._status)
        self._status = "ACTIVATING"
        try:
            await self._write("ACCEPTED", ["CREATED"])
        except ActivityError as err:
            self._status = "CREATED"
            raise write_failed(err) from err
        self._set("ACCEPTED")
        return self._status

    @activate.validator
    def validate_activate(self) -> None:
        if self._status != "CREATED":
            raise refuse("activate the policy", self._status)

    @workflow.update
    async def cancel(self) -> str:
        # An activation being written finishes first; then the cancel applies to its result.
        await workflow.wait_condition(lambda: self._status != "ACTIVATING")
        if self._status not in ("ACCEPTED", "ACTIVE"):
            raise refuse("cancel the policy", self._status)
        previous = self._status
        self._status = "CANCELING"
        try:
            await self._write("CANCELED", [previous])
        except ActivityError as err:
            self._status = previous
            raise write_failed(err) from err
        self._set("CANCELED")
        return self._status

    @cancel.validator
    def validate_cancel(self) -> None:
        if self._status not in ("ACCEPTED", "ACTIVATING", "ACTIVE"):
            raise refuse("cancel the policy", self._status)

    async def _write(self, to_status: str, from_statuses: list[str], background: bool = False) -> None:
        await workflow.execute_local_activity(
            transition_policy,
            PolicyTransitionInput(
                tenant_id=self._input.tenant_id,
                policy_id=self._input.policy_id,
                to_status=to_status,
                from_statuses=from_statuses,
                at=workflow.now(),
            ),
            start_to_close_timeout=WRITE_TIMEOUT,
            retry_policy=BACKGROUND_WRITE_RETRY if background else WRITE_RETRY,
        )

    def _set(self, status: str) -> None:
        self._status = status
        workflow.upsert_search_attributes([POLICY_STATUS.value_set(status)])
