"""The worker's Schedules in a test: trigger one and await the run it starts; remove them all
afterwards (`ensure_schedules` creates every one, and the webhook dispatch's runs every minute)."""

from __future__ import annotations

import asyncio

from temporalio.service import RPCError


def schedule_ids() -> tuple[str, ...]:
    from models.temporal.bordereaux import BORDEREAUX_SCHEDULE_ID
    from models.temporal.observations import (
        INGEST_SCHEDULE_ID,
        NOTICE_SWEEP_SCHEDULE_ID,
    )
    from models.temporal.portfolio import PORTFOLIO_SCHEDULE_ID
    from models.temporal.sweeps import START_SWEEP_SCHEDULE_ID
    from models.temporal.webhooks import DISPATCH_SCHEDULE_ID

    return (BORDEREAUX_SCHEDULE_ID, NOTICE_SWEEP_SCHEDULE_ID, DISPATCH_SCHEDULE_ID, INGEST_SCHEDULE_ID,
            PORTFOLIO_SCHEDULE_ID, START_SWEEP_SCHEDULE_ID)


async def triggered_run(client, schedule_id: str, result_type, timeout: float = 300):
    """Trigger the Schedule now; the result of the run it started."""
    handle = client.get_schedule_handle(schedule_id)
    await handle.trigger()
    for _ in range(120):
        actions = (await handle.describe()).info.recent_actions
        if actions:
            break
        await asyncio.sleep(0.5)
    run = client.get_workflow_handle(actions[-1].action.workflow_id, result_type=result_type)
    return await asyncio.wait_for(run.result(), timeout)


async def remove_schedules(client) -> None:
    for schedule_id in schedule_ids():
        try:
            await client.get_schedule_handle(schedule_id).delete()
        except RPCError:
            pass
