"""Tenant surface: quotes (create, read, list, convert to a policy draft, reject)."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Annotated

import msgspec
from litestar import Controller, Request, Response, delete, get, patch, post
from litestar.di import NamedDependency, Provide
from litestar.params import FromPath, JSONBody, QueryParameter
from temporalio.client import Client, WithStartWorkflowOperation
from temporalio.common import (
    SearchAttributePair,
    TypedSearchAttributes,
    WorkflowIDConflictPolicy,
    WorkflowIDReusePolicy,
)

from api.auth.tokens import Principal
from api.deps import provide_temporal
from api.idempotency import HEADER as IDEMPOTENCY_KEY
from api.idempotency import Idempotency
from api.lifecycle import run_update, run_update_with_start, summary, transition_key
from api.openapi_docs import AUTHED, problems, tenant_header
from api.pagination import PageParam, check_size, page_of
from api.problems import Conflict, InvalidInput, NotFound
from api.quotes import responses
from api.quotes.service import check_period, priced_covers
from api.responses import encode_json
from models.clock import utcnow
from models.db import quotes as quotes_db
from models.db.tables import MonitoringTarget
from models.domain.lifecycle import (
    day_start,
    line_item_ids,
    policy_id_for_quote,
    quote_deadline,
    quote_id_for_key,
)
from models.domain.money import to_minor
from models.domain.quotes import (
    QuoteError,
    build_quote,
    fallback_slots,
    month_segments,
    slots_for,
)
from models.settings import Settings
from models.temporal.ids import policy_workflow_id, quote_workflow_id
from models.temporal.policies import PolicyWorkflowInput
from models.temporal.quotes import QuoteWorkflowInput
from models.temporal.search_attributes import (
    EXTERNAL_REF,
    MONITORING_TARGET_ID,
    POLICY_STATUS,
    QUOTE_ID,
    QUOTE_STATE,
    RISK_PERIOD_END,
    RISK_PERIOD_START,
    TENANT_ID,
)
from models.wire.common import FieldError, Page
from models.wire.tenant import (
    NewQuote,
    PolicyOut,
    QuoteListItem,
    QuoteOut,
    QuoteRecord,
)
from workflows.policies import PolicyWorkflow
from workflows.quotes import QuoteWorkflow

SizeParam = Annotated[int, QueryParameter(description="Items per page (1-100)")]


async def _quote_or_404(tenant_id: str, quote_id: uuid.UUID) -> dict:
    row = await quotes_db.quote_row(tenant_id, quote_id)
    if row is None or row["kind"] != "TENANT":
        raise NotFound(f"quote {quote_id} does not exist")
    return row


class QuoteController(Controller):
    path = "/quotes"
    tags = ["Tenant surface"]
    parameters = tenant_header()
    dependencies = {"temporal": Provide(provide_temporal)}

    @post(
        operation_id="createQuote",
        summary="Quote a monitoring target over a risk period: one line item per month, two covers each",
        description=(
            "Prices come from the coverage catalogue. Send `Idempotency-Key` to make retries safe: "
            "the same key and body replay the first response; another body is a 422."
        ),
        status_code=200,
        responses=problems(*AUTHED, 409, 413, 422, 503),
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
            body = await self._create(
                data, principal, temporal, settings, request.app.state.nonviable, request.headers.get(IDEMPOTENCY_KEY)
            )
        except BaseException:
            await idempotency.release()
            raise
        await idempotency.complete(200, body)
        quote_id = msgspec.json.decode(body)["id"]
        return Response(content=body, media_type="application/json", headers={"Location": f"/quotes/{quote_id}"})

    async def _create(
        self, data: NewQuote, principal: Principal, temporal: Client, settings: Settings, nonviable, key: str | None
    ) -> bytes:
        money = data.sum_insured_for_line_item
        if money.currency != settings.catalogue_currency:
            raise InvalidInput(
                f"quotes are written in {settings.catalogue_currency}",
                errors=[FieldError(field="sumInsuredForLineItem.currency", message=f"must be {settings.catalogue_currency}")],
            )
        problem = check_period(data.risk_period_from, data.risk_period_to, dt.date.today())
        if problem:
            raise InvalidInput(problem, errors=[FieldError(field="riskPeriodFrom", message=problem)])
        if not await MonitoringTarget.exists().where(MonitoringTarget.id == data.monitoring_target_id):
            raise InvalidInput(
                f"unknown monitoring target {data.monitoring_target_id!r} (see GET /pincode-mapping)",
                errors=[FieldError(field="monitoringTargetId", message="unknown monitoring target")],
            )
        # The two preferred covers of each month; where one is not viable, the next index.
        slots = slots_for(data.risk_period_from, data.risk_period_to)
        covers = await priced_covers(temporal, settings, data.monitoring_target_id, slots, nonviable)
        extra = fallback_slots(slots, set(covers))
        if extra:
            covers |= await priced_covers(temporal, settings, data.monitoring_target_id, extra, nonviable)
        # With an Idempotency-Key the id follows from the key: a retry after a timeout finds
        # the first quote (its workflow, or its row) instead of making a second one.
        quote_id = quote_id_for_key(principal.tenant_id, key) if key is not None else uuid.uuid4()
        try:
            draft = build_quote(
                quote_id=quote_id,
                line_item_ids=line_item_ids(quote_id, len(month_segments(data.risk_period_from, data.risk_period_to))),
                tenant_id=principal.tenant_id,
                monitoring_target_id=data.monitoring_target_id,
                start=data.risk_period_from,
                end=data.risk_period_to,
                currency=money.currency,
                sum_insured_minor=to_minor(money.amount, money.currency),
                external_ref=data.external_ref,
                covers_by_slot=covers,
                today=dt.date.today(),
            )
        except QuoteError as err:
            raise InvalidInput(str(err)) from None
        attributes = [
            SearchAttributePair(TENANT_ID, principal.tenant_id),
            SearchAttributePair(QUOTE_STATE, "CREATED"),
            SearchAttributePair(MONITORING_TARGET_ID, data.monitoring_target_id),
            *_period_attributes(data.risk_period_from, data.risk_period_to),
        ]
        if data.external_ref:
            attributes.append(SearchAttributePair(EXTERNAL_REF, data.external_ref))
        start = WithStartWorkflowOperation(
            QuoteWorkflow.run,
            QuoteWorkflowInput(draft=draft, lifecycle=2),
            id=quote_workflow_id(principal.tenant_id, quote_id),
            task_queue=settings.task_queue,
            # A keyed retry joins the first request's workflow while it runs.
            id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING if key else WorkflowIDConflictPolicy.FAIL,
            search_attributes=TypedSearchAttributes(attributes),
            static_summary=await summary(
                "Quote", principal.tenant_id, data.monitoring_target_id, data.risk_period_from, data.risk_period_to
            ),
        )
        await run_update_with_start(
            temporal, QuoteWorkflow.created, start, "the quote could not be created",
            deadline=settings.request_deadline_seconds,
        )
        return encode_json(await responses.quote_out(principal.tenant_id, quote_id))

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
        return responses.quote_record(await _quote_or_404(principal.tenant_id, quote_id))

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
        description="New ids for the policy and its line items; the coverage ids stay. 409 unless the quote is CREATED.",
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
        row = await _quote_or_404(principal.tenant_id, quote_id)
        key = transition_key(request, principal.tenant_id, "convert", quote_id)
        if key.key is None and row["status"] != "ACCEPTED":
            # Without a key, a rejected or expired quote is refused at once. An ACCEPTED one
            # goes to its policy's workflow: a conversion whose write landed after its
            # request gave up is completed there, any other is refused there.
            _check_open(row, "convert")
        policy_id = policy_id_for_quote(quote_id)
        start, end = row["risk_period_from"], row["risk_period_to"]
        attributes = [
            SearchAttributePair(TENANT_ID, principal.tenant_id),
            SearchAttributePair(POLICY_STATUS, "CREATED"),
            SearchAttributePair(QUOTE_ID, str(quote_id)),
            SearchAttributePair(MONITORING_TARGET_ID, row["monitoring_target_id"]),
            *_period_attributes(start, end),
        ]
        if row["external_ref"]:
            attributes.append(SearchAttributePair(EXTERNAL_REF, row["external_ref"]))
        operation = WithStartWorkflowOperation(
            PolicyWorkflow.run,
            PolicyWorkflowInput(
                tenant_id=principal.tenant_id,
                policy_id=policy_id,
                monitoring_target_id=row["monitoring_target_id"],
                external_ref=row["external_ref"],
                periods=month_segments(start, end),
                quote_id=quote_id,
                lapse_at=quote_deadline(row["valid_until"], start),
            ),
            id=policy_workflow_id(principal.tenant_id, policy_id),
            task_queue=settings.task_queue,
            # Concurrent conversions meet in one workflow (one of them converts); a policy
            # workflow that has ended is never started again for the same quote.
            id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
            id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
            search_attributes=TypedSearchAttributes(attributes),
            static_summary=await summary("Policy", principal.tenant_id, row["monitoring_target_id"], start, end),
        )
        await run_update_with_start(
            temporal, PolicyWorkflow.convert, operation, f"cannot convert the quote in state {row['status']}", key,
            deadline=settings.request_deadline_seconds,
        )
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
        row = await _quote_or_404(principal.tenant_id, quote_id)
        key = transition_key(request, principal.tenant_id, "reject", quote_id)
        if key.key is None:
            _check_open(row, "reject")
        handle = temporal.get_workflow_handle(quote_workflow_id(principal.tenant_id, quote_id))
        await run_update(
            handle, QuoteWorkflow.reject, f"cannot reject the quote in state {row['status']}", key,
            deadline=settings.request_deadline_seconds,
        )
        return responses.quote_record(await _quote_or_404(principal.tenant_id, quote_id))


def _check_open(row: dict, what: str) -> None:
    """409 for a quote that is decided or past its deadline (the workflow would refuse too)."""
    if row["status"] != "CREATED":
        raise Conflict(f"cannot {what} the quote in state {row['status']}")
    deadline = quote_deadline(row["valid_until"], row["risk_period_from"])
    if utcnow() >= deadline:
        raise Conflict(f"cannot {what} the quote in state CREATED: it expired at {deadline:%Y-%m-%d %H:%M} UTC")


def _period_attributes(start: dt.date, end: dt.date) -> list[SearchAttributePair]:
    return [
        SearchAttributePair(RISK_PERIOD_START, day_start(start)),
        SearchAttributePair(RISK_PERIOD_END, day_start(end + dt.timedelta(days=1))),
    ]
