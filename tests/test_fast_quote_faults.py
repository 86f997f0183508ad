"""A fast quote's job under faults (issue 12): a pricing activity that fails transiently is
retried and the quote completes; one that fails for good leaves the quote in `error` with its
reason. The failing activity wraps the real one by name (the workers' fault-injection hook,
workflows.worker._with_overrides), as the other lifecycle fault tests do. The real one is a
sync activity (the pricing pool runs it), so are the wrappers."""

from __future__ import annotations

import threading
import time

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.fast_quotes import price_fast_quote
from models.temporal.quotes import FastQuoteJob
from tests.api.test_business_partners import PARTNER
from tests.api.test_coverages import wait_until_priced
from tests.api.test_fast_quotes import new_fast_quote, wait_for_state
from tests.test_lifecycle_faults import faulty_stack

QUERY = "targetName=400001&from=2027-07-01&to=2027-07-31&size=100"


@activity.defn(name="price_fast_quote")
def price_fails_once(job: FastQuoteJob):
    if activity.info().attempt == 1:
        raise ConnectionError("database connection reset")
    return price_fast_quote(job)


@activity.defn(name="price_fast_quote")
def price_fails_for_good(job: FastQuoteJob):
    raise ApplicationError("the climate data of this target is being replaced; quote again later", non_retryable=True)


RELEASE = threading.Event()


@activity.defn(name="price_fast_quote")
def price_when_released(job: FastQuoteJob):
    """The real pricing, held after it has marked the quote running until the test says go."""
    from models.clock import utcnow
    from models.db import quotes as quotes_db
    from models.db.core import run_sync
    from models.domain.statuses import QuoteStatus
    from models.temporal.quotes import FastQuoteStatusInput

    run_sync(lambda: quotes_db.set_job_status(
        FastQuoteStatusInput(job.tenant_id, job.quote_id, QuoteStatus.RUNNING, [QuoteStatus.QUEUED], utcnow())
    ))
    while not RELEASE.is_set():
        activity.heartbeat()
        time.sleep(0.2)
    return price_fast_quote(job)


async def _quote(faulty, tenant) -> str:
    # the catalogue through the session's service (its workflows run on that stack's queue)
    first = (await tenant.get(f"/internal/coverages?{QUERY}")).json()
    body = await wait_until_priced(tenant, QUERY, len(first["content"]))
    ids = [c["id"] for c in body["content"] if c["status"] == "ACTIVE"]
    partner = (await faulty.post("/internal/business-partners", json=PARTNER)).json()["id"]
    r = await faulty.post("/internal/fast-quotes", json=new_fast_quote(partner, ids))
    assert r.status_code == 201, r.text
    return r.json()["id"]


async def test_a_transient_pricing_failure_is_retried_and_the_quote_completes(temporal_env, settings, tenant):
    async with faulty_stack(temporal_env, settings, tenant, {"price_fast_quote": price_fails_once}) as faulty:
        quote_id = await _quote(faulty, tenant)
        body = await wait_for_state(faulty, quote_id, ("completed", "error"))
        assert body["state"] == "completed", body
        assert body["pricingReport"]["expectedPayout"]


async def test_a_permanent_pricing_failure_ends_in_error_with_its_reason(temporal_env, settings, tenant):
    async with faulty_stack(temporal_env, settings, tenant, {"price_fast_quote": price_fails_for_good}) as faulty:
        quote_id = await _quote(faulty, tenant)
        body = await wait_for_state(faulty, quote_id, ("completed", "error"))
        assert body["state"] == "error"
        assert "climate data of this target is being replaced" in body["error"]
        assert body["grossPremium"] is None
        r = await faulty.post(f"/internal/quotes/{quote_id}/accept", json={"externalPolicyId": "X"})
        assert r.status_code == 409


async def test_a_running_quote_cannot_be_accepted_or_converted(temporal_env, settings, tenant):
    """(It can be rejected: tests/test_fast_quote_reject.py, issue 29.)"""
    RELEASE.clear()
    async with faulty_stack(temporal_env, settings, tenant, {"price_fast_quote": price_when_released}) as faulty:
        quote_id = await _quote(faulty, tenant)
        body = await wait_for_state(faulty, quote_id, ("running",), timeout=60)
        assert body["state"] == "running"
        for r in (
            await faulty.post(f"/internal/quotes/{quote_id}/accept", json={"externalPolicyId": "EARLY"}),
            await faulty.post("/internal/policies", json={"@type": "NewPolicyFromQuote", "quoteId": quote_id}),
        ):
            assert r.status_code == 409, r.text
            assert r.headers["content-type"].startswith("application/problem+json")
        RELEASE.set()
        assert (await wait_for_state(faulty, quote_id, ("completed", "error")))["state"] == "completed"
