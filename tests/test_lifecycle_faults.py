"""Lifecycle faults through real HTTP and a real Temporal dev server (issue 9).

Each test runs a stack of its own (API + workers on a task queue of its own, same Temporal
server and database) whose workers carry activities that fail as the test says: a write that
keeps failing, one that lands after its request gave up, a render that never succeeds. The
workflows, the API and every other activity are the service's own.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from dataclasses import replace

import httpx
import pytest
from temporalio import activity
from temporalio.client import WorkflowExecutionStatus
from temporalio.exceptions import ApplicationError

from activities import policies as policy_activities
from activities import quotes as quote_activities
from models.db import policies as policies_db
from models.db import quotes as quotes_db
from models.db.tables import Policy, Quote
from models.domain.lifecycle import policy_id_for_quote, quote_id_for_key
from models.temporal.ids import (
    policy_schedule_workflow_id,
    policy_workflow_id,
    quote_workflow_id,
)
from models.temporal.policies import ConvertToPolicyInput, PolicyStatusInput
from models.temporal.quotes import QuoteDraft
from models.temporal.search_attributes import POLICY_STATUS, QUOTE_STATE
from tests.api.test_quotes_policies import new_quote
from tests.conftest import Server, Tenant, assert_problem, free_port


@contextlib.asynccontextmanager
async def faulty_stack(temporal_env, settings, tenant: Tenant, overrides: dict, deadline: float = 20.0):
    """API + workers on a fresh task queue, with `overrides` replacing activities by name;
    yields the tenant as a client of this stack."""
    from api.app import create_app
    from workflows.worker import Workers

    queue = f"faulty-{uuid.uuid4()}"
    app_settings = replace(
        settings,
        temporal_address=temporal_env.client.service_client.config.target_host,
        task_queue=queue,
        request_deadline_seconds=deadline,
    )
    async with Workers(temporal_env.client, queue, pricing_processes=0, activity_overrides=overrides):
        async with Server(create_app(app_settings, temporal_env.client), free_port()) as server:
            async with httpx.AsyncClient(base_url=server.base_url, timeout=120) as http:
                yield Tenant(tenant.credentials, http)


def keyed(key: str) -> dict:
    return {"Idempotency-Key": key}


async def describe(temporal_env, workflow_id: str):
    return await temporal_env.client.get_workflow_handle(workflow_id).describe()


# --- defect 7: a failed write answers 503 and leaves nothing half-done ------------------------------


@activity.defn(name="record_quote")
async def record_quote_disk_full(draft: QuoteDraft):
    raise RuntimeError("disk full")


async def test_a_quote_whose_write_keeps_failing_answers_503_and_leaves_nothing(temporal_env, settings, tenant):
    key = f"disk-full-{uuid.uuid4()}"
    quote_id = quote_id_for_key(tenant.id, key)
    async with faulty_stack(temporal_env, settings, tenant, {"record_quote": record_quote_disk_full}) as faulty:
        started = time.monotonic()
        r = await faulty.post("/quotes", json=new_quote(), headers=keyed(key))
        elapsed = time.monotonic() - started
    body = assert_problem(r, 503)
    assert r.headers["retry-after"] and "could not be recorded" in body["detail"]
    assert elapsed < settings.request_deadline_seconds  # the write gave up within its budget
    assert await Quote.count().where(Quote.id == quote_id) == 0
    described = await describe(temporal_env, quote_workflow_id(tenant.id, quote_id))
    assert described.status == WorkflowExecutionStatus.COMPLETED
    assert described.typed_search_attributes.get(QUOTE_STATE) == "NOT_CREATED"
    # Once the database is back, the same request with the same key makes the quote.
    again = await tenant.post("/quotes", json=new_quote(), headers=keyed(key))
    assert again.status_code == 200, again.text
    assert again.json()["id"] == str(quote_id)


# --- defect 8: a retried POST /quotes after a timeout finds the first quote -------------------------


@activity.defn(name="record_quote")
async def record_quote_slowly(draft: QuoteDraft):
    await asyncio.sleep(3)  # longer than the stack's 1.5 s request deadline
    return await quote_activities.record_quote(draft)


async def test_a_post_retried_after_a_timeout_finds_the_first_quote(temporal_env, settings, tenant):
    key = f"slow-{uuid.uuid4()}"
    ref = f"ref-{uuid.uuid4().hex[:12]}"
    async with faulty_stack(temporal_env, settings, tenant, {"record_quote": record_quote_slowly}, deadline=1.5) as faulty:
        first = await faulty.post("/quotes", json=new_quote(externalRef=ref), headers=keyed(key))
        retry = await faulty.post("/quotes", json=new_quote(externalRef=ref), headers=keyed(key))
        if retry.status_code == 503:  # still being written: the client retries again
            await asyncio.sleep(2)
            retry = await faulty.post("/quotes", json=new_quote(externalRef=ref), headers=keyed(key))
    assert await Quote.count().where(Quote.external_ref == ref) == 1
    assert retry.status_code == 200, retry.text
    assert retry.json()["id"] == str(quote_id_for_key(tenant.id, key))
    assert_problem(first, 503)  # the first call timed out: a retryable answer, not a 500


# --- defect 4: a conversion whose write lands late is completed, never orphaned ---------------------

_late = {"calls": 0}


@activity.defn(name="convert_to_policy")
async def convert_lands_late(command: ConvertToPolicyInput):
    """The first attempt's answer is lost (the connection broke) while its transaction still
    commits half a second later; later attempts are the real write."""
    _late["calls"] += 1
    if _late["calls"] == 1:

        async def commit_late() -> None:
            await asyncio.sleep(0.5)
            await policy_activities.convert_to_policy(command)

        asyncio.get_running_loop().create_task(commit_late())
        raise ApplicationError("connection reset while committing", non_retryable=True)
    return await policy_activities.convert_to_policy(command)


async def test_a_conversion_whose_write_lands_late_completes_on_retry(temporal_env, settings, tenant):
    quote = (await tenant.post("/quotes", json=new_quote())).json()
    _late["calls"] = 0
    async with faulty_stack(temporal_env, settings, tenant, {"convert_to_policy": convert_lands_late}) as faulty:
        # The quote's workflow lives on the main stack; the conversion on this one.
        assert_problem(await faulty.patch(f"/quotes/{quote['id']}"), 503)
        await asyncio.sleep(1.5)  # meanwhile the first write commits
        assert (await quotes_db.quote_row(tenant.id, uuid.UUID(quote["id"]))).status == "ACCEPTED"
        r = await faulty.patch(f"/quotes/{quote['id']}")
        assert r.status_code == 200, r.text
        policy = r.json()
        assert policy["id"] == str(policy_id_for_quote(uuid.UUID(quote["id"]))) and policy["status"] == "CREATED"
        assert (await faulty.patch(f"/policies/{policy['id']}")).status_code == 200
    assert await Policy.count().where(Policy.quote_id == quote["id"]) == 1
    described = await describe(temporal_env, policy_workflow_id(tenant.id, policy["id"]))
    assert described.status == WorkflowExecutionStatus.RUNNING
    assert described.typed_search_attributes.get(POLICY_STATUS) == "ACCEPTED"


async def test_concurrent_attempts_of_one_conversion_write_both_succeed(tenant):
    """Attempts of the same write that overlap (an attempt whose activity timed out is still
    committing while the retry runs) both report success, and one policy is written."""
    for _ in range(3):
        quote = (await tenant.post("/quotes", json=new_quote())).json()
        quote_id = uuid.UUID(quote["id"])
        command = ConvertToPolicyInput(
            tenant_id=tenant.id, quote_id=quote_id, policy_id=policy_id_for_quote(quote_id), at=_now()
        )
        outcomes = await asyncio.gather(*(policies_db.convert_to_policy(command) for _ in range(3)))
        assert all(o.applied and o.status == "ACCEPTED" for o in outcomes), outcomes
        assert await Policy.count().where(Policy.quote_id == quote_id) == 1


def _now():
    from models.clock import utcnow

    return utcnow()


# --- defect 6: transitions are idempotent for clients -------------------------------------------------


async def test_transitions_with_an_idempotency_key_answer_the_first_answer_again(tenant):
    quote = (await tenant.post("/quotes", json=new_quote())).json()
    first = await tenant.patch(f"/quotes/{quote['id']}", headers=keyed("convert-1"))
    again = await tenant.patch(f"/quotes/{quote['id']}", headers=keyed("convert-1"))
    assert first.status_code == again.status_code == 200, again.text
    assert again.json() == first.json()
    assert_problem(await tenant.patch(f"/quotes/{quote['id']}", headers=keyed("convert-2")), 409)
    policy_id = first.json()["id"]
    for method, path in (("patch", f"/policies/{policy_id}"), ("delete", f"/policies/{policy_id}")):
        call = getattr(tenant, method)
        first = await call(path, headers=keyed(f"{method}-1"))
        again = await call(path, headers=keyed(f"{method}-1"))
        assert first.status_code == again.status_code == 200, again.text
        assert again.json()["status"] == first.json()["status"]
        assert_problem(await call(path, headers=keyed(f"{method}-2")), 409)
    other = (await tenant.post("/quotes", json=new_quote())).json()
    first = await tenant.delete(f"/quotes/{other['id']}/reject", headers=keyed("reject-1"))
    again = await tenant.delete(f"/quotes/{other['id']}/reject", headers=keyed("reject-1"))
    assert first.status_code == again.status_code == 200 and again.json() == first.json()


_activation_down = {"down": True}


@activity.defn(name="set_policy_status")
async def set_policy_status_while_down(command: PolicyStatusInput):
    """While the database is 'down' an activation's write hangs (a lock never granted)."""
    if _activation_down["down"] and command.to_status == "ACCEPTED":
        await asyncio.sleep(60)
        raise RuntimeError("database unreachable")
    return await policy_activities.set_policy_status(command)


