"""Payout holds (docs/roles.md, "Payout holds"): operations staff hold a policy's payouts
and release them; a tenant's internal client reads the holds on its own policies, as
`TenantPayoutHoldView`: that its payouts are held and since when, never the reason or who
placed it (a tenant told "sanctions screening: payee name matches …" could tip the payee off).

While a policy is held, settlement goes on (events and payouts are recorded exactly once as
always) and its `payout.recorded` / `adjustment.recorded` messages, the instruction to pay,
stay in the outbox; released, the next dispatch sends them (started at once here; the
`webhook-dispatch` Schedule sends them within a minute anyway, so the release answers 200
once it committed, whether or not that start reached Temporal)."""

from __future__ import annotations

import logging
import uuid
from typing import Annotated, Literal

from litestar import Controller, Response, get, post
from litestar.di import NamedDependency, Provide
from litestar.params import Body, FromPath, JSONBody, QueryParameter
from temporalio.client import Client
from temporalio.common import WorkflowIDConflictPolicy
from temporalio.service import RPCError

from api.auth.roles import Caller, callers, is_staff
from api.auth.tokens import Principal
from api.deps import provide_temporal
from api.openapi_docs import AUTHED, problems, tenant_header
from api.pagination import check_size
from api.problems import Conflict, InvalidInput, NotFound
from api.responses import DecimalNumberResponse
from models.db import payout_holds as holds_db
from models.domain.actors import shown_actor
from models.domain.money import from_minor
from models.settings import Settings
from models.temporal.queues import task_queue
from models.temporal.webhooks import WEBHOOK_DISPATCH_WORKFLOW, DispatchInput
from models.wire.settlement import NewPayoutHold, PayoutHoldRelease, PayoutHoldView, SignedAmount, TenantPayoutHoldView

log = logging.getLogger("parametric.payout_holds")


def hold_view(record: holds_db.HoldRecord) -> PayoutHoldView:
    h = record.hold
    return PayoutHoldView(
        id=h["id"], tenant_id=h["tenant_id"], policy_id=h["policy_id"], state=h["state"], reason=h["reason"],
        held_by=shown_actor(h["held_by"]) or "", held_at=h["held_at"], released_by=shown_actor(h["released_by"] or None),
        released_at=h["released_at"], release_reason=h["release_reason"], payouts_while_held=record.payouts,
        amount_while_held=SignedAmount(amount=from_minor(record.amount_minor, record.currency), currency=record.currency),
        waiting_messages=record.waiting_messages,
    )


def tenant_hold_view(record: holds_db.HoldRecord) -> TenantPayoutHoldView:
    h = record.hold
    return TenantPayoutHoldView(id=h["id"], policy_id=h["policy_id"], state=h["state"], held_at=h["held_at"],
                                released_at=h["released_at"])


def _view_for(principal: Principal):
    """The view of a hold this caller reads: the whole for operations staff, the tenant's otherwise."""
    return hold_view if is_staff(principal, Caller.OPERATIONS) else tenant_hold_view


def _scope(principal: Principal) -> uuid.UUID | None:
    """None for operations staff (every tenant); a tenant's own id otherwise."""
    return None if is_staff(principal, Caller.OPERATIONS) else uuid.UUID(principal.tenant_id)


async def _hold_or_404(hold_id: uuid.UUID, principal: Principal) -> holds_db.HoldRecord:
    record = await holds_db.hold_record(hold_id, _scope(principal))
    if record is None:
        raise NotFound(f"payout hold {hold_id} does not exist")
    return record


