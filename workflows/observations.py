"""The daily observations run (`observations-daily` Schedule): each configured provider in
its own activity, so ops see per provider what came in (rows new, revised, unchanged,
refused) and a failing source is retried without holding up the others."""

from __future__ import annotations

import asyncio
import datetime as dt

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from activities.observations import ingest_observations
    from models.temporal.observations import (
        OBSERVATION_INGEST_WORKFLOW,
        IngestProviderInput,
        IngestRunInput,
        IngestSummary,
    )


@workflow.defn(name=OBSERVATION_INGEST_WORKFLOW)
class ObservationIngestWorkflow:
    @workflow.run
    async def run(self, request: IngestRunInput) -> list[IngestSummary | str]:
        today = workflow.now().date()

        async def one(provider: str) -> IngestSummary | str:
            try:
                return await workflow.execute_activity(
                    ingest_observations,
                    IngestProviderInput(provider=provider, today=today, lookback_days=request.lookback_days,
                                        task_queue=workflow.info().task_queue),
                    start_to_close_timeout=dt.timedelta(hours=1),
                    heartbeat_timeout=dt.timedelta(minutes=5),
                    retry_policy=RetryPolicy(initial_interval=dt.timedelta(seconds=30), maximum_attempts=5),
                    summary=f"Observations from {provider}" + (" (simulated)" if provider == "simulated" else ""),
                )
            except ActivityError as err:
                return f"{provider}: failed: {err.cause or err}"

        return list(await asyncio.gather(*(one(p) for p in request.providers)))
