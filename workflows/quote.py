"""The lifecycle of a tenant-surface quote: CREATED → ACCEPTED (converted to a policy draft),
REJECTED, or EXPIRED after its validity. Workflow id `quote:<tenant>:<quote id>`.

`created` is the update of update-with-start: POST /quotes returns once the quote is in the
database. `convert` and `reject` are updates whose validators refuse moves the state does
not allow; their effects are written by local activities before the update returns.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import uuid

from temporalio import workflow
from temporalio.exceptions import ActivityError
from temporalio.common import SearchAttributePair, TypedSearchAttributes
from temporalio.workflow import ParentClosePolicy

with workflow.unsafe.imports_passed_through():
    from activities.quotes import convert_quote, persist_quote, transition_quote
    from models.commands import ConvertQuoteInput, PolicyWorkflowInput, QuoteTransitionInput, QuoteWorkflowInput
    from models.workflow_ids import (
        EXTERNAL_REF,
        MONITORING_TARGET_ID,
        POLICY_STATUS,
        QUOTE_STATE,
        TENANT_ID,
        policy_workflow_id,
    )
    from workflows.lifecycle import BACKGROUND_WRITE_RETRY, WRITE_RETRY, WRITE_TIMEOUT, refuse, write_failed
    from workflows.policy import PolicyWorkflow


@workflow.defn
class QuoteWorkflow:
    @workflow.init
    def __init__(self, request: QuoteWorkflowInput) -> None:
        self._draft = request.draft
        self._status = "NEW"  # NEW → CREATED → (CONVERTING → ACCEPTED | REJECTING → REJECTED | EXPIRED)
        self._policy_id: uuid.UUID | None = None

    @workflow.query
    def status(self) -> dict:
        return {"quoteId": str(self._draft.id), "status": self._status, "policyId": self._policy_id and str(self._policy_id)}

    @workflow.run
    async def run(self, request: QuoteWorkflowInput) -> str:
        draft = self._draft
        await workflow.execute_local_activity(
            persist_quote, draft, start_to_close_timeout=WRITE_TIMEOUT, retry_policy=WRITE_RETRY
        )
        self._set("CREATED")
        expires = dt.datetime.combine(draft.valid_until, dt.time.max, tzinfo=dt.timezone.utc)
        try:
            await workflow.wait_condition(
                lambda: self._status != "CREATED", timeout=max(expires - workflow.now(), dt.timedelta(0))
            )
        except asyncio.TimeoutError:
            if self._status == "CREATED":
                self._status = "EXPIRING"
                await self._write("EXPIRED", ["CREATED"], background=True)
                self._set("EXPIRED")
        await workflow.wait_condition(
            lambda: workflow.all_handlers_finished() and self._status in ("ACCEPTED", "REJECTED", "EXPIRED")
        )
        return self._status

    @workflow.update
    async def created(self) -> str:
        await workflow.wait_condition(lambda: self._status != "NEW")
        return self._status

    @workflow.update
    async def convert(self) -> str:
        """Convert to a policy draft; returns the new policy id."""
        if self._status != "CREATED":  # a concurrent convert got here first
            raise refuse("convert the quote", self._status)
        self._status = "CONVERTING"
        draft = self._draft
        policy_id = workflow.uuid4()
        try:
            converted = await workflow.execute_local_activity(
                convert_quote,
                ConvertQuoteInput(
                    tenant_id=draft.tenant_id,
                    quote_id=draft.id,
                    policy_id=policy_id,
                    line_item_ids=[workflow.uuid4() for _ in draft.line_items],
                ),
                start_to_close_timeout=WRITE_TIMEOUT,
                retry_policy=WRITE_RETRY,
            )
        except ActivityError as err:
            self._status = "CREATED"
            raise write_failed(err) from err
        if not converted:
            self._status = "CREATED"
            raise refuse("convert the quote", "changed in the database")
        self._policy_id = policy_id
        self._set("ACCEPTED")
        attributes = [
            SearchAttributePair(TENANT_ID, draft.tenant_id),
            SearchAttributePair(POLICY_STATUS, "CREATED"),
            SearchAttributePair(MONITORING_TARGET_ID, draft.monitoring_target_id),
        ]
        if draft.external_ref:
            attributes.append(SearchAttributePair(EXTERNAL_REF, draft.external_ref))
        # Started before the update answers: the client may activate the policy right away.
        await workflow.start_child_workflow(
            PolicyWorkflow.run,
            PolicyWorkflowInput(
                tenant_id=draft.tenant_id,
                policy_id=policy_id,
                monitoring_target_id=draft.monitoring_target_id,
                external_ref=draft.external_ref,
                periods=[(item.start, item.end) for item in draft.line_items],
            ),
            id=policy_workflow_id(draft.tenant_id, policy_id),
            parent_close_policy=ParentClosePolicy.ABANDON,
            search_attributes=TypedSearchAttributes(attributes),
            )
        return str(policy_id)

    @convert.validator
    def validate_convert(self) -> None:
        if self._status != "CREATED":
            raise refuse("convert the quote", self._status)

    @workflow.update
    async def reject(self) -> str:
        if self._status != "CREATED":
            raise refuse("reject the quote", self._status)
        self._status = "REJECTING"
        try:
            await self._write("REJECTED", ["CREATED"])
        except ActivityError as err:
            self._status = "CREATED"
            raise write_failed(err) from err
        self._set("REJECTED")
        return self._status

    @reject.validator
    def validate_reject(self) -> None:
        if self._status != "CREATED":
            raise refuse("reject the quote", self._status)

    async def _write(self, to_status: str, from_statuses: list[str], background: bool = False) -> None:
        await workflow.execute_local_activity(
            transition_quote,
            QuoteTransitionInput(
                tenant_id=self._draft.tenant_id,
                quote_id=self._draft.id,
                to_status=to_status,
                to_state=to_status.lower(),
                from_statuses=from_statuses,
            ),
            start_to_close_timeout=WRITE_TIMEOUT,
            retry_policy=BACKGROUND_WRITE_RETRY if background else WRITE_RETRY,
        )

    def _set(self, status: str) -> None:
        self._status = status
        # Each upsert is a visibility write: skip it when the value is already there (the
        # starter sets QuoteState=CREATED).
        if workflow.info().typed_search_attributes.get(QUOTE_STATE) != status:
            workflow.upsert_search_attributes([QUOTE_STATE.value_set(status)])