class PayoutHoldController(Controller):
    opt = callers(Caller.OPERATIONS)
    path = "/internal/payout-holds"
    tags = ["Internal surface"]
    parameters = tenant_header()
    dependencies = {"temporal": Provide(provide_temporal)}

    @post(operation_id="holdPayouts", summary="Hold a policy's payouts (operations staff)",
          description="Settlement goes on; the policy's payout and adjustment messages wait until the hold is "
                      "released. One hold at a time per policy (409 names the one in place).",
          responses=problems(*AUTHED, 404, 409))
    async def hold(self, data: JSONBody[NewPayoutHold], principal: NamedDependency[Principal]) -> Response[PayoutHoldView]:
        tenant_id = await holds_db.policy_tenant(data.policy_id)
        if tenant_id is None:
            raise NotFound(f"policy {data.policy_id} does not exist")
        try:
            hold_id = await holds_db.place_hold(data.policy_id, tenant_id, data.reason, principal.actor)
        except holds_db.AlreadyHeld as held:
            raise Conflict(f"the policy's payouts are held already (hold {held.hold_id})",
                           headers={"Location": f"{self.path}/{held.hold_id}"}) from None
        view = hold_view(await _hold_or_404(hold_id, principal))
        return DecimalNumberResponse(view, status_code=201, headers={"Location": f"{self.path}/{hold_id}"})

    @get(operation_id="listPayoutHolds", opt=callers(Caller.TENANT_INTERNAL, Caller.OPERATIONS),
         summary="Payout holds, newest first (a tenant: those on its own policies, that they are held and since when)",
         description="Operations staff read each hold whole (`PayoutHoldView`); a tenant's internal client reads "
                     "`TenantPayoutHoldView`: the policy, the state and since when, never the reason or who placed it.",
         responses=problems(*AUTHED))
    async def list_holds(
        self,
        principal: NamedDependency[Principal],
        settings: NamedDependency[Settings],
        state_filter: Annotated[Literal["HELD", "RELEASED"] | None, QueryParameter(name="state")] = None,
        policy_id: Annotated[uuid.UUID | None, QueryParameter(name="policyId")] = None,
        tenant_filter: Annotated[uuid.UUID | None, QueryParameter(name="tenantId", description="Operations staff: one tenant's")] = None,
        size: Annotated[int, QueryParameter(description="1-100")] = 100,
    ) -> list[PayoutHoldView] | list[TenantPayoutHoldView]:
        check_size(size, settings.max_page_size)
        scope = _scope(principal)
        if scope is not None and tenant_filter is not None and tenant_filter != scope:
            raise InvalidInput.of_field("tenantId", "only operations staff read another tenant's holds")
        records = await holds_db.list_holds(state_filter, scope or tenant_filter, policy_id, size)
        view = _view_for(principal)
        return [view(r) for r in records]

    @get("/{hold_id:uuid}", operation_id="getPayoutHold", opt=callers(Caller.TENANT_INTERNAL, Caller.OPERATIONS),
         summary="One payout hold: what it holds and whether its messages went out (a tenant: that it holds and "
                 "since when)", responses=problems(*AUTHED, 404))
    async def get_hold(self, hold_id: FromPath[uuid.UUID],
                       principal: NamedDependency[Principal]) -> PayoutHoldView | TenantPayoutHoldView:
        return _view_for(principal)(await _hold_or_404(hold_id, principal))

    @post("/{hold_id:uuid}/release", operation_id="releasePayouts", status_code=200,
          summary="Release a hold: the policy's waiting payout messages go out (operations staff)",
          responses=problems(*AUTHED, 404, 409))
    async def release(
        self,
        hold_id: FromPath[uuid.UUID],
        principal: NamedDependency[Principal],
        temporal: NamedDependency[Client],
        settings: NamedDependency[Settings],
        data: Annotated[PayoutHoldRelease | None, Body(description="Optional reason")] = None,
    ) -> PayoutHoldView:
        await _hold_or_404(hold_id, principal)
        try:
            await holds_db.release_hold(hold_id, (data.reason if data else None) or "", principal.actor)
        except holds_db.NotHeld:
            raise Conflict(f"payout hold {hold_id} was released before") from None
        # Released (committed). The waiting messages go out now, not at the next minute's
        # dispatch: a shortcut, which may fail (Temporal unreachable) without failing the
        # release: the `webhook-dispatch` Schedule's pass finds them anyway. A 5xx here would
        # have the client retry a release that happened, and get 409.
        hooks = task_queue(settings.task_queue, "webhooks")
        try:
            await temporal.start_workflow(
                WEBHOOK_DISPATCH_WORKFLOW, DispatchInput(task_queue=hooks), id=f"webhook-dispatch:release:{hold_id}",
                task_queue=hooks, id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
                static_summary=f"Webhook dispatch · payout hold {hold_id} released",
            )
        except (RPCError, RuntimeError) as err:
            log.warning("payout hold %s released; its messages wait for the next scheduled dispatch (%s)", hold_id, err)
        return hold_view(await _hold_or_404(hold_id, principal))
