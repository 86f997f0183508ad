"""Documents rendered when first asked for (a claim report, a cancelled policy's schedule): the
API starts (or joins) the document's workflow and waits for it up to the request deadline;
past it the client gets 202 with Retry-After and a JSON status (docs/documents.md)."""

from __future__ import annotations

import asyncio

import msgspec
from litestar import Response
from temporalio.client import Client
from temporalio.common import WorkflowIDConflictPolicy

from api.lifecycle import RETRY_AFTER
from models.settings import Settings


async def rendered(temporal: Client, settings: Settings, workflow: str, arg: object, workflow_id: str,
                   summary: str) -> bool:
    """True once the document's workflow has rendered it; False past the request deadline (it
    goes on: the client's retry joins it, USE_EXISTING)."""
    handle = await temporal.start_workflow(
        workflow, arg, id=workflow_id, task_queue=settings.task_queue,
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING, static_summary=summary,
    )
    try:
        await asyncio.wait_for(handle.result(), settings.request_deadline_seconds)
    except asyncio.TimeoutError:
        return False
    return True


def still_rendering(status: object) -> Response:
    """202 with Retry-After and the document's status (a msgspec Struct or a dict)."""
    return Response(content=msgspec.json.encode(status), media_type="application/json", status_code=202,
                    headers=RETRY_AFTER)
