"""Documents in workflows of their own, so that no lifecycle ever waits on a PDF.

- `CoverageDocumentsWorkflow`: the fact sheet and technical pricing report of one pricing
  version (id `coverage-documents:<coverage id>:<version>`), started by the pricing workflow
  once the price is published.
- `PolicyScheduleWorkflow`: the schedule of an activated policy (id
  `policy-schedule:<tenant>:<policy id>`), started by the policy workflow at activation and
  retried until it succeeds.
- `ClaimReportWorkflow`, `PortfolioReportWorkflow`: a claim report, a portfolio risk report,
  started by the API when first asked for.

Rendering runs on the documents task queue (one document at a time; a customer's document
goes first)."""

from __future__ import annotations

import uuid
from datetime import timedelta

from temporalio import workflow
from temporalio.common import Priority, RetryPolicy

with workflow.unsafe.imports_passed_through():
    from activities.documents import (
        CoverageDocuments,
        PolicyScheduleRequest,
        render_claim_report,
        render_coverage_documents,
        render_policy_schedule,
        render_portfolio_report,
    )
    from models.temporal.policies import POLICY_SCHEDULE_WORKFLOW, PolicyScheduleInput
    from models.temporal.portfolio import PORTFOLIO_REPORT_WORKFLOW, PortfolioReportRequest
    from models.temporal.pricing import COVERAGE_DOCUMENTS_WORKFLOW
    from models.temporal.queues import task_queue
    from models.temporal.settlement import CLAIM_REPORT_WORKFLOW, ClaimReportRequest

RENDER_TIMEOUT = timedelta(minutes=5)
# Rendering waits this long after the price is published: a new target's catalogue prices
# dozens of coverages at once, and PDFs rendered meanwhile would slow those prices down.
RENDER_DELAY = timedelta(seconds=20)
# Documents are retried until they render (the attempts and the last failure show on the
# pending activity in the Temporal UI); nothing waits on them. One policy for the coverage
# documents and the policy schedule: the coverage documents had 10 attempts until the modules
# were merged (eb37d3c), where a second RENDER_RETRY (this one) silently replaced it; every
# run since retries without limit, and a coverage whose documents gave up would have none
# until its next pricing version (docs/workflow-versioning.md, "Retry policies").
RENDER_MAX_INTERVAL = timedelta(minutes=10)
RENDER_RETRY = RetryPolicy(initial_interval=timedelta(seconds=2), maximum_interval=RENDER_MAX_INTERVAL)
# A customer's document goes ahead of catalogue documents on the documents queue (priority
# 1 is the highest; catalogue renders take the default).
CUSTOMER_DOCUMENT = Priority(priority_key=1)
# A claim report is asked for by a request that waits briefly; asked again, it renders again.
CLAIM_REPORT_RETRY = RetryPolicy(initial_interval=timedelta(seconds=1), maximum_interval=timedelta(minutes=1), maximum_attempts=5)


def documents_queue() -> str:
    return task_queue(workflow.info().task_queue, "documents")


@workflow.defn(name=COVERAGE_DOCUMENTS_WORKFLOW)
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


@workflow.defn(name=POLICY_SCHEDULE_WORKFLOW)
class PolicyScheduleWorkflow:
    @workflow.run
    async def run(self, request: PolicyScheduleInput) -> str:
        base = workflow.info().task_queue
        file_id = await workflow.execute_activity(
            render_policy_schedule,
            PolicyScheduleRequest(tenant_id=request.tenant_id, policy_id=request.policy_id),
            task_queue=task_queue(base, "documents"),
            start_to_close_timeout=RENDER_TIMEOUT,
            retry_policy=RENDER_RETRY,
            priority=CUSTOMER_DOCUMENT,
        )
        return str(file_id)


@workflow.defn(name=CLAIM_REPORT_WORKFLOW)
class ClaimReportWorkflow:
    """The claim report of one event (`claim-report:<tenant>:<event>`), rendered when first
    asked for, ahead of catalogue documents; the API waits for it briefly."""

    @workflow.run
    async def run(self, request: ClaimReportRequest) -> str:
        file_id = await workflow.execute_activity(
            render_claim_report,
            request,
            task_queue=task_queue(workflow.info().task_queue, "documents"),
            start_to_close_timeout=RENDER_TIMEOUT,
            retry_policy=CLAIM_REPORT_RETRY,
            priority=CUSTOMER_DOCUMENT,
        )
        return str(file_id)


@workflow.defn(name=PORTFOLIO_REPORT_WORKFLOW)
class PortfolioReportWorkflow:
    """The portfolio risk report of one stored result (`portfolio-report:<scope>:<version>`),
    rendered when first asked for, ahead of catalogue documents; the API waits for it briefly
    (docs/documents.md)."""

    @workflow.run
    async def run(self, request: PortfolioReportRequest) -> str:
        file_id = await workflow.execute_activity(
            render_portfolio_report,
            request,
            task_queue=documents_queue(),
            start_to_close_timeout=RENDER_TIMEOUT,
            retry_policy=CLAIM_REPORT_RETRY,
            priority=CUSTOMER_DOCUMENT,
            summary=f"Portfolio risk report · {request.scope} · version {request.version}",
        )
        return str(file_id)
