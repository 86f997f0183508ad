"""What a catalogue prices together, and the documents of such a batch (issue 25, finding 6).

A catalogue workflow prices a target's new coverages jointly in one activity; since patch
`catalogue-documents-batch` their fact sheets and technical reports are rendered by ONE
`CatalogueDocumentsWorkflow` per batch (workflows/catalogue_documents.py), a few coverages per
activity, instead of one CoverageDocumentsWorkflow per coverage: a burst of new targets asks
the Temporal server for a handful of workflow tasks per target, not a workflow per coverage.

Ops still see every pricing run: the catalogue's `pricing` query (and its current details in
the Temporal UI) lists each coverage it priced, with the run's version, status and the
documents workflow; the batch's `documents` query lists each coverage's rendered files.
"""

from __future__ import annotations

import uuid

import msgspec

from models.domain.terms import CoverageSlot

CATALOGUE_DOCUMENTS_WORKFLOW = "CatalogueDocumentsWorkflow"
DOCUMENTS_QUERY = "documents"  # CatalogueDocumentsWorkflow: list[BatchDocuments]
PRICING_QUERY = "pricing"  # CatalogueWorkflow: list[CataloguePricingRun]

# Batch ids are derived from their coverages: a catalogue pricing the same coverages again
# (a failed pricing retried) finds the batch's workflow instead of starting a second one.
_BATCH_NAMESPACE = uuid.UUID("6f3b0c52-3c1e-4a9e-9d43-2f1f9c5d7a10")


class CatalogueDocumentsInput(msgspec.Struct, frozen=True):
    """The coverages of one catalogue batch whose documents of pricing `version` to render."""

    target_id: str
    coverage_ids: list[uuid.UUID]
    version: int = 1


class RenderDocumentsBatch(msgspec.Struct, frozen=True):
    """One render activity's share of a batch (a few coverages)."""

    coverage_ids: list[uuid.UUID]
    version: int


class BatchDocuments(msgspec.Struct, frozen=True):
    """A coverage's documents of one pricing version (file ids None until rendered)."""

    coverage_id: uuid.UUID
    version: int
    fact_sheet_file_id: uuid.UUID | None = None
    technical_report_file_id: uuid.UUID | None = None


class CataloguePricingRun(msgspec.Struct, frozen=True):
    """A pricing run the catalogue workflow made (the `pricing` query): `status` pricing |
    priced | held (for an actuary, not offered) | failed; `documents_workflow_id` the batch
    workflow rendering its documents."""

    coverage_id: uuid.UUID
    slot: CoverageSlot
    version: int
    status: str
    documents_workflow_id: str | None = None


def catalogue_documents_workflow_id(target_id: str, coverage_ids: list[uuid.UUID], version: int) -> str:
    """`catalogue-documents:<target>:v<version>:<batch>`, the batch derived from its coverages."""
    batch = uuid.uuid5(_BATCH_NAMESPACE, ",".join(sorted(str(c) for c in coverage_ids)))
    return f"catalogue-documents:{target_id}:v{version}:{batch}"
