"""The policy schedule of an activated policy, rendered in a workflow of its own.

Id `policy-schedule:<tenant>:<policy id>`, started by the policy's workflow at activation
with parent-close policy ABANDON. Rendering runs on the documents task queue and is retried
until it succeeds (backoff up to RENDER_MAX_INTERVAL): a render that keeps failing shows in
the Temporal UI as this workflow, Running, with its activity's attempts and last failure,
while the policy is monitored regardless. Its render goes ahead of catalogue documents on the
documents queue (task priority), so a customer never waits behind a new target's catalogue. GET /policies/{id}/schedule answers 202 with
Retry-After until the document exists (docs/documents.md).
"""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.common import Priority, RetryPolicy

with workflow.unsafe.imports_passed_through():
    from activities.documents import PolicyScheduleRequest, render_policy_schedule
    from models.commands import PolicyScheduleInput
    from models.workflow_ids import task_queue

RENDER_TIMEOUT = timedelta(minutes=5)
# A customer's document goes ahead of catalogue documents on the documents queue (priority
# 1 is the highest; catalogue renders take the default).
CUSTOMER_DOCUMENT = Priority(priority_key=1)
RENDER_MAX_INTERVAL = timedelta(minutes=10)
RENDER_RETRY = RetryPolicy(initial_interval=timedelta(seconds=2), maximum_interval=RENDER_MAX_INTERVAL)
# What policies activated before this workflow existed render with (their histories replay).
RENDER_RETRY_V0 = RetryPolicy(
    initial_interval=timedelta(seconds=1), maximum_interval=timedelta(minutes=1), maximum_attempts=10
)


@workflow.defn
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
