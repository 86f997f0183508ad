"""Settlement disputes (docs/settlement.md, "Sources that disagree"): a coverage whose
sources disagree is DISPUTED and pays nothing until two data staff members decide which
source settles it (models/db/dispute_decisions.py). Data and operations staff read a
coverage's dispute; a data staff member proposes a source, a different one confirms it;
the settlement is then told (the notice written with the decision; signalled here at once,
else by the `settlement-notices` sweep) and settles on the source chosen."""

from __future__ import annotations

import logging
import uuid

from litestar import Controller, get, post
from litestar.di import NamedDependency, Provide
from litestar.params import FromPath, JSONBody
from temporalio.client import Client
from temporalio.service import RPCError

from api.auth.roles import Caller, callers
from api.auth.tokens import Principal
from api.deps import provide_temporal
from api.openapi_docs import AUTHED, problems, tenant_header
from api.problems import Conflict, InvalidInput, NotFound
from api.settlement.revisions import FourEyesRequired
from api.settlement.observations import tell_settlements
from models.db import dispute_decisions as disputes_db
from models.domain.index_catalog import BY_ID
from models.domain.settlement_basis import decode_basis
from models.settings import Settings
from models.temporal.queues import task_queue
from models.temporal.ids import settlement_workflow_id
from models.wire.settlement import DisputeDecisionIn, DisputeReading, SettlementDisputeView

log = logging.getLogger("parametric.settlement")


def dispute_view(row: dict, coverage: dict, staff: bool) -> SettlementDisputeView:
    """The dispute as staff see it; a tenant's client (`staff` False) sees the readings, the
    state and the source chosen, never who proposed or decided it nor why."""
    spec = BY_ID[coverage["index_definition_id"]]
    basis = decode_basis(coverage["settlement_basis"])
    who = (lambda value: (value or None) if staff else None)
    return SettlementDisputeView(
        id=row["id"], coverage_id=row["coverage_id"], monitoring_target_id=row["monitoring_target_id"],
        period_start=row["period_start"], period_end=row["period_end"], state=row["state"],
        readings=[DisputeReading(source=s, index_value=v) for s, v in disputes_db.readings(row).items()],
        choices=list(disputes_db.choices(row)), index_code=spec.code, unit=spec.unit,
        direction=coverage["direction"], trigger=coverage["trigger"],
        tolerance=None if basis is None else basis.tolerance, detail=row["detail"],
        proposal=row["proposal"] or None, proposed_by=who(row["proposed_by"]), proposal_reason=who(row["proposal_reason"]),
        decision=row["decision"] or None, decided_by=who(row["decided_by"]), decision_reason=who(row["decision_reason"]),
        decided_at=row["decided_at"], created_at=row["created_at"],
        settlement_workflow_id=settlement_workflow_id(row["monitoring_target_id"], row["period_start"], row["period_end"]),
    )


async def disputes_of(coverage_ids: list[uuid.UUID], staff: bool) -> dict[uuid.UUID, SettlementDisputeView]:
    """The latest dispute of each coverage that has one (a page of settlements)."""
    rows = await disputes_db.latest_disputes(coverage_ids)
    terms = await disputes_db.coverage_terms(list(rows))
    return {c: dispute_view(r, terms[c], staff) for c, r in rows.items() if c in terms}


async def _one(coverage_id: uuid.UUID) -> SettlementDisputeView:
    found = await disputes_of([coverage_id], staff=True)
    if coverage_id not in found:
        raise NotFound(f"coverage {coverage_id} has no settlement dispute (its sources never disagreed)")
    return found[coverage_id]


class SettlementDisputeController(Controller):
    path = "/internal/settlements/{coverage_id:uuid}/dispute"
    tags = ["Internal surface"]
    parameters = tenant_header()
    dependencies = {"temporal": Provide(provide_temporal)}

    @get(
        operation_id="settlementDispute",
        summary="A coverage's settlement dispute: both sources' readings, the trigger, the tolerance, the proposal",
        description="The latest (an open one if any); 404 when the coverage's sources never disagreed.",
        opt=callers(Caller.DATA, Caller.OPERATIONS),
        responses=problems(*AUTHED, 404),
    )
    async def one(self, coverage_id: FromPath[uuid.UUID]) -> SettlementDisputeView:
        return await _one(coverage_id)

    @post(
        "/decisions",
        operation_id="decideSettlementDispute",
        summary="Propose or confirm the source that settles a disputed coverage (four eyes)",
        description=(
            "The first data staff member proposes one of the dispute's `choices` with a `reason` (400 naming "
            "`reason` without one); a **different** one confirms the same source: the dispute is DECIDED and "
            "the settlement settles on it. The proposer confirming their own proposal: 403; another source "
            "than the one proposed, or a dispute decided already: 409. The same request again answers the "
            "dispute as it is. The proposer may replace their proposal with the other source until confirmed."
        ),
        opt=callers(Caller.DATA),
        status_code=200,
        responses=problems(*AUTHED, 404, 409),
    )
    async def decide(
        self, coverage_id: FromPath[uuid.UUID], data: JSONBody[DisputeDecisionIn], principal: NamedDependency[Principal],
        temporal: NamedDependency[Client], settings: NamedDependency[Settings],
    ) -> SettlementDisputeView:
        try:
            decision = await disputes_db.decide(coverage_id, data.source, data.reason, principal.actor, principal.client_id)
        except LookupError as err:
            raise NotFound(str(err)) from None
        except disputes_db.BadSource as err:
            raise InvalidInput.of_field("source", str(err)) from None
        except disputes_db.ReasonRequired as err:
            raise InvalidInput.of_field("reason", str(err)) from None
        except disputes_db.FourEyes as err:
            raise FourEyesRequired(str(err)) from None
        except (disputes_db.NotOpen, disputes_db.OtherSource) as err:
            raise Conflict(str(err)) from None
        if decision.notices:
            try:  # the decision is committed: the settlement-notices sweep tells it should this fail
                await tell_settlements(temporal, task_queue(settings.task_queue, "lifecycle"), decision.notices)
            except (RPCError, RuntimeError) as err:
                log.warning("dispute of %s decided; settlement not told now (%s): the sweep tells it", coverage_id, err)
        return await _one(coverage_id)
