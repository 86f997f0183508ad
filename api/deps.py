"""Dependencies injected into handlers: the caller and the Temporal client."""

from __future__ import annotations

from litestar import Request
from temporalio.client import Client

from api.auth.tokens import Principal
from api.problems import Unavailable
from models.domain.lifecycle import REQUEST_DEADLINE
from models.settings import Settings

# How long a request waits on a workflow (update or result) before answering 503; the
# workflow itself goes on, and an Idempotency-Key makes the client's retry safe.
WORKFLOW_DEADLINE = REQUEST_DEADLINE.total_seconds()
# A quote for a target or month not seen before waits for its catalogue pricing.
CATALOGUE_DEADLINE = 90.0


async def provide_principal(request: Request) -> Principal:
    return request.user


async def provide_temporal(request: Request) -> Client:
    try:
        return await request.app.state.temporal.get()
    except RuntimeError as exc:
        raise Unavailable("the workflow engine (Temporal) is not reachable; try again shortly") from exc


async def provide_settings(request: Request) -> Settings:
    return request.app.state.settings
