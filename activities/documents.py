"""Document activities: render with WeasyPrint (on a thread: CPU), store once, link.

Idempotent: file ids are derived from (kind, owner, version), and a document already
stored is not rendered again, so a retried activity neither duplicates nor re-renders."""

from __future__ import annotations

import asyncio
import uuid

import msgspec
from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.document_inputs import (
    claim_report_input,
    coverage_cover_facts,
    fact_sheet_input,
    policy_schedule_input,
    portfolio_report_data,
    technical_report_input,
)
from models.clock import business_today
from models.db import basis_risk as basis_risk_db
from models.db import catalogue as catalogue_db
from models.db import policies as policies_db
from models.db import portfolio_reports
from models.db import pricing as pricing_db
from models.db import quotes as quotes_db
from models.db.files import file_id_for, file_meta, publish_files, schedule_file_id, store_file
from models.domain.file_access import Readers
from models.db.tables import (
    MonitoringTarget,
    PincodeMapping,
    Policy,
    Tenant,
)
from models.domain.basis_risk import report_sentence
from models.domain.data_sets import settles_on
from models.domain.index_catalog import BY_ID
from models.domain.settlement_basis import LADDERS
from models.domain.statuses import PolicyStatus, PricingRunStatus
from models.settings import load_settings
from models.temporal.catalogue_batches import BatchDocuments, RenderDocumentsBatch
from models.temporal.portfolio import PortfolioReportRequest
from models.temporal.settlement import ClaimReportRequest

PDF = "application/pdf"


class CoverageDocuments(msgspec.Struct, frozen=True):
    fact_sheet_file_id: uuid.UUID
    technical_report_file_id: uuid.UUID


class PolicyScheduleRequest(msgspec.Struct, frozen=True):
    tenant_id: str
    policy_id: uuid.UUID


async def _target(target_id: str) -> dict:
    return await MonitoringTarget.select().where(MonitoringTarget.id == target_id).first()


@activity.defn
async def render_coverage_documents(coverage_id: uuid.UUID, version: int) -> CoverageDocuments:
    """Fact sheet and technical pricing report of one pricing version, linked to it. A
    candidate rerun (not yet published) gets documents of its own, marked as such, for the
    reviewing actuary; the published run's replace them."""
    return await _coverage_documents(coverage_id, version)


@activity.defn
async def render_catalogue_documents(batch: RenderDocumentsBatch) -> list[BatchDocuments]:
    """The documents of a few coverages of a catalogue batch, one after another (each as
    render_coverage_documents does it; a retry skips those already stored). Heartbeats the
    coverages done, so a worker lost mid-batch is noticed in a minute."""
    rendered = []
    for done, coverage_id in enumerate(batch.coverage_ids):
        activity.heartbeat(done)
        documents = await _coverage_documents(coverage_id, batch.version)
        rendered.append(
            BatchDocuments(
                coverage_id=coverage_id,
                version=batch.version,
                fact_sheet_file_id=documents.fact_sheet_file_id,
                technical_report_file_id=documents.technical_report_file_id,
            )
        )
    return rendered


async def _coverage_documents(coverage_id: uuid.UUID, version: int) -> CoverageDocuments:
    from reports import render_fact_sheet, render_technical_pricing_report

    run = await pricing_db.pricing_run(coverage_id, version)
    published = run.status == PricingRunStatus.COMPLETED
    stage = version if published else f"{version}-candidate"
    suffix = "" if published else "-candidate"
    fact_id = file_id_for("fact-sheet", coverage_id, stage)
    report_id = file_id_for("technical-pricing-report", coverage_id, stage)
    # A candidate's documents are the actuaries' until the run is published, then the catalogue's.
    readers = Readers.catalogue() if published else Readers.staff("actuary")
    if await file_meta(fact_id) is None or await file_meta(report_id) is None:
        coverage = await catalogue_db.coverage_row(coverage_id)
        target = await _target(coverage.monitoring_target_id)
        pins = await PincodeMapping.select(PincodeMapping.pin_code).where(
            PincodeMapping.monitoring_target_id == coverage.monitoring_target_id
        ).order_by(PincodeMapping.pin_code)
        cover = coverage_cover_facts(coverage, run, target, tuple(p["pin_code"] for p in pins))
        index_code = BY_ID[coverage.index_definition_id].code
        fact_pdf = await asyncio.to_thread(render_fact_sheet, fact_sheet_input(cover, run, fact_id))
        await store_file(fact_id, readers, "fact-sheet", f"fact-sheet-{coverage_id}-v{version}{suffix}.pdf", PDF, fact_pdf)
        data_set = settles_on(index_code, coverage.data_set)
        first, last, figures = await basis_risk_db.recent_months(data_set, business_today())
        report_pdf = await asyncio.to_thread(
            render_technical_pricing_report, technical_report_input(
                cover, index_code, run, report_id,
                data_basis_risk=report_sentence(figures, data_set, index_code, first, last) if data_set in LADDERS else "",
            )
        )
        await store_file(
            report_id,
            readers,
            "technical-pricing-report",
            f"technical-pricing-report-{coverage_id}-v{version}{suffix}.pdf",
            PDF,
            report_pdf,
        )
    if published:
        await publish_files([file_id_for(kind, coverage_id, f"{version}-candidate")
                             for kind in ("fact-sheet", "technical-pricing-report")])
    await pricing_db.attach_documents(coverage_id, version, fact_id, report_id, published=published)
    return CoverageDocuments(fact_sheet_file_id=fact_id, technical_report_file_id=report_id)


