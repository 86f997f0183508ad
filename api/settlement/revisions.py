"""Held observation revisions (four eyes, docs/observations.md): data and operations staff
list and read them; a data staff member other than the submitter approves one (its rows are
stored and the settlements over their days re-settle with adjustments), any data staff
member refuses one (the submitter may withdraw their own). The decision runs in the
revision's workflow (`observation-revision:<id>`, an update) that ops watch in Temporal."""

from __future__ import annotations

import asyncio
import uuid
from typing import Annotated, Literal

import msgspec
from litestar import Controller, get, post
from litestar.di import NamedDependency, Provide
from litestar.params import Body, FromPath, JSONBody, QueryParameter
from temporalio.client import Client, WorkflowUpdateFailedError
from temporalio.exceptions import ApplicationError
from temporalio.service import RPCError

from api.auth.roles import Caller, callers
from api.auth.tokens import Principal
from api.deps import WORKFLOW_DEADLINE, provide_temporal
from api.lifecycle import RETRY_AFTER
from api.openapi_docs import AUTHED, problems, tenant_header
from api.pagination import check_size
from api.problems import Conflict, DomainError, InvalidInput, NotFound, Unavailable
from api.settlement.observations import hold_in_temporal
from models.db import observation_revisions as revisions_db
from models.db.staff import staff_by_actor, staff_by_id
from models.settings import Settings
from models.temporal.observations import (
    DECIDE_UPDATE,
    FOUR_EYES,
    NOT_HELD,
    STALE_REVISION,
    RevisionDecided,
    RevisionDecision,
    held_input,
    revision_workflow_id,
)
from models.temporal.queues import task_queue
from models.temporal.staff import SAME_PERSON, UNKNOWN_ACTOR
from models.wire.settlement import (
    HeldObservation,
    ObservationRevisionView,
    RevisionApproval,
    RevisionRefusal,
    SettledCoverChange,
)


class FourEyesRequired(DomainError):
    status, slug, title = 403, "forbidden", "Forbidden"


def revision_view(row: dict, with_rows: bool = False) -> ObservationRevisionView:
    return ObservationRevisionView(
        id=row["id"], state=row["state"], submitted_by=row["submitted_by"], reason=row["reason"], rows=row["row_count"],
        created_at=row["created_at"],
        settlements=msgspec.convert(row["settlements"] or [], list[SettledCoverChange]),
        decided_by=row["decided_by"], decided_at=row["decided_at"], decision_reason=row["decision_reason"],
        workflow_id=revision_workflow_id(row["id"]),
        observations=msgspec.convert(row["rows"], list[HeldObservation], strict=False) if with_rows else None,
    )


async def _held_or_error(revision_id: uuid.UUID) -> dict:
    row = await revisions_db.revision(revision_id)
    if row is None:
        raise NotFound(f"observation revision {revision_id} does not exist")
    if row["state"] != revisions_db.HELD:
        raise Conflict(f"the revision is {row['state']} already (by {row['decided_by']}, {row['decided_at']:%Y-%m-%d %H:%M} UTC)")
    return row


async def _same_person(submitted_by: str, principal: Principal) -> bool:
    """Whether the caller is the revision's submitter: the same actor, or the same person by
    stable staff id (or a name or e-mail alike: models/db/staff.py). The workflow's staff
    check decides again."""
    if submitted_by == principal.actor:
        return True
    submitter, caller = await staff_by_actor(submitted_by), await staff_by_id(principal.client_id)
    return submitter is not None and caller is not None and caller.same_person(submitter)


