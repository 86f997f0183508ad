"""The lifecycle of a quote: CREATED → ACCEPTED (converted to a policy draft), REJECTED, or
EXPIRED at its deadline. Workflow id `quote:<tenant>:<quote id>`.

- `created` is the update of update-with-start: POST /quotes returns once the quote is in
  the database (or 503 if it could not be written: the run then ends as NOT_CREATED).
- The quote expires at its deadline (models.domain.lifecycle.quote_deadline: the end of its
  validity or the start of its risk period, whichever is first), whatever else happens: a
  rejection whose write fails leaves it CREATED and its deadline still armed.
- Conversion is owned by the policy's workflow (PATCH /quotes/{id} is an update-with-start
  on `policy:<tenant>:<policy id>`, which writes the conversion); once it has, the API tells
  this one with the `converted` signal (issue 29: QuoteState and PolicyId right within
  seconds, and the run ends), and at its deadline this workflow's expiry write finds the
  conversion in the database in any case (a signal that never came).
- `reject` is an update whose validator refuses moves the state does not allow; its write is
  a local activity whose outcome is checked before the update answers.

Tenant quotes started with `price_package` (every one since issue 26; a new input field,
default false, and the patch `quote-package-priced`, so that a run whose first task an older
worker took replays on the old path: docs/workflow-versioning.md): before the quote is written,
its package (its covers in their line items, each capped at its sum insured) is priced as one
(models/domain/packages.py): `find_package_price`, a local activity, reads a package priced
before; a package never priced is priced by `price_package` on the pricing queue (customer
priority). Its capital is then taken from the book (`price_against_book` on the pricing
queue, patch `quote-book-capital`: activities/book_capital.py, docs/portfolio.md), as the
fast quote's pricing does. Each cover then carries its part of the package's premium, and the
quote is written with the package's totals. A package that cannot be priced leaves the quote
NOT_CREATED (the `created` update fails: 503, retry).

Fast quotes (internal surface, draft kind FAST): before the lifecycle above, the run carries
the quote's job: PENDING (`created`) → QUEUED (`queued`, the pricing activity scheduled) →
RUNNING (`running`, written by the pricing activity as it starts) → CREATED (`completed`, with
its aggregated pricing and quote document) or ERROR (`error`, with the reason; final).
Transient faults are retried by the activities' retry policy; a non-retryable failure or
exhausted retries end in ERROR. Only runs of kind FAST take this path (there were none before
it), so recorded histories replay unchanged.
A fast quote can be rejected in its job too (issue 29, patch `fast-quote-job-rejectable`):
the job runs as a task of its own; the `reject` update writes REJECTED (the database allows
it from the job's states) and then cancels that task, so the pricing is cancelled, the
document's result ignored and no completion written (their writes are conditional on the
job's states: a completion that lands first is rejected after it).

Versioning (docs/workflow-versioning.md): the lifecycle is versioned as a whole by its input
(`QuoteWorkflowInput.lifecycle`, default 1 for runs started before it existed): those runs keep
their original code path (`_run_v0`, the `convert` update) to the end. Quotes live at most 30
days, so that path can be removed 30 days after the release that introduced lifecycle 2.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import uuid

from temporalio import workflow
from temporalio.common import RetryPolicy, SearchAttributePair, TypedSearchAttributes
from temporalio.exceptions import ActivityError, ApplicationError
from temporalio.workflow import ParentClosePolicy

with workflow.unsafe.imports_passed_through():
    from activities.fast_quotes import (
        complete_fast_quote,
        price_fast_quote,
        render_fast_quote_document,
        set_fast_quote_status,
    )
    from activities.book_capital import price_against_book
    from activities.packages import find_package_price, price_package
    from activities.policies import convert_quote
    from activities.quotes import (
        expire_quote,
        persist_quote,
        record_quote,
        reject_quote,
        transition_quote,
    )
    from models.domain.lifecycle import quote_deadline
    from models.domain.packages import apply_package_price
    from models.domain.statuses import PolicyStatus, QuoteStatus
    from models.temporal.ids import policy_workflow_id
    from models.temporal.queues import task_queue
    from models.temporal.lifecycle import TransitionOutcome
    from models.temporal.policies import PolicyWorkflowInput
    from models.temporal.quotes import (
        CONVERT_UPDATE_V0,
        CONVERTED_SIGNAL,
        CREATED_UPDATE,
        QUOTE_WORKFLOW,
        REJECT_UPDATE,
        STATUS_QUERY,
        BookPricingInput,
        ConvertQuoteInput,
        FastQuoteCompletion,
        FastQuoteDocumentInput,
        FastQuoteJob,
        FastQuoteStatusInput,
        PackagePricingInput,
        QuoteTransitionInput,
        QuoteWorkflowInput,
        QuoteWorkflowStatus,
        QuoteWriteInput,
    )
    from models.temporal.search_attributes import (
        EXTERNAL_REF,
        MONITORING_TARGET_ID,
        POLICY_ID,
        POLICY_STATUS,
        QUOTE_STATE,
        TENANT_ID,
    )

# Other workflow modules are workflow code: imported in the sandbox, never passed through.
from workflows.documents import CUSTOMER_DOCUMENT
from workflows.lifecycle import (
    BACKGROUND_WRITE_RETRY,
    LOCAL_ACTIVITY_FAILED,
    REQUEST_WRITE,
    WRITE_RETRY,
    WRITE_TIMEOUT,
    background_write,
    refuse,
    write_failed,
)
from workflows.policies import PolicyWorkflow

FINAL = (QuoteStatus.ACCEPTED, QuoteStatus.REJECTED, QuoteStatus.EXPIRED, QuoteStatus.NOT_CREATED, QuoteStatus.ERROR)
IN_FLIGHT = ("REJECTING", "EXPIRING")
JOB = (QuoteStatus.PENDING, QuoteStatus.QUEUED, QuoteStatus.RUNNING)
# The fast quote's pricing: a few transient failures are retried, then the quote is in error.
PRICING_RETRY = RetryPolicy(
    initial_interval=dt.timedelta(seconds=1), maximum_interval=dt.timedelta(seconds=10), maximum_attempts=4
)
PRICING_TIMEOUT = dt.timedelta(minutes=10)
PRICING_HEARTBEAT = dt.timedelta(seconds=30)
BOOK_CAPITAL_TIMEOUT = dt.timedelta(minutes=2)
DOCUMENT_TIMEOUT = dt.timedelta(minutes=2)
# Fast quotes' documents go ahead of catalogue documents (runs before it: default priority,
# and a quote could wait minutes behind a new target's catalogue renders).
PATCH_QUOTE_DOCUMENT_FIRST = "fast-quote-document-priority"
# A tenant quote's package is priced as one before the quote is written (issue 26).
PATCH_QUOTE_PACKAGE_PRICED = "quote-package-priced"
# A tenant quote's capital is its share of the book's tail (issue 27): one more activity after
# the package's price, on the pricing queue.
PATCH_QUOTE_BOOK_CAPITAL = "quote-book-capital"
# A tenant quote whose package could not be priced is not written (503, retry).
PACKAGE_NOT_PRICED = "PackageNotPriced"
# A fast quote can be rejected while its job is pending, queued or running (issue 29): the
# rejection is written first, then the job is cancelled (its pricing cancelled, its document's
# result ignored, its completion never written). Decided in the reject update, where the new
# commands start: runs that never see such a rejection write no marker.
PATCH_QUOTE_JOB_REJECTABLE = "fast-quote-job-rejectable"


@workflow.defn(name=QUOTE_WORKFLOW)
class QuoteWorkflow:
    @workflow.init
    def __init__(self, request: QuoteWorkflowInput) -> None:
        self._draft = request.draft
        # NEW → CREATED → (ACCEPTED | REJECTING → REJECTED | EXPIRING → EXPIRED); NEW → NOT_CREATED
        self._status = "NEW"
        self._policy_id: uuid.UUID | None = None
        self._detail = ""
        self._unpriced = False  # the package could not be priced (NOT_CREATED)
        self._v2 = request.lifecycle >= 2
        self._deadline = quote_deadline(request.draft.valid_until, request.draft.risk_period_from)
        self._job_task: asyncio.Task | None = None  # a fast quote's job, which a rejection cancels

    @workflow.query(name=STATUS_QUERY)
    def status(self) -> QuoteWorkflowStatus:
        return QuoteWorkflowStatus(
            quote_id=str(self._draft.id),
            status=self._status,
            policy_id=self._policy_id and str(self._policy_id),
            deadline=self._deadline.isoformat(),
            detail=self._detail,
        )

    @workflow.run
    async def run(self, request: QuoteWorkflowInput) -> str:
        if not self._v2:
            return await self._run_v0()
        if (
            request.price_package
            and self._draft.kind == "TENANT"
            and workflow.patched(PATCH_QUOTE_PACKAGE_PRICED)
            and not await self._price_package(request)
        ):
            self._set(QuoteStatus.NOT_CREATED)
            await workflow.wait_condition(workflow.all_handlers_finished)
            return self._status
        try:
            written = await workflow.execute_local_activity(record_quote, self._draft, **REQUEST_WRITE)
        except LOCAL_ACTIVITY_FAILED as err:
            self._detail = str(write_failed(err))
            self._set(QuoteStatus.NOT_CREATED)
            await workflow.wait_condition(workflow.all_handlers_finished)
            return self._status
        # A retried start (same Idempotency-Key) may find its quote already decided.
        self._adopt(written)
        if self._draft.kind == "FAST" and self._status in JOB:
            # A task of its own, so that a rejection can cancel it (`_reject_job`); its commands
            # are the job's, in the same order, as when it was awaited here.
            self._job_task = asyncio.create_task(self._job(request))
            await workflow.wait_condition(self._job_task.done)
            if not self._job_task.cancelled():
                self._job_task.result()  # a failure of the job's own fails the task, as before
        while self._status not in FINAL:
            if self._status in IN_FLIGHT:  # a write in flight settles first
                await workflow.wait_condition(lambda: self._status not in IN_FLIGHT)
                continue
            remaining = self._deadline - workflow.now()
            if remaining <= dt.timedelta(0):
                await self._expire()
                continue
            try:
                await workflow.wait_condition(lambda: self._status != QuoteStatus.CREATED, timeout=remaining)
            except asyncio.TimeoutError:
                pass
        await workflow.wait_condition(workflow.all_handlers_finished)
        return self._status

    async def _price_package(self, request: QuoteWorkflowInput) -> bool:
        """A tenant quote's package priced as one, with its line items' caps (started with
        `price_package`: module docstring): read from the package-price cache, else priced on
        the pricing queue; each cover then carries its part of the package's premium. False
        (and `_detail` says why) when it could not be priced: the quote is not written."""
        draft = self._draft
        package = PackagePricingInput(
            monitoring_target_id=draft.monitoring_target_id,
            line_items=draft.line_items,
            simulations=request.simulations,
            seed=request.seed,
        )
        try:
            price = await workflow.execute_local_activity(find_package_price, package, **REQUEST_WRITE)
            if price is None:
                price = await workflow.execute_activity(
                    price_package,
                    package,
                    task_queue=task_queue(workflow.info().task_queue, "pricing"),
                    start_to_close_timeout=PRICING_TIMEOUT,
                    heartbeat_timeout=PRICING_HEARTBEAT,
                    retry_policy=PRICING_RETRY,
                    # A customer waits on it: ahead of catalogue pricing on the pricing queue.
                    priority=CUSTOMER_DOCUMENT,
                    summary="joint pricing of the quote's package",
                )
            if workflow.patched(PATCH_QUOTE_BOOK_CAPITAL):
                price = await workflow.execute_activity(
                    price_against_book,
                    BookPricingInput(monitoring_target_id=draft.monitoring_target_id, line_items=draft.line_items,
                                     price=price),
                    task_queue=task_queue(workflow.info().task_queue, "pricing"),
                    # about a second's work (no heartbeat): a lost attempt is retried soon
                    start_to_close_timeout=BOOK_CAPITAL_TIMEOUT,
                    retry_policy=PRICING_RETRY,
                    priority=CUSTOMER_DOCUMENT,
                    summary="the package's capital from the book",
                )
        except LOCAL_ACTIVITY_FAILED as err:
            cause = getattr(err, "cause", None)
            self._detail = f"the quote's covers could not be priced together: {getattr(cause, 'message', None) or err}"
            self._unpriced = True
            return False
        self._draft = apply_package_price(draft, price)
        return True

    async def _job(self, request: QuoteWorkflowInput) -> None:
        """The fast quote's pricing job (module docstring)."""
        draft = self._draft
        if self._status == QuoteStatus.PENDING:
            self._adopt(await self._job_status(QuoteStatus.QUEUED, [QuoteStatus.PENDING]))
        if self._status in FINAL:  # rejected before it was queued
            return
        try:
            pricing = await workflow.execute_activity(
                price_fast_quote,
                FastQuoteJob(
                    tenant_id=draft.tenant_id,
                    quote_id=draft.id,
                    monitoring_target_id=draft.monitoring_target_id,
                    quantity=str(draft.line_items[0].quantity),
                    simulations=request.simulations,
                    seed=request.seed,
                ),
                task_queue=task_queue(workflow.info().task_queue, "pricing"),
                start_to_close_timeout=PRICING_TIMEOUT,
                heartbeat_timeout=PRICING_HEARTBEAT,
                retry_policy=PRICING_RETRY,
                summary="joint pricing of the quote's covers",
            )
            file_id = await workflow.execute_activity(
                render_fast_quote_document,
                FastQuoteDocumentInput(tenant_id=draft.tenant_id, quote_id=draft.id, pricing=pricing),
                task_queue=task_queue(workflow.info().task_queue, "documents"),
                start_to_close_timeout=DOCUMENT_TIMEOUT,
                retry_policy=PRICING_RETRY,
                summary="quote document",
                # A customer waits on it: ahead of catalogue documents on the documents queue.
                **({"priority": CUSTOMER_DOCUMENT} if workflow.patched(PATCH_QUOTE_DOCUMENT_FIRST) else {}),
            )
        except ActivityError as err:
            if self._status in FINAL:  # rejected: the pricing or document it cancelled (nothing to write)
                return
            reason = str(err.cause.message if err.cause is not None and hasattr(err.cause, "message") else err)
            self._detail = reason
            self._adopt(await self._job_status(QuoteStatus.ERROR, list(JOB), error=reason))
            return
        outcome = await background_write(
            complete_fast_quote,
            FastQuoteCompletion(
                tenant_id=draft.tenant_id,
                quote_id=draft.id,
                gross_premium_minor=pricing.gross_premium_minor,
                risk_premium_minor=pricing.risk_premium_minor,
                report=pricing.report,
                document_file_id=file_id,
                at=workflow.now(),
            ),
            "quote-job-complete",
        )
        self._adopt(outcome)

    async def _job_status(self, to_status: str, from_statuses: list[str], error: str | None = None) -> TransitionOutcome:
        return await background_write(
            set_fast_quote_status,
            FastQuoteStatusInput(
                tenant_id=self._draft.tenant_id,
                quote_id=self._draft.id,
                to_status=to_status,
                from_statuses=from_statuses,
                at=workflow.now(),
                error=error,
            ),
            f"quote-job-{to_status.lower()}",  # quote-job-queued, quote-job-error
        )

    async def _expire(self) -> None:
        self._status = "EXPIRING"
        outcome = await background_write(
            expire_quote,
            QuoteWriteInput(tenant_id=self._draft.tenant_id, quote_id=self._draft.id, at=workflow.now()),
            "quote-expire",
        )
        self._adopt(outcome)

    def _adopt(self, outcome: TransitionOutcome) -> None:
        """Take the database's word for the quote's status (it is the arbiter of races); a
        decided quote never goes back (a read older than the `converted` signal)."""
        if self._status in FINAL:
            return
        if outcome.status == QuoteStatus.ACCEPTED:
            self._accepted(outcome.policy_id)
        elif outcome.status in (QuoteStatus.CREATED, QuoteStatus.REJECTED, QuoteStatus.EXPIRED, *JOB, QuoteStatus.ERROR):
            self._set(outcome.status)
        else:
            self._detail = outcome.detail or f"unexpected status {outcome.status}"
            self._set(QuoteStatus.NOT_CREATED)

    def _accepted(self, policy_id: uuid.UUID | None) -> None:
        if self._status == QuoteStatus.ACCEPTED:
            return
        self._policy_id = policy_id
        self._status = QuoteStatus.ACCEPTED
        updates = [QUOTE_STATE.value_set(QuoteStatus.ACCEPTED)]
        if policy_id is not None:
            updates.append(POLICY_ID.value_set(str(policy_id)))
        workflow.upsert_search_attributes(updates)

    @workflow.update(name=CREATED_UPDATE)
    async def created(self) -> str:
        await workflow.wait_condition(lambda: self._status != "NEW")
        if self._v2 and self._status == QuoteStatus.NOT_CREATED:
            if self._unpriced:
                raise ApplicationError(self._detail, type=PACKAGE_NOT_PRICED)
            raise write_failed(RuntimeError(self._detail))
        return self._status

    @workflow.signal(name=CONVERTED_SIGNAL)
    def converted(self, policy_id: str) -> None:
        """Sent by the policy's workflow once the conversion is in the database."""
        self._accepted(uuid.UUID(policy_id))

    @workflow.update(name=REJECT_UPDATE)
    async def reject(self) -> str:
        if not self._v2:
            return await self._reject_v0()
        if self._status in JOB:
            return await self._reject_job()
        self._status = "REJECTING"
        try:
            outcome = await workflow.execute_local_activity(
                reject_quote,
                QuoteWriteInput(tenant_id=self._draft.tenant_id, quote_id=self._draft.id, at=workflow.now()),
                **REQUEST_WRITE,
            )
        except LOCAL_ACTIVITY_FAILED as err:
            self._status = QuoteStatus.CREATED  # the deadline is still armed (run's loop)
            raise write_failed(err) from err
        self._adopt(outcome)
        if self._status != QuoteStatus.REJECTED:
            raise refuse("reject the quote", self._status, outcome.detail)
        return self._status

    async def _reject_job(self) -> str:
        """A fast quote rejected before its job ended (PATCH_QUOTE_JOB_REJECTABLE). The write
        comes first, conditional on the quote being in its job or completed (the database is
        the arbiter: a completion that lands first is rejected after it, one that lands after
        finds the quote rejected and writes nothing); once the quote is rejected, the job is
        cancelled. A write that fails leaves the job running and the quote as it was."""
        if not workflow.patched(PATCH_QUOTE_JOB_REJECTABLE):
            raise refuse("reject the quote", self._status)  # not reached: the old validator refused
        try:
            outcome = await workflow.execute_local_activity(
                reject_quote,
                QuoteWriteInput(tenant_id=self._draft.tenant_id, quote_id=self._draft.id, at=workflow.now()),
                **REQUEST_WRITE,
            )
        except LOCAL_ACTIVITY_FAILED as err:
            raise write_failed(err) from err
        self._adopt(outcome)
        if self._status != QuoteStatus.REJECTED:
            raise refuse("reject the quote", self._status, outcome.detail)
        if self._job_task is not None and not self._job_task.done():
            self._job_task.cancel()
        return self._status

    @reject.validator
    def validate_reject(self) -> None:
        if self._v2 and self._draft.kind == "FAST" and self._status in JOB:
            return  # its job is cancelled (`_reject_job`)
        if self._status != QuoteStatus.CREATED:
            raise refuse("reject the quote", self._status)
        if self._v2 and workflow.now() >= self._deadline:
            raise refuse("reject the quote", QuoteStatus.CREATED, f"it expired at {self._deadline:%Y-%m-%d %H:%M} UTC")

    def _set(self, status: str) -> None:
        self._status = status
        # Each upsert is a visibility write: skip it when the value is already there (the
        # starter sets QuoteState=CREATED).
        if workflow.info().typed_search_attributes.get(QUOTE_STATE) != status:
            workflow.upsert_search_attributes([QUOTE_STATE.value_set(status)])

    # --- lifecycle 1: runs started before lifecycle 2 (replay, and quotes still running) ---------

    async def _run_v0(self) -> str:
        draft = self._draft
        await workflow.execute_local_activity(
            persist_quote, draft, start_to_close_timeout=WRITE_TIMEOUT, retry_policy=WRITE_RETRY
        )
        self._set(QuoteStatus.CREATED)
        expires = dt.datetime.combine(draft.valid_until, dt.time.max, tzinfo=dt.timezone.utc)
        try:
            await workflow.wait_condition(
                lambda: self._status != QuoteStatus.CREATED, timeout=max(expires - workflow.now(), dt.timedelta(0))
            )
        except asyncio.TimeoutError:
            if self._status == QuoteStatus.CREATED:
                self._status = "EXPIRING"
                await self._write_v0(QuoteStatus.EXPIRED, [QuoteStatus.CREATED], background=True)
                self._set(QuoteStatus.EXPIRED)
        await workflow.wait_condition(
            lambda: workflow.all_handlers_finished() and self._status in (QuoteStatus.ACCEPTED, QuoteStatus.REJECTED, QuoteStatus.EXPIRED)
        )
        return self._status

    @workflow.update(name=CONVERT_UPDATE_V0)
    async def convert(self) -> str:
        """Convert to a policy draft (lifecycle 1 only); returns the policy id."""
        if self._status != QuoteStatus.CREATED:  # a concurrent convert got here first
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
            self._status = QuoteStatus.CREATED
            raise write_failed(err) from err
        if not converted:
            self._status = QuoteStatus.CREATED
            raise refuse("convert the quote", "changed in the database")
        self._policy_id = policy_id
        self._set(QuoteStatus.ACCEPTED)
        attributes = [
            SearchAttributePair(TENANT_ID, draft.tenant_id),
            SearchAttributePair(POLICY_STATUS, PolicyStatus.CREATED),
            SearchAttributePair(MONITORING_TARGET_ID, draft.monitoring_target_id),
        ]
        if draft.external_ref:
            attributes.append(SearchAttributePair(EXTERNAL_REF, draft.external_ref))
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
        if self._v2:
            raise refuse("convert the quote here", self._status, "conversions go through the policy's workflow")
        if self._status != QuoteStatus.CREATED:
            raise refuse("convert the quote", self._status)

    async def _reject_v0(self) -> str:
        if self._status != QuoteStatus.CREATED:
            raise refuse("reject the quote", self._status)
        self._status = "REJECTING"
        try:
            await self._write_v0(QuoteStatus.REJECTED, [QuoteStatus.CREATED])
        except ActivityError as err:
            self._status = QuoteStatus.CREATED
            raise write_failed(err) from err
        self._set(QuoteStatus.REJECTED)
        return self._status

    async def _write_v0(self, to_status: str, from_statuses: list[str], background: bool = False) -> None:
        await workflow.execute_local_activity(
            transition_quote,
            QuoteTransitionInput(
                tenant_id=self._draft.tenant_id,
                quote_id=self._draft.id,
                to_status=to_status,
                from_statuses=from_statuses,
            ),
            start_to_close_timeout=WRITE_TIMEOUT,
            retry_policy=BACKGROUND_WRITE_RETRY if background else WRITE_RETRY,
        )