@activity.defn
async def render_policy_schedule(request: PolicyScheduleRequest) -> uuid.UUID:
    """The schedule of an activated policy, stored as the tenant's document; a cancelled
    policy's is rendered again as a document of its own, saying so (the policy schedule
    describes the policy as it is now; the one issued at activation is kept)."""
    from reports import render_policy_schedule as render

    policy = await policies_db.policy_row(request.tenant_id, request.policy_id)
    file_id = schedule_file_id(request.policy_id, policy.status == PolicyStatus.CANCELED)
    if await file_meta(file_id) is None:
        quote = await quotes_db.quote_row(request.tenant_id, policy.quote_id)
        items = await quotes_db.line_item_rows(request.tenant_id, policy_id=request.policy_id)
        target = await _target(quote.monitoring_target_id)
        tenant = await Tenant.select(Tenant.name).where(Tenant.id == uuid.UUID(request.tenant_id)).first()
        data = policy_schedule_input(
            policy, items, target, tenant["name"] if tenant else request.tenant_id, load_settings().risk_carrier, file_id,
            uncovered=quote.uncovered_months,
        )
        pdf = await asyncio.to_thread(render, data)
        await store_file(file_id, Readers.owner(request.tenant_id), "policy-schedule", f"policy-schedule-{request.policy_id}.pdf", PDF, pdf)
    mine = (Policy.id == request.policy_id) & (Policy.tenant_id == uuid.UUID(request.tenant_id))
    if file_id != schedule_file_id(request.policy_id, True):  # never over the cancelled policy's
        mine &= Policy.schedule_file_id.is_null() | (Policy.schedule_file_id != schedule_file_id(request.policy_id, True))
    await Policy.update({Policy.schedule_file_id: file_id}).where(mine)
    return file_id


@activity.defn
async def render_claim_report(request: ClaimReportRequest) -> uuid.UUID:
    """The claim report of a validated parametric event, stored as the tenant's document
    (rendered once: the event never changes)."""
    from reports import render_claim_report as render

    file_id = file_id_for("claim-report", request.event_id)
    if await file_meta(file_id) is None:
        data = await claim_report_input(request.tenant_id, request.event_id)
        pdf = await asyncio.to_thread(render, data)
        await store_file(file_id, Readers.owner(request.tenant_id), "claim-report", f"claim-report-{request.event_id}.pdf", PDF, pdf)
    return file_id


@activity.defn
async def render_portfolio_report(request: PortfolioReportRequest) -> uuid.UUID:
    """The portfolio risk report of one stored result (docs/documents.md): a tenant's book's
    readable by the tenant and operations staff, the whole book's by operations staff only;
    rendered once: a result never changes."""
    from reports import render_portfolio_report as render

    file_id = portfolio_reports.report_file_id(request.scope, request.version)
    if await file_meta(file_id) is None:
        data = await portfolio_report_data(request.scope, request.version, file_id, load_settings().risk_carrier)
        if data is None:
            raise ApplicationError(f"no portfolio result {request.version} of {request.scope}",
                                   type="PortfolioResultMissing", non_retryable=True)
        pdf = await asyncio.to_thread(render, data)
        # The whole book's: the operations staff's; a tenant's book's: the tenant's and theirs.
        readers = (Readers.staff("operations") if request.scope == portfolio_reports.ALL
                   else Readers.owner(request.scope, "operations"))
        await store_file(file_id, readers, portfolio_reports.KIND,
                         portfolio_reports.report_filename(request.scope, request.version), PDF, pdf)
    return file_id