async def test_a_write_that_keeps_failing_answers_503_before_the_deadline_and_a_keyed_retry_succeeds(
    temporal_env, settings, tenant
):
    _activation_down["down"] = True
    async with faulty_stack(temporal_env, settings, tenant, {"set_policy_status": set_policy_status_while_down}) as faulty:
        quote = (await faulty.post("/quotes", json=new_quote())).json()
        policy = (await faulty.patch(f"/quotes/{quote['id']}")).json()
        started = time.monotonic()
        r = await faulty.patch(f"/policies/{policy['id']}", headers=keyed("activate-once"))
        assert_problem(r, 503)
        assert r.headers["retry-after"]
        assert time.monotonic() - started < settings.request_deadline_seconds
        assert (await policies_db.policy_row(tenant.id, uuid.UUID(policy["id"]))).status == "CREATED"
        _activation_down["down"] = False
        r = await faulty.patch(f"/policies/{policy['id']}", headers=keyed("activate-once"))
        assert r.status_code == 200 and r.json()["status"] == "ACCEPTED", r.text


# --- defect 7: outcomes are checked ----------------------------------------------------------------


async def test_an_activation_the_database_refuses_is_not_reported_as_done(temporal_env, tenant):
    quote = (await tenant.post("/quotes", json=new_quote())).json()
    policy = (await tenant.patch(f"/quotes/{quote['id']}")).json()
    # Another writer (say, a repair by hand) moved the row on.
    await Policy.update({Policy.status: "LAPSED"}).where(Policy.id == policy["id"])
    body = assert_problem(await tenant.patch(f"/policies/{policy['id']}"), 409)
    assert "LAPSED" in body["detail"]
    handle = temporal_env.client.get_workflow_handle(policy_workflow_id(tenant.id, policy["id"]))
    assert (await handle.query("status"))["status"] != "ACCEPTED"
    assert (await handle.describe()).typed_search_attributes.get(POLICY_STATUS) != "ACCEPTED"


