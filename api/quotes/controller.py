"""Tenant surface: quotes (create, read, list, convert to a policy draft, reject)."""

from __future__ import annotations

import uuid
from typing import Annotated

import msgspec
from litestar import Controller, Request, Response, delete, get, patch, post
from litestar.di import NamedDependency, Provide
from litestar.params import FromPath, JSONBody, QueryParameter
from temporalio.client import Client

from api.auth.roles import Caller, callers
from api.auth.tokens import Principal
from api.deps import provide_temporal
from api.idempotency import HEADER as IDEMPOTENCY_KEY
from api.idempotency import Idempotency
from api.lifecycle import transition_key
from api.openapi_docs import AUTHED, problems, tenant_header
from api.pagination import PageParam, check_size, page_of
from api.quotes import responses
from api.capacity.views import quote_capacity
from api.quotes.service import convert_quote, create_quote, quote_or_404, reject_quote
from api.responses import encode_json
from models.db import quotes as quotes_db
from models.settings import Settings
from models.wire.common import Page
from models.wire.tenant import (
    NewQuote,
    PolicyOut,
    QuoteListItem,
    QuoteOut,
    QuoteRecord,
)

SizeParam = Annotated[int, QueryParameter(description="Items per page (1-100)")]


class QuoteController(Controller):
    opt = callers(Caller.TENANT)
    path = "/quotes"
    tags = ["Tenant surface"]
    parameters = tenant_header()
    dependencies = {"temporal": Provide(provide_temporal)}

    @post(
        operation_id="createQuote",
        summary="Quote a monitoring target over a risk period: one line item per month, two covers each",
        description=(
            "Prices come from the coverage catalogue. Send `Idempotency-Key` to make retries safe: "
            "the same key and body replay the first response; another body is a 422. The period must lie "
            "in the sellable window (from the first day of next month, 24 months ahead); a quote that needs "
            "a month priced first counts against the tenant's pricing quota (429 beyond it)."
        ),
        status_code=200,
        responses=problems(*AUTHED, 409, 413, 422, 429, 503),
    )
    async def create(
        self,
        request: Request,
        data: JSONBody[NewQuote],
        principal: NamedDependency[Principal],
        temporal: NamedDependency[Client],
        settings: NamedDependency[Settings],
    ) -> Response[QuoteOut]:
        idempotency = Idempotency(principal.tenant_id, request.headers.get(IDEMPOTENCY_KEY), msgspec.json.encode(data))
        replay = await idempotency.begin()
        if replay is not None:
            return replay
        try:
            quote_id = await create_quote(
                data, principal.tenant_id, temporal, settings, request.app.state.nonviable,
                request.headers.get(IDEMPOTENCY_KEY), request.app.state.admission,
            )
            body = encode_json(await responses.quote_out(principal.tenant_id, quote_id))
        except BaseException:
            await idempotency.release()
            raise
        await idempotency.complete(200, body)
        return Response(content=body, media_type="application/json", headers={"Location": f"/quotes/{quote_id}"})

    @get(
        "/{quote_id:uuid}",
        operation_id="getQuote",
        summary="One quote",
        responses=problems(*AUTHED, 404),
    )
    async def get_one(
        self,
        quote_id: FromPath[uuid.UUID],
        principal: NamedDependency[Principal],
        settings: NamedDependency[Settings],
        page: PageParam = 0,
        size: SizeParam = 20,
    ) -> QuoteRecord:
        check_size(size, settings.max_page_size)
        row = await quote_or_404(principal.tenant_id, quote_id)
        return responses.quote_record(row, await quote_capacity(principal.tenant_id, row))

    @get(operation_id="listQuotes", summary="The tenant's quotes, newest first", responses=problems(*AUTHED))
    async def list_quotes(
        self,
        principal: NamedDependency[Principal],
        settings: NamedDependency[Settings],
        page: PageParam = 0,
        size: SizeParam = 20,
    ) -> Page[QuoteListItem]:
        check_size(size, settings.max_page_size)
        rows, total = await quotes_db.list_quotes(principal.tenant_id, page, size)
        return page_of([responses.quote_list_item(r) for r in rows], total, page, size)

    @patch(
        "/{quote_id:uuid}",
        operation_id="convertQuote",
        summary="Accept the quote: convert it to a policy draft (status CREATED)",
        description=(
            "New ids for the policy and its line items; the coverage ids stay. 409 unless the quote is CREATED; "
            "409 `capacity-exceeded` when the policy does not fit a capacity limit (the problem names the limit, "
            "its `remaining` and the policy's `required`; the quote stays CREATED: docs/capacity.md)."
        ),
        responses=problems(*AUTHED, 404, 409, 503),
    )
    async def convert(
        self,
        request: Request,
        quote_id: FromPath[uuid.UUID],
        principal: NamedDependency[Principal],
        temporal: NamedDependency[Client],
        settings: NamedDependency[Settings],
    ) -> PolicyOut:
        row = await quote_or_404(principal.tenant_id, quote_id)
        key = transition_key(request, principal.tenant_id, "convert", quote_id)
        policy_id = await convert_quote(row, principal.tenant_id, temporal, settings, key)
        return await responses.policy_out(principal.tenant_id, policy_id)

    @delete(
        "/{quote_id:uuid}/reject",
        operation_id="rejectQuote",
        summary="Mark the quote as no longer relevant (REJECTED); answers the quote record",
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
    ) -> QuoteRecord:
        row = await quote_or_404(principal.tenant_id, quote_id)
        key = transition_key(request, principal.tenant_id, "reject", quote_id)
        await reject_quote(row, principal.tenant_id, temporal, settings, key)
        return responses.quote_record(await quote_or_404(principal.tenant_id, quote_id))
