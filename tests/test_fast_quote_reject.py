"""A fast quote can be rejected at any state before it is accepted (issue 29): queued or
running, the rejection answers 200 with the quote rejected, its workflow cancels the job (the
pricing cancelled or refused, no document, no completion written) and ends REJECTED, and a
completion racing the rejection cannot overwrite it (the database's conditional writes decide).
Before, POST /internal/quotes/{id}/reject answered 409 until the job had completed.

Over real HTTP with a real Temporal dev server; the pricing activity is the real one, held
before or after it marks the quote running (the workers' fault-injection hook, as in
tests/test_fast_quote_faults.py)."""

from __future__ import annotations

import asyncio
import datetime as dt
import threading
import time
import uuid

from temporalio import activity

from activities.fast_quotes import price_fast_quote
from models.clock import utcnow
from models.db import quotes as quotes_db
from models.domain.statuses import QuoteStatus
from models.temporal.ids import quote_workflow_id
from models.temporal.quotes import FastQuoteCompletion, FastQuoteJob
from models.temporal.search_attributes import QUOTE_STATE
from tests.api.test_fast_quotes import wait_for_state
from tests.test_fast_quote_faults import _quote
from tests.test_lifecycle_faults import faulty_stack

HOLD = threading.Event()  # set: the held pricing goes on


def _held():
    while not HOLD.is_set():
        activity.heartbeat()
        time.sleep(0.2)


@activity.defn(name="price_fast_quote")
def price_held_while_queued(job: FastQuoteJob):
    """The real pricing, started only when the test says go: until then the quote is queued."""
    _held()
    return price_fast_quote(job)


@activity.defn(name="price_fast_quote")
def price_held_while_running(job: FastQuoteJob):
    """The real pricing, held after it has marked the quote running."""
    from models.db.core import run_sync
    from models.temporal.quotes import FastQuoteStatusInput

    run_sync(lambda: quotes_db.set_job_status(
        FastQuoteStatusInput(job.tenant_id, job.quote_id, QuoteStatus.RUNNING, [QuoteStatus.QUEUED], utcnow())
    ))
    _held()
    return price_fast_quote(job)


async def _rejected_in(state: str, override, temporal_env, settings, tenant) -> None:
    HOLD.clear()
    try:
        async with faulty_stack(temporal_env, settings, tenant, {"price_fast_quote": override}) as faulty:
            quote_id = await _quote(faulty, tenant)
            body = await wait_for_state(faulty, quote_id, (state,), timeout=60)
            assert body["state"] == state, body
            r = await faulty.post(f"/internal/quotes/{quote_id}/reject")
            assert r.status_code == 200, r.text
            assert r.json()["state"] == "rejected"
            handle = temporal_env.client.get_workflow_handle(quote_workflow_id(tenant.id, quote_id))
            assert await asyncio.wait_for(handle.result(), 30) == "REJECTED"
            assert (await handle.describe()).typed_search_attributes.get(QUOTE_STATE) == "REJECTED"
            HOLD.set()  # the held pricing goes on: it finds the quote rejected
            await asyncio.sleep(2)
            after = (await faulty.get(f"/internal/quotes/{quote_id}")).json()
            assert after["state"] == "rejected"
            assert after["grossPremium"] is None and after["pricingReport"] is None
            assert after["quoteDocumentFileId"] is None
            scheduled = [
                e.activity_task_scheduled_event_attributes.activity_type.name
                for e in (await handle.fetch_history()).events
                if e.HasField("activity_task_scheduled_event_attributes")
            ]
            # the job's document and completion never ran
            assert "render_fast_quote_document" not in scheduled and "complete_fast_quote" not in scheduled
            # a second rejection is a 409 (decided), as for a completed quote
            again = await faulty.post(f"/internal/quotes/{quote_id}/reject")
            assert again.status_code == 409, again.text
    finally:
        HOLD.set()


async def test_a_queued_fast_quote_can_be_rejected_and_its_job_is_cancelled(temporal_env, settings, tenant):
    await _rejected_in("queued", price_held_while_queued, temporal_env, settings, tenant)


async def test_a_running_fast_quote_can_be_rejected_and_its_job_is_cancelled(temporal_env, settings, tenant):
    await _rejected_in("running", price_held_while_running, temporal_env, settings, tenant)


async def test_a_completion_after_the_rejection_writes_nothing(temporal_env, settings, tenant):
    """The race's arbiter: a rejected running quote's completion (as a job whose
    cancellation came too late would write it) leaves it rejected, with no figures."""
    HOLD.clear()
    try:
        async with faulty_stack(temporal_env, settings, tenant, {"price_fast_quote": price_held_while_running}) as faulty:
            quote_id = await _quote(faulty, tenant)
            assert (await wait_for_state(faulty, quote_id, ("running",), timeout=60))["state"] == "running"
            assert (await faulty.post(f"/internal/quotes/{quote_id}/reject")).status_code == 200
            late = await quotes_db.complete_fast_quote(
                FastQuoteCompletion(
                    tenant_id=tenant.id, quote_id=uuid.UUID(quote_id), gross_premium_minor=123_456,
                    risk_premium_minor=100_000, report={"late": True}, document_file_id=uuid.uuid4(),
                    at=utcnow() + dt.timedelta(seconds=1),
                )
            )
            assert late.status == QuoteStatus.REJECTED and not late.applied
            after = (await faulty.get(f"/internal/quotes/{quote_id}")).json()
            assert after["state"] == "rejected" and after["grossPremium"] is None
    finally:
        HOLD.set()
