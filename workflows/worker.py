"""The worker: every workflow and activity of the service on one task queue."""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging

from temporalio.client import Client
from temporalio.worker import Worker

from activities.business_partners import save_business_partner
from activities.documents import render_coverage_documents, render_policy_schedule
from activities.catalogue import create_coverages, find_catalogue_coverages, load_site, propose_coverage_terms
from activities.quotes import convert_quote, persist_quote, transition_policy, transition_quote
from activities.pricing_runs import fail_pricing_run, publish_pricing_run, simulate_coverage, start_pricing_run
from models.settings import Settings
from workflows.business_partners import BusinessPartnerWorkflow
from workflows.catalogue import CatalogueWorkflow
from workflows.coverage_documents import CoverageDocumentsWorkflow
from workflows.coverage_pricing import CoveragePricingWorkflow
from workflows.policy import PolicyWorkflow
from workflows.quote import QuoteWorkflow

WORKFLOWS = [
    BusinessPartnerWorkflow,
    CatalogueWorkflow,
    CoveragePricingWorkflow,
    CoverageDocumentsWorkflow,
    QuoteWorkflow,
    PolicyWorkflow,
]
ACTIVITIES = [
    save_business_partner,
    load_site,
    find_catalogue_coverages,
    propose_coverage_terms,
    create_coverages,
    start_pricing_run,
    simulate_coverage,
    publish_pricing_run,
    fail_pricing_run,
    persist_quote,
    convert_quote,
    transition_quote,
    transition_policy,
    render_policy_schedule,
]
DOCUMENT_ACTIVITIES = [render_coverage_documents]

log = logging.getLogger("parametric.worker")


def build_document_worker(client: Client, task_queue: str) -> Worker:
    """Renders catalogue PDFs one at a time on `<task_queue>-documents` (WeasyPrint is
    CPU-bound): pricing a new target's catalogue never starves the API. A policy's schedule
    renders on the main queue, so a customer never waits behind the catalogue."""
    return Worker(
        client,
        task_queue=f"{task_queue}-documents",
        activities=DOCUMENT_ACTIVITIES,
        max_concurrent_activities=1,
    )


def build_worker(
    client: Client,
    task_queue: str,
    executor: concurrent.futures.Executor | None = None,
) -> Worker:
    """A worker for all workflows and activities; sync (CPU) activities run on `executor`."""
    return Worker(
        client,
        task_queue=task_queue,
        workflows=WORKFLOWS,
        activities=ACTIVITIES,
        activity_executor=executor or concurrent.futures.ThreadPoolExecutor(max_workers=4),
    )


async def run_worker(settings: Settings, stop: asyncio.Event | None = None) -> None:
    from api.temporal import connect
    from models.db import close_pool, open_pool

    await open_pool()
    client = await connect(settings)
    workers = [build_worker(client, settings.task_queue), build_document_worker(client, settings.task_queue)]
    log.info("worker polling %s on %s/%s", settings.task_queue, settings.temporal_address, settings.temporal_namespace)
    try:
        if stop is None:
            await asyncio.gather(*(w.run() for w in workers))
        else:
            async with workers[0], workers[1]:
                await stop.wait()
    finally:
        await close_pool()
