"""The documents of one coverage pricing version: fact sheet and technical pricing report.

A workflow of its own (id `coverage-documents:<coverage id>:<version>`), started by the
pricing workflow once the price is published, so nothing that needs only the price (a
quote) waits for PDFs. Rendering runs on the `<queue>-documents` task queue, whose worker
renders one document at a time: the catalogue of a new target never starves the API."""

from __future__ import annotations

import uuid
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from activities.documents import CoverageDocuments, render_coverage_documents
    from models.workflow_ids import task_queue

RENDER_TIMEOUT = timedelta(minutes=5)
# Rendering waits this long after the price is published: a new target's catalogue prices
# dozens of coverages at once, and PDFs rendered meanwhile would slow those prices down.
RENDER_DELAY = timedelta(seconds=20)
RENDER_RETRY = RetryPolicy(initial_interval=timedelta(seconds=1), maximum_interval=timedelta(minutes=1), maximum_attempts=10)


def documents_queue() -> str:
    return task_queue(workflow.info().task_queue, "documents")


@workflow.defn
class CoverageDocumentsWorkflow:
    @workflow.run
    async def run(self, coverage_id: uuid.UUID, version: int) -> CoverageDocuments:
        await workflow.sleep(RENDER_DELAY)
        return await workflow.execute_activity(
            render_coverage_documents,
            args=[coverage_id, version],
            task_queue=documents_queue(),
            start_to_close_timeout=RENDER_TIMEOUT,
            retry_policy=RENDER_RETRY,
        )