# --- defect 1: documents never gate the lifecycle -------------------------------------------------------


@activity.defn(name="render_policy_schedule")
async def render_fails(request):
    raise RuntimeError("font cache corrupt")


async def test_a_schedule_that_cannot_be_rendered_is_retried_in_view_while_the_policy_runs_on(
    temporal_env, settings, tenant
):
    async with faulty_stack(temporal_env, settings, tenant, {"render_policy_schedule": render_fails}) as faulty:
        quote = (await faulty.post("/quotes", json=new_quote())).json()
        policy = (await faulty.patch(f"/quotes/{quote['id']}")).json()
        assert (await faulty.patch(f"/policies/{policy['id']}")).status_code == 200
        schedule = temporal_env.client.get_workflow_handle(policy_schedule_workflow_id(tenant.id, policy["id"]))
        for _ in range(100):
            pending = (await schedule.describe()).raw_description.pending_activities
            if pending and pending[0].attempt >= 3:
                break
            await asyncio.sleep(0.2)
        assert pending[0].attempt >= 3 and "font cache corrupt" in pending[0].last_failure.message
        assert pending[0].maximum_attempts == 0  # retried until it succeeds, never given up
        r = await faulty.get(f"/policies/{policy['id']}/schedule")
        assert r.status_code == 202 and r.headers["retry-after"] and r.json()["status"] == "RENDERING"
        described = await describe(temporal_env, policy_workflow_id(tenant.id, policy["id"]))
        assert described.status == WorkflowExecutionStatus.RUNNING
        assert (await policies_db.policy_row(tenant.id, uuid.UUID(policy["id"]))).status == "ACCEPTED"
        # The cancel path still works while the document is failing.
        assert (await faulty.delete(f"/policies/{policy['id']}")).status_code == 200
        await schedule.terminate("test over")


@pytest.fixture(autouse=True)
async def catalogue_priced_by_the_main_stack(tenant):
    """The catalogue of the quotes here is priced on the main stack first: a faulty stack
    must not own a catalogue workflow whose queue goes away with it."""
    r = await tenant.post("/quotes", json=new_quote(), timeout=600)
    assert r.status_code == 200, r.text


@pytest.fixture(autouse=True)
def _reset_faults():
    _late["calls"] = 0
    _activation_down["down"] = True
    yield
