"""Workflows for bench/temporal_costs.py. Only temporalio is imported at top level (the
worker's sandbox re-imports this module).

- `CostWorkflow`: one idle workflow per update, each variant adding one piece of what the
  conversion of issue 5 did (an update on the quote's workflow) to a bare update.
- `PolicyLike` and `QuoteLike`: the conversion since issue 9, piece by piece: an
  update-with-start that creates the policy's workflow (the fair baseline's Temporal part),
  plus the local-activity write, the search attributes set at start, the draft's lapse
  timer, and telling the quote's workflow (which then upserts and closes)."""

from __future__ import annotations

import asyncio
import datetime as dt
from dataclasses import dataclass

from temporalio import activity, workflow
from temporalio.common import SearchAttributeKey
from temporalio.workflow import ParentClosePolicy

STATE = SearchAttributeKey.for_keyword("QuoteState")
WRITE = dict(start_to_close_timeout=dt.timedelta(seconds=10))


@dataclass
class Variant:
    local_activity: bool = False
    upsert: bool = False
    close: bool = False  # the update ends the workflow (cancelling its pending timer)
    child: str = ""  # "", "await" (answer after the child started) or "async" (answer first)


@activity.defn
async def noop_write(value: str) -> bool:
    return True


@workflow.defn
class IdleChild:
    @workflow.run
    async def run(self) -> None:
        await workflow.wait_condition(lambda: False, timeout=dt.timedelta(days=30))


@workflow.defn
class CostWorkflow:
    @workflow.init
    def __init__(self, variant: Variant) -> None:
        self._variant = variant
        self._done = False
        self._child: asyncio.Task | None = None

    @workflow.run
    async def run(self, variant: Variant) -> None:
        try:
            await workflow.wait_condition(lambda: self._done, timeout=dt.timedelta(days=30))
        except asyncio.TimeoutError:
            return
        await workflow.wait_condition(workflow.all_handlers_finished)
        if self._child is not None:
            await self._child
        if not variant.close:
            await workflow.wait_condition(lambda: False)

    @workflow.update
    async def go(self) -> str:
        variant = self._variant
        if variant.local_activity:
            await workflow.execute_local_activity(noop_write, "x", **WRITE)
        if variant.upsert:
            workflow.upsert_search_attributes([STATE.value_set("ACCEPTED")])
        if variant.child == "await":
            await self._start_child()
        elif variant.child == "async":
            self._child = asyncio.create_task(self._start_child())
        self._done = True
        return "ok"

    async def _start_child(self) -> None:
        await workflow.start_child_workflow(
            IdleChild.run, id=f"{workflow.info().workflow_id}-child", parent_close_policy=ParentClosePolicy.ABANDON
        )


STATE = SearchAttributeKey.for_keyword("QuoteState")
POLICY_ID = SearchAttributeKey.for_keyword("PolicyId")


@dataclass
class PolicyVariant:
    local_activity: bool = False
    lapse_timer: bool = False
    tell_quote: str = ""  # "", "workflow" (signal from this workflow) or "client" (the driver signals)
    # as PolicyWorkflow does it since issue 29: behind a patch (its marker and the SDK's
    # TemporalChangeVersion upsert), the signal sent from a task, not awaited
    patched: bool = False


@workflow.defn
class QuoteLike:
    """A quote waiting for its deadline; told of its conversion, it upserts and closes. At its
    deadline (`deadline_seconds`; bench/temporal_costs.py's whole-life table sets it short) it
    does what QuoteWorkflow does there for a converted quote: the expiry write (a local
    activity) finds the conversion, then the upsert, then it closes."""

    def __init__(self) -> None:
        self._policy = ""

    @workflow.run
    async def run(self, deadline_seconds: float = 30 * 86400) -> None:
        try:
            await workflow.wait_condition(lambda: bool(self._policy), timeout=dt.timedelta(seconds=deadline_seconds))
        except asyncio.TimeoutError:
            if deadline_seconds >= 30 * 86400:
                return
            await workflow.execute_local_activity(noop_write, "expire", **WRITE)
            self._policy = "found-in-the-database"
        workflow.upsert_search_attributes([STATE.value_set("ACCEPTED"), POLICY_ID.value_set(self._policy)])

    @workflow.signal
    def converted(self, policy_id: str) -> None:
        self._policy = policy_id


@workflow.defn
class PolicyLike:
    """A policy's workflow started by update-with-start (`convert`)."""

    @workflow.init
    def __init__(self, variant: PolicyVariant, quote_workflow_id: str) -> None:
        self._variant = variant
        self._converted = False

    @workflow.run
    async def run(self, variant: PolicyVariant, quote_workflow_id: str) -> None:
        await workflow.wait_condition(lambda: self._converted)
        if variant.tell_quote == "workflow" and variant.patched:
            if workflow.patched("bench-conversion-tells-quote"):
                handle = workflow.get_external_workflow_handle(quote_workflow_id)
                self._telling = asyncio.create_task(handle.signal("converted", workflow.info().workflow_id))
        elif variant.tell_quote == "workflow":
            await workflow.get_external_workflow_handle(quote_workflow_id).signal("converted", workflow.info().workflow_id)
        if variant.lapse_timer:
            await workflow.wait_condition(lambda: False, timeout=dt.timedelta(days=30))
        else:
            await workflow.wait_condition(lambda: False)

    @workflow.update
    async def convert(self) -> str:
        if self._variant.local_activity:
            await workflow.execute_local_activity(noop_write, "x", **WRITE)
        self._converted = True
        return "ok"


async def work(address: str, task_queue: str) -> None:
    from temporalio.client import Client
    from temporalio.worker import Worker

    client = await Client.connect(address)
    worker = Worker(
        client, task_queue=task_queue, workflows=[CostWorkflow, IdleChild, QuoteLike, PolicyLike], activities=[noop_write]
    )
    print(f"cost worker polling {task_queue}", flush=True)
    await worker.run()


if __name__ == "__main__":
    import sys

    asyncio.run(work(sys.argv[1], sys.argv[2]))
