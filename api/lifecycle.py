"""Calling lifecycle updates on Temporal and mapping their outcomes to HTTP problems.

- A refused transition (`InvalidTransition`) or a closed lifecycle is a 409; a bind that does
  not fit a capacity limit (`CapacityExceeded`) a 409 `capacity-exceeded` naming the limit
  (nothing was written: the key's retry is a new update, which may find room).
- A write that failed within its budget (`WriteFailed`: nothing was written) and a workflow
  that does not answer within the request's deadline are a 503 with Retry-After. The client
  retries with the same Idempotency-Key: after a timeout it gets the first call's answer
  (the update id follows the key); after a failed write its retry is a new update.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import uuid
from typing import Any

import msgspec
from litestar import Request
from temporalio.client import (
    Client,
    WithStartWorkflowOperation,
    WorkflowHandle,
    WorkflowUpdateFailedError,
    WorkflowUpdateRPCTimeoutOrCancelledError,
)
from temporalio.common import SearchAttributePair
from temporalio.exceptions import ApplicationError, WorkflowAlreadyStartedError
from temporalio.service import RPCError, RPCStatusCode

from api.idempotency import HEADER as IDEMPOTENCY_KEY
from api.capacity.views import CapacityExceeded
from api.idempotency import TransitionKey
from api.problems import Conflict, Unavailable
from models.db.tables import MonitoringTarget, Tenant
from models.domain.lifecycle import REQUEST_DEADLINE
from models.domain.capacity import CapacityRefusal
from models.temporal.lifecycle import CAPACITY_EXCEEDED, INVALID_TRANSITION, WRITE_FAILED
from models.temporal.search_attributes import TENANT_ID, TENANT_NAME

RETRY_AFTER = {"Retry-After": "2"}


def transition_key(request: Request, principal_tenant: str, operation: str, resource_id: uuid.UUID) -> TransitionKey:
    """The transition's Idempotency-Key (api/idempotency.py: the update id it becomes)."""
    return TransitionKey(principal_tenant, operation, resource_id, request.headers.get(IDEMPOTENCY_KEY))


async def _refusal(err: WorkflowUpdateFailedError, key: TransitionKey | None) -> Exception:
    cause = err.cause
    if isinstance(cause, ApplicationError) and cause.type == INVALID_TRANSITION:
        return Conflict(cause.message)
    if isinstance(cause, ApplicationError) and cause.type == CAPACITY_EXCEEDED and cause.details:
        if key is not None:
            await key.failed()
        return CapacityExceeded(msgspec.convert(cause.details[0], CapacityRefusal))
    if isinstance(cause, ApplicationError) and cause.type == WRITE_FAILED:
        if key is not None:  # nothing was written: the key's retry is a new update
            await key.failed()
        return Unavailable(f"the change could not be recorded ({cause.message}); retry shortly", headers=RETRY_AFTER)
    if isinstance(cause, ApplicationError):
        return Unavailable(f"the change could not be completed ({cause.message}); retry shortly", headers=RETRY_AFTER)
    return err


def _late() -> Exception:
    """The workflow did not answer within the request's deadline: it goes on; the client
    retries (with the same Idempotency-Key to get the first call's answer)."""
    return Unavailable("the change is taking longer than expected; retry shortly", headers=RETRY_AFTER)


def _rpc(err: RPCError, closed_detail: str) -> Exception:
    if err.status in (RPCStatusCode.NOT_FOUND, RPCStatusCode.FAILED_PRECONDITION):
        return Conflict(closed_detail)
    if err.status in (RPCStatusCode.UNAVAILABLE, RPCStatusCode.DEADLINE_EXCEEDED):
        return Unavailable("the workflow engine (Temporal) is not reachable; try again shortly", headers=RETRY_AFTER)
    return err


async def run_update(
    handle: WorkflowHandle,
    update: Any,
    closed_detail: str,
    key: TransitionKey | None = None,
    deadline: float = REQUEST_DEADLINE.total_seconds(),
) -> Any:
    """Execute an update and map its outcome (module docstring)."""
    update_id = await key.update_id() if key else None
    try:
        return await asyncio.wait_for(handle.execute_update(update, id=update_id), deadline)
    except WorkflowUpdateFailedError as err:
        raise await _refusal(err, key) from None
    except (asyncio.TimeoutError, WorkflowUpdateRPCTimeoutOrCancelledError):
        raise _late() from None
    except RPCError as err:
        raise _rpc(err, closed_detail) from None


async def run_update_with_start(
    client: Client,
    update: Any,
    start: WithStartWorkflowOperation,
    closed_detail: str,
    key: TransitionKey | None = None,
    deadline: float = REQUEST_DEADLINE.total_seconds(),
) -> Any:
    """Update-with-start, with the same mapping; a workflow id whose run has ended and may not
    be reused (the conversion of a quote that was converted or lapsed before) is a 409."""
    update_id = await key.update_id() if key else None
    try:
        return await asyncio.wait_for(
            client.execute_update_with_start_workflow(update, start_workflow_operation=start, id=update_id),
            deadline,
        )
    except WorkflowUpdateFailedError as err:
        raise await _refusal(err, key) from None
    except (asyncio.TimeoutError, WorkflowUpdateRPCTimeoutOrCancelledError):
        raise _late() from None
    except WorkflowAlreadyStartedError:
        raise Conflict(closed_detail) from None
    except RPCError as err:
        raise _rpc(err, closed_detail) from None


# --- what ops read in the Temporal UI -----------------------------------------------------------

_tenant_names: dict[str, str] = {}
_target_names: dict[str, str] = {}


async def tenant_name(tenant_id: str) -> str:
    name = _tenant_names.get(tenant_id)
    if name is None:
        row = await Tenant.select(Tenant.name).where(Tenant.id == uuid.UUID(tenant_id)).first()
        name = _tenant_names[tenant_id] = row["name"] if row else tenant_id
    return name


async def tenant_attributes(tenant_id: str) -> list[SearchAttributePair]:
    """TenantId and TenantName (issue 29: ops search by the tenant's name too), for a start."""
    return [SearchAttributePair(TENANT_ID, tenant_id), SearchAttributePair(TENANT_NAME, await tenant_name(tenant_id))]


async def target_label(target_id: str) -> str:
    """"Bengaluru Urban" for "Bengaluru Urban, Karnataka (12.875°N 77.625°E)"."""
    name = _target_names.get(target_id)
    if name is None:
        row = await MonitoringTarget.select(MonitoringTarget.name).where(MonitoringTarget.id == target_id).first()
        name = _target_names[target_id] = row["name"].split(",")[0] if row else target_id
    return name


def months_label(start: dt.date, end: dt.date) -> str:
    """"12 months" for a calendar year, "15 days" below four weeks (dates inclusive)."""
    days = (end - start).days + 1
    if days < 28:
        return f"{days} day" + ("s" if days != 1 else "")
    months = max(1, round(days / 30.4375))
    return f"{months} month" + ("s" if months != 1 else "")


async def summary(kind: str, tenant_id: str, target_id: str, start: dt.date, end: dt.date) -> str:
    """"Policy · Bengaluru Urban · 12 months · acme": the Temporal UI's summary of a workflow."""
    return f"{kind} · {await target_label(target_id)} · {months_label(start, end)} · {await tenant_name(tenant_id)}"
