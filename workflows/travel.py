"""The hotel-rain covers of one stay at one target (travel surface, docs/travel.md).
Workflow id `travel-coverages:<target>:<first night>:<last night>`, started by
`GET /travel/{tenant}/coverages` for a stay whose covers do not exist yet:

    load_site → price_stay_nights (pricing queue) → record_travel_coverages

The covers of a stay are shared by every tenant and guest asking for it; a second request
while the first is pricing waits for the same run.
"""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    import msgspec

    from activities.catalogue import load_site
    from activities.travel import price_stay_nights, record_travel_coverages
    from models.temporal.travel import TRAVEL_COVERAGES_WORKFLOW, PriceStayInput, TravelCoveragesInput
    from models.temporal.queues import task_queue

# Other workflow modules are workflow code: imported in the sandbox, never passed through.
from workflows.pricing import RETRY, SIMULATION_RETRY

DB_TIMEOUT = timedelta(seconds=30)
# One simulation of a few nights: seconds. No heartbeat from inside numpy; a lost worker
# is noticed at the timeout, and the retry (same seed) gives the same counts.
STAY_PRICING_TIMEOUT = timedelta(minutes=5)


@workflow.defn(name=TRAVEL_COVERAGES_WORKFLOW)
class TravelCoveragesWorkflow:
    @workflow.run
    async def run(self, request: TravelCoveragesInput) -> list[str]:
        site = await workflow.execute_activity(
            load_site, request.target_id, start_to_close_timeout=DB_TIMEOUT, retry_policy=RETRY
        )
        priced = await workflow.execute_activity(
            price_stay_nights,
            PriceStayInput(
                site=site,
                first_night=request.first_night,
                last_night=request.last_night,
                triggers=request.triggers,
                simulations=request.simulations,
                seed=request.seed,
            ),
            task_queue=task_queue(workflow.info().task_queue, "pricing"),
            start_to_close_timeout=STAY_PRICING_TIMEOUT,
            retry_policy=SIMULATION_RETRY,
            summary=f"Hotel rain nights {request.first_night}..{request.last_night} · {request.target_id}",
        )
        return await workflow.execute_activity(
            record_travel_coverages,
            msgspec.structs.replace(priced, workflow_id=workflow.info().workflow_id),
            start_to_close_timeout=DB_TIMEOUT,
            retry_policy=RETRY,
        )
