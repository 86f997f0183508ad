"""Internal surface: fast quotes (asynchronous pricing job), their acceptance and rejection,
policies from quotes and their acceptance (docs/internal-quotes.md)."""

from __future__ import annotations

import uuid

import msgspec

from api.responses import DecimalNumberResponse
from litestar import Controller, Request, Response, get, post
from litestar.di import NamedDependency, Provide
from litestar.params import FromPath, JSONBody
from temporalio.client import Client

from api.auth.tokens import Principal
from api.deps import provide_temporal
from api.internal_quotes import responses
from api.internal_quotes.service import (
    accept_fast_quote,
    create_fast_quote,
    fast_quote_or_404,
    quote_or_404,
    policy_from_quote,
    reject_fast_quote,
)
from api.lifecycle import transition_key
from api.openapi_docs import AUTHED, problems, tenant_header
from api.policies.service import activate_policy, policy_or_404
from models.domain.statuses import QuoteStatus
from models.settings import Settings
from models.wire.internal import AcceptQuote, InternalPolicy, InternalQuote, NewFastQuote, NewPolicyFromQuote
from api.auth.roles import Caller, callers


async def _quote(tenant_id: str, quote_id: uuid.UUID) -> InternalQuote:
    return await responses.quote_out(await quote_or_404(tenant_id, quote_id))


class FastQuoteController(Controller):
    opt = callers(Caller.TENANT_INTERNAL)
    path = "/internal"
    tags = ["Internal surface"]
    parameters = tenant_header()
    dependencies = {"temporal": Provide(provide_temporal)}

    @post(
        "/fast-quotes",
        operation_id="createFastQuote",
        summary="Quote chosen coverages for a customer; the pricing job runs asynchronously",
        description=(
            "Answers 201 at once with the quote in state `created` and its Location; its QuoteWorkflow "
            "moves it to `queued`, `running` and `completed` (or `error`). Read it with GET /internal/quotes/{id}."
        ),
        status_code=201,
        responses=problems(*AUTHED, 413, 503),
    )
    async def create(
        self,
        data: JSONBody[NewFastQuote],
        principal: NamedDependency[Principal],
        temporal: NamedDependency[Client],
        settings: NamedDependency[Settings],
    ) -> Response[InternalQuote]:
        quote_id = await create_fast_quote(data, principal.tenant_id, temporal, settings)
        # the quote as written (state `created`): its job may already have moved it on
        row = await fast_quote_or_404(principal.tenant_id, quote_id)
        body = await responses.quote_out(msgspec.structs.replace(row, status=QuoteStatus.PENDING, state="created"))
        return DecimalNumberResponse(body, status_code=201, headers={"Location": f"/internal/quotes/{quote_id}"})

    @get(
        "/quotes/{quote_id:uuid}",
        operation_id="getInternalQuote",
        summary="A quote of the tenant: its state and, once completed, its aggregated pricing and document",
        description=(
            "A fast quote, or a quote made on the tenant surface (POST /quotes) in the same shape: "
            "`customerId` null, `state` completed (or accepted, rejected, expired), its package's premium "
            "and aggregated pricing. Accept, reject and POST /internal/policies take fast quotes; a "
            "tenant-surface quote is converted or rejected on the tenant surface."
        ),
        responses=problems(*AUTHED, 404),
    )
    async def get_quote(self, quote_id: FromPath[uuid.UUID], principal: NamedDependency[Principal]) -> InternalQuote:
        return await _quote(principal.tenant_id, quote_id)

    @post(
        "/quotes/{quote_id:uuid}/accept",
        operation_id="acceptInternalQuote",
        summary="Convert a completed quote to a policy draft; answers the quote (state accepted, policyId)",
        status_code=200,
        responses=problems(*AUTHED, 404, 409, 503),
    )
    async def accept(
        self,
        request: Request,
        quote_id: FromPath[uuid.UUID],
        data: JSONBody[AcceptQuote],
        principal: NamedDependency[Principal],
        temporal: NamedDependency[Client],
        settings: NamedDependency[Settings],
    ) -> InternalQuote:
        row = await fast_quote_or_404(principal.tenant_id, quote_id)
        key = transition_key(request, principal.tenant_id, "convert", quote_id)
        await accept_fast_quote(row, data.external_policy_id, principal.tenant_id, temporal, settings, key)
        return await _quote(principal.tenant_id, quote_id)

    @post(
        "/quotes/{quote_id:uuid}/reject",
        operation_id="rejectInternalQuote",
        summary="Reject a quote before it is accepted (its job, if running, is cancelled); answers the quote (state rejected)",
        status_code=200,
        responses=problems(*AUTHED, 404, 409, 503),
    )
    async def reject(
        self,
        request: Request,
        quote_id: FromPath[uuid.UUID],
        principal: NamedDependency[Principal],
        temporal: NamedDependency[Client],
        settings: NamedDependency[Settings],
    ) -> InternalQuote:
        row = await fast_quote_or_404(principal.tenant_id, quote_id)
        key = transition_key(request, principal.tenant_id, "reject", quote_id)
        await reject_fast_quote(row, principal.tenant_id, temporal, settings, key)
        return await _quote(principal.tenant_id, quote_id)

    @post(
        "/policies",
        operation_id="createInternalPolicy",
        summary="Create the policy (status CREATED) of a completed quote; the quote becomes accepted",
        status_code=201,
        responses=problems(*AUTHED, 404, 409, 503),
    )
    async def create_policy(
        self,
        request: Request,
        data: JSONBody[NewPolicyFromQuote],
        principal: NamedDependency[Principal],
        temporal: NamedDependency[Client],
        settings: NamedDependency[Settings],
    ) -> Response[InternalPolicy]:
        row = await fast_quote_or_404(principal.tenant_id, data.quote_id)
        key = transition_key(request, principal.tenant_id, "convert", data.quote_id)
        policy_id = await policy_from_quote(row, principal.tenant_id, temporal, settings, key)
        body = await responses.policy_out(principal.tenant_id, policy_id, settings.risk_carrier)
        return DecimalNumberResponse(body, status_code=201, headers={"Location": f"/internal/policies/{policy_id}"})

    @get(
        "/policies/{policy_id:uuid}",
        operation_id="getInternalPolicy",
        summary="A policy in the internal shape (any policy of the tenant, however it was made)",
        responses=problems(*AUTHED, 404),
    )
    async def get_policy(
        self, policy_id: FromPath[uuid.UUID], principal: NamedDependency[Principal], settings: NamedDependency[Settings]
    ) -> InternalPolicy:
        await policy_or_404(principal.tenant_id, policy_id)
        return await responses.policy_out(principal.tenant_id, policy_id, settings.risk_carrier)

    @post(
        "/policies/{policy_id:uuid}/accept",
        operation_id="acceptInternalPolicy",
        summary="Accept (activate) a policy draft: ACCEPTED, activatedAt, signatureConfirmed; monitoring starts",
        status_code=200,
        responses=problems(*AUTHED, 404, 409, 503),
    )
    async def accept_policy(
        self,
        request: Request,
        policy_id: FromPath[uuid.UUID],
        principal: NamedDependency[Principal],
        temporal: NamedDependency[Client],
        settings: NamedDependency[Settings],
    ) -> InternalPolicy:
        row = await policy_or_404(principal.tenant_id, policy_id)
        key = transition_key(request, principal.tenant_id, "activate", policy_id)
        await activate_policy(row, principal.tenant_id, temporal, settings, key)
        return await responses.policy_out(principal.tenant_id, policy_id, settings.risk_carrier)

