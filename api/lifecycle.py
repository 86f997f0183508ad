"""Calling lifecycle updates on Temporal and mapping their refusals to HTTP problems."""

from __future__ import annotations

import asyncio
from typing import Any

from temporalio.client import WorkflowHandle, WorkflowUpdateFailedError
from temporalio.exceptions import ApplicationError
from temporalio.service import RPCError, RPCStatusCode

from api.deps import WORKFLOW_DEADLINE
from api.problems import Conflict, Unavailable
from workflows.lifecycle import INVALID_TRANSITION


async def run_update(handle: WorkflowHandle, update: Any, closed_detail: str) -> Any:
    """Execute an update; a refused transition or a closed lifecycle is a 409, a workflow
    that does not answer within the deadline a 503."""
    try:
        return await asyncio.wait_for(handle.execute_update(update), WORKFLOW_DEADLINE)
    except WorkflowUpdateFailedError as err:
        cause = err.cause
        if isinstance(cause, ApplicationError) and cause.type == INVALID_TRANSITION:
            raise Conflict(cause.message) from None
        if isinstance(cause, ApplicationError):
            raise Unavailable(f"the change could not be recorded ({cause.message}); retry shortly") from None
        raise
    except RPCError as err:
        if err.status in (RPCStatusCode.NOT_FOUND, RPCStatusCode.FAILED_PRECONDITION):
            raise Conflict(closed_detail) from None
        if err.status in (RPCStatusCode.UNAVAILABLE, RPCStatusCode.DEADLINE_EXCEEDED):
            raise Unavailable("the workflow engine (Temporal) is not reachable; try again shortly") from None
        raise
