"""The documents of one catalogue batch in one workflow (issue 25, finding 6).

A catalogue prices a target's new coverages together (workflows/catalogue.py); since patch
`catalogue-documents-batch` it starts one `CatalogueDocumentsWorkflow` for the batch (id
`catalogue-documents:<target>:v<version>:<batch>`, on the documents queue) instead of one
CoverageDocumentsWorkflow per coverage. After RENDER_DELAY it renders the fact sheets and
technical reports RENDER_BATCH coverages per activity, one activity after another.

What that saves the Temporal server, per coverage of a burst of new targets: a workflow
start, three workflow tasks, a timer and a dozen history events (and the catalogue's two
child events), against one workflow start, one timer and about two workflow tasks and an
activity per RENDER_BATCH coverages for the whole batch (tests/api/test_catalogue_batches.py).

Ops see each coverage's documents in the `documents` query and the current details (how
many are rendered) in the Temporal UI; each run's documents are linked to it in the database
as before (the API's pricing runs show their file ids).
"""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.documents import render_catalogue_documents
    from models.temporal.catalogue_batches import (
        CATALOGUE_DOCUMENTS_WORKFLOW,
        DOCUMENTS_QUERY,
        BatchDocuments,
        CatalogueDocumentsInput,
        RenderDocumentsBatch,
    )

# Other workflow modules are workflow code: imported in the sandbox, never passed through.
from workflows.documents import RENDER_DELAY, RENDER_RETRY, documents_queue

# Coverages per render activity: the documents worker renders one activity at a time, so a
# customer's document (ahead of these in the queue) waits for at most one batch, about 3 s
# (fact sheet 0.17 s + technical report 0.58 s per coverage, README "Documents").
RENDER_BATCH = 4
BATCH_TIMEOUT = timedelta(minutes=10)
BATCH_HEARTBEAT = timedelta(minutes=1)  # a heartbeat per coverage rendered


@workflow.defn(name=CATALOGUE_DOCUMENTS_WORKFLOW)
class CatalogueDocumentsWorkflow:
    @workflow.init
    def __init__(self, request: CatalogueDocumentsInput) -> None:
        self._documents = {
            coverage_id: BatchDocuments(coverage_id=coverage_id, version=request.version)
            for coverage_id in request.coverage_ids
        }

    @workflow.query(name=DOCUMENTS_QUERY)
    def documents(self) -> list[BatchDocuments]:
        """Each coverage of the batch with its rendered files (None: not yet)."""
        return list(self._documents.values())

    @workflow.run
    async def run(self, request: CatalogueDocumentsInput) -> list[BatchDocuments]:
        ids = request.coverage_ids
        self._details(0)
        await workflow.sleep(RENDER_DELAY)
        for first in range(0, len(ids), RENDER_BATCH):
            chunk = ids[first : first + RENDER_BATCH]
            rendered = await workflow.execute_activity(
                render_catalogue_documents,
                RenderDocumentsBatch(coverage_ids=chunk, version=request.version),
                task_queue=documents_queue(),
                start_to_close_timeout=BATCH_TIMEOUT,
                heartbeat_timeout=BATCH_HEARTBEAT,
                retry_policy=RENDER_RETRY,
                summary=f"Fact sheets and technical reports {first + 1}-{first + len(chunk)} of {len(ids)} · v{request.version}",
            )
            for documents in rendered:
                self._documents[documents.coverage_id] = documents
            self._details(first + len(chunk))
        return list(self._documents.values())

    def _details(self, done: int) -> None:
        """What the Temporal UI shows while the batch renders."""
        workflow.set_current_details(f"{done} of {len(self._documents)} coverages' documents rendered")
