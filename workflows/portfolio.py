"""The book's risk (docs/portfolio.md): one run reads the in-force book, simulates it and
stores the result, on the pricing queue (its workflow and its one activity, in the pricing
pool's process). Started by `GET /internal/portfolio` when the book has changed since the last
result (`portfolio:<scope>:<book hash>`); operations see each run in the Temporal UI. The
workflow only fixes the day the book is read as of (workflow time); all I/O is the activity's."""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from activities.portfolio import compute_portfolio
    from models.temporal.portfolio import (
        PORTFOLIO_WORKFLOW,
        PortfolioComputed,
        PortfolioInput,
        PortfolioJob,
    )


@workflow.defn(name=PORTFOLIO_WORKFLOW)
class PortfolioWorkflow:
    @workflow.run
    async def run(self, request: PortfolioInput) -> PortfolioComputed:
        as_of = request.as_of or workflow.now().date().isoformat()
        scope = request.tenant_id or "the whole book"
        return await workflow.execute_activity(
            compute_portfolio,
            PortfolioJob(tenant_id=request.tenant_id, as_of=as_of, workflow_id=workflow.info().workflow_id,
                         paths=request.paths, currency=request.currency),
            start_to_close_timeout=timedelta(minutes=15),
            retry_policy=RetryPolicy(maximum_interval=timedelta(minutes=1), maximum_attempts=5),
            summary=f"Portfolio risk of {scope} as of {as_of}",
        )