async def _decide(
    revision_id: uuid.UUID, state: str, principal: Principal, reason: str, temporal: Client, settings: Settings
) -> ObservationRevisionView:
    row = await _held_or_error(revision_id)
    if state == revisions_db.APPROVED and await _same_person(row["submitted_by"], principal):
        raise FourEyesRequired(
            f"four eyes are needed: {principal.actor} submitted this revision, so another data staff member approves it"
        )
    # Started here if the process that held the rows stopped before starting it.
    workflow_id = await hold_in_temporal(temporal, task_queue(settings.task_queue, "lifecycle"), held_input(row))
    decision = RevisionDecision(state=state, decided_by=principal.actor, reason=reason, decided_by_id=principal.client_id)
    try:
        await asyncio.wait_for(
            temporal.get_workflow_handle(workflow_id).execute_update(DECIDE_UPDATE, decision, result_type=RevisionDecided),
            WORKFLOW_DEADLINE,
        )
    except WorkflowUpdateFailedError as err:
        cause = err.cause
        kind = cause.type if isinstance(cause, ApplicationError) else None
        message = cause.message if isinstance(cause, ApplicationError) else str(err)
        if kind in (FOUR_EYES, SAME_PERSON):
            raise FourEyesRequired(f"four eyes are needed: {message}") from None
        if kind == UNKNOWN_ACTOR:
            raise FourEyesRequired(message) from None
        if kind in (NOT_HELD, STALE_REVISION):
            raise Conflict(message) from None
        raise Unavailable(f"the decision could not be recorded ({message}); retry shortly", headers=RETRY_AFTER) from None
    except RPCError as err:  # the workflow closed between the start and the update
        raise Conflict(f"the revision's workflow {workflow_id} is closed ({err.message}); read the revision again") from None
    except asyncio.TimeoutError:
        raise Unavailable("the decision is taking longer than expected; read the revision shortly", headers=RETRY_AFTER) from None
    return revision_view(await revisions_db.revision(revision_id), with_rows=True)


class ObservationRevisionController(Controller):
    path = "/internal/observation-revisions"
    tags = ["Internal surface"]
    parameters = tenant_header()
    dependencies = {"temporal": Provide(provide_temporal)}

    @get(
        operation_id="listObservationRevisions",
        summary="Observation revisions held for a second data staff member, and decided ones",
        description="Newest first; `state=HELD` lists those waiting for a decision (docs/observations.md).",
        opt=callers(Caller.DATA, Caller.OPERATIONS),
        responses=problems(*AUTHED),
    )
    async def list_revisions(
        self,
        settings: NamedDependency[Settings],
        state_filter: Annotated[Literal["HELD", "APPROVED", "REFUSED"] | None, QueryParameter(name="state")] = None,
        size: Annotated[int, QueryParameter(description="At most this many, newest first (1-100)")] = 100,
    ) -> list[ObservationRevisionView]:
        check_size(size, settings.max_page_size)
        return [revision_view(r) for r in await revisions_db.list_revisions(state_filter, size)]

    @get(
        "/{revision_id:uuid}",
        operation_id="observationRevision",
        summary="A held revision: its rows (with the values they revise) and the settled covers it changes",
        opt=callers(Caller.DATA, Caller.OPERATIONS),
        responses=problems(*AUTHED, 404),
    )
    async def one(self, revision_id: FromPath[uuid.UUID]) -> ObservationRevisionView:
        row = await revisions_db.revision(revision_id)
        if row is None:
            raise NotFound(f"observation revision {revision_id} does not exist")
        return revision_view(row, with_rows=True)

    @post(
        "/{revision_id:uuid}/approve",
        operation_id="approveObservationRevision",
        summary="Approve a held revision (four eyes: not by its submitter): its rows are stored and settlements re-settle",
        description="403 for the submitter; 409 when it is not HELD (or its values were revised again since).",
        opt=callers(Caller.DATA),
        status_code=200,
        responses=problems(*AUTHED, 404, 409, 503),
    )
    async def approve(
        self, revision_id: FromPath[uuid.UUID], principal: NamedDependency[Principal], temporal: NamedDependency[Client],
        settings: NamedDependency[Settings], data: Annotated[RevisionApproval | None, Body()] = None,
    ) -> ObservationRevisionView:
        reason = (data.reason or "").strip() if data is not None else ""
        return await _decide(revision_id, revisions_db.APPROVED, principal, reason, temporal, settings)

    @post(
        "/{revision_id:uuid}/refuse",
        operation_id="refuseObservationRevision",
        summary="Refuse a held revision (`reason` required): nothing is stored",
        opt=callers(Caller.DATA),
        status_code=200,
        responses=problems(*AUTHED, 404, 409, 503),
    )
    async def refuse(
        self, revision_id: FromPath[uuid.UUID], principal: NamedDependency[Principal], temporal: NamedDependency[Client],
        settings: NamedDependency[Settings], data: JSONBody[RevisionRefusal],
    ) -> ObservationRevisionView:
        reason = data.reason.strip()
        if not reason:
            raise InvalidInput.of_field("reason", "say why the revision is refused")
        return await _decide(revision_id, revisions_db.REFUSED, principal, reason, temporal, settings)
