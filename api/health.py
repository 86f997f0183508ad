"""Liveness and dependencies: database and Temporal reachable."""

from __future__ import annotations

import asyncio
from importlib.metadata import PackageNotFoundError, version

from api.auth.roles import Caller, callers
from litestar import Request, Response, get
from litestar.openapi.datastructures import ResponseSpec

from models.db.core import ping
from models.wire.common import ComponentHealth, Health

try:
    VERSION = version("parametric-insurance")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    VERSION = "0.0.0"


async def _database() -> ComponentHealth:
    try:
        await asyncio.wait_for(ping(), timeout=3)
        return ComponentHealth(status="ok")
    except Exception as exc:  # noqa: BLE001 - any failure means "down"
        return ComponentHealth(status="down", detail=type(exc).__name__)


async def _temporal(request: Request) -> ComponentHealth:
    try:
        client = await asyncio.wait_for(request.app.state.temporal.get(), timeout=3)
        await asyncio.wait_for(client.service_client.check_health(), timeout=3)
        return ComponentHealth(status="ok")
    except Exception as exc:  # noqa: BLE001
        return ComponentHealth(status="down", detail=type(exc).__name__)


@get(
    "/health",
    opt=callers(Caller.PUBLIC),
    operation_id="getHealth",
    summary="Database and Temporal reachable (200 ok, 503 degraded)",
    tags=["Operations"],
    security=[{}],
    responses={503: ResponseSpec(Health, description="Database or Temporal down")},
)
async def health(request: Request) -> Response[Health]:
    database, temporal = await asyncio.gather(_database(), _temporal(request))
    ok = database.status == "ok" and temporal.status == "ok"
    body = Health(status="ok" if ok else "degraded", database=database, temporal=temporal, version=VERSION)
    return Response(content=body, status_code=200 if ok else 503)
