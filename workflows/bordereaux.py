"""The monthly bordereaux (docs/bordereaux.md): one run produces a month's risk and claims
files for every tenant, on the documents queue (its workflow and its one activity).

Started by the `bordereaux-monthly` Schedule on the 1st of each month at 06:00 UTC for the
month that just ended (input month "": the month before the run's start, from workflow
time), and on demand by the API (`bordereaux:<YYYY-MM>`: a month not produced yet when it is
downloaded, or a re-run asked for by operations staff). All reading and writing is the
activity's; the workflow only decides the month."""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from activities.bordereaux import produce_bordereaux
    from models.domain.bordereaux import month_text, previous_month
    from models.temporal.bordereaux import BORDEREAUX_WORKFLOW, BordereauxInput, BordereauxJob, BordereauxProduced


@workflow.defn(name=BORDEREAUX_WORKFLOW)
class BordereauxWorkflow:
    @workflow.run
    async def run(self, request: BordereauxInput) -> BordereauxProduced:
        month = request.month or month_text(previous_month(workflow.now().date()))
        return await workflow.execute_activity(
            produce_bordereaux,
            BordereauxJob(month=month, produced_by=workflow.info().workflow_id),
            start_to_close_timeout=timedelta(minutes=10),
            retry_policy=RetryPolicy(maximum_interval=timedelta(minutes=1)),
            summary=f"Bordereaux of {month}",
        )
