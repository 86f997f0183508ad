"""The coverage catalogue of one monitoring target, as an entity workflow.

Requests arrive as the `ensure` update (update-with-start, id `catalogue:<target>`): the
slots the catalogue lacks get their terms from the calibrated model and their version-1
prices on shared paths in one `propose_and_price_coverages` activity, and are recorded
active with their completed runs in one local activity; fit summaries and the batch's
documents workflow follow without holding the request. Coverages that exist unpriced are
priced together in one `simulate_coverages` activity. (Runs before PATCH_JOINT_PRICING
proposed in one activity, created the rows, then priced each in a child
CoveragePricingWorkflow.)

A batch's documents are one CatalogueDocumentsWorkflow (workflows/catalogue_documents.py;
runs before PATCH_DOCUMENTS_BATCH started a CoverageDocumentsWorkflow per coverage): a burst
of new targets costs the Temporal server a few tasks per target, not a workflow per coverage.
Ops see each pricing run in the `pricing` query and the current details in the Temporal UI,
and in the API's pricing runs (recorded with this workflow's id).
One workflow per target serialises creation, so two requests never price the same coverage
twice; it closes after an idle spell and the next request starts a new run.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy, SearchAttributePair, TypedSearchAttributes
from temporalio.exceptions import ActivityError, ApplicationError, ChildWorkflowError, WorkflowAlreadyStartedError
from temporalio.workflow import ParentClosePolicy

with workflow.unsafe.imports_passed_through():
    from activities.catalogue import (
        create_coverages,
        find_catalogue_coverages,
        load_site,
        propose_and_price_coverages,
        propose_coverage_terms,
        record_priced_coverages,
    )
    from activities.pricing_runs import (
        fail_pricing_runs,
        publish_pricing_runs,
        simulate_coverages,
        start_pricing_runs,
        store_fits,
        summarise_fits,
    )
    from models.domain.terms import CoverageSlot  # noqa: F401 - decoded in the sandbox
    from models.temporal.catalogue import (
        CATALOGUE_WORKFLOW,
        ENSURE_UPDATE,
        CatalogueInput,
        CreateCoveragesInput,
        EnsureCoveragesRequest,
        PlannedCoverage,
        ProposeTermsInput,
    )
    from models.temporal.catalogue_batches import (
        PRICING_QUERY,
        CatalogueDocumentsInput,
        CataloguePricingRun,
        catalogue_documents_workflow_id,
    )
    from models.temporal.ids import coverage_pricing_workflow_id
    from models.temporal.pricing import (
        PriceCoverageInput,
        ProposeAndPriceInput,
        PublishPricingInput,
        RecordPricedInput,
        StartJointPricingInput,
        coverage_seed,
    )
    from models.temporal.queues import task_queue
    from models.temporal.search_attributes import COVERAGE_ID, MONITORING_TARGET_ID

# Other workflow modules are workflow code: imported in the sandbox, never passed through.
from workflows.catalogue_documents import CatalogueDocumentsWorkflow
from workflows.pricing import (
    SIMULATION_HEARTBEAT,
    SIMULATION_RETRY,
    SIMULATION_TIMEOUT,
    CoveragePricingWorkflow,
    db_step,
    pricing_queue,
    start_documents,
)

DB_TIMEOUT = timedelta(seconds=30)
PROPOSAL_TIMEOUT = timedelta(minutes=10)
PROPOSAL_HEARTBEAT = timedelta(seconds=60)
RETRY = RetryPolicy(initial_interval=timedelta(milliseconds=500), maximum_interval=timedelta(seconds=30))
IDLE = timedelta(minutes=2)
MAX_REQUESTS_PER_RUN = 200  # then continue-as-new keeps the history short
# Pricing runs of one catalogue under way at once (the pricing pool runs one or two at a
# time anyway; more would only queue on the server).
PRICING_AT_ONCE = 4
PATCH_BOUNDED_PRICING = "catalogue-bounded-pricing"
# The new coverages of a request are priced jointly in one activity (runs before the patch:
# a child CoveragePricingWorkflow each). A first quote for a target waits for its pricing.
PATCH_JOINT_PRICING = "catalogue-joint-pricing"
# A batch's documents in one CatalogueDocumentsWorkflow (runs before the patch: a
# CoverageDocumentsWorkflow per coverage).
PATCH_DOCUMENTS_BATCH = "catalogue-documents-batch"


def _simulate(activity, arg, summary: str, retry: RetryPolicy = SIMULATION_RETRY):
    """Run a simulation activity on the pricing queue (the simulation timeouts, heartbeats
    and retries); `summary` is what ops read in the Temporal UI."""
    return workflow.execute_activity(
        activity,
        arg,
        task_queue=pricing_queue(),
        start_to_close_timeout=SIMULATION_TIMEOUT,
        heartbeat_timeout=SIMULATION_HEARTBEAT,
        retry_policy=retry,
        summary=summary,
    )


@workflow.defn(name=CATALOGUE_WORKFLOW)
class CatalogueWorkflow:
    @workflow.init
    def __init__(self, request: CatalogueInput) -> None:
        self._input = request
        self._pricing: dict[str, asyncio.Future] = {}
        self._requests = 0
        self._lock = asyncio.Lock()
        self._slots = asyncio.Semaphore(PRICING_AT_ONCE)
        self._documents: list[asyncio.Task] = []
        self._runs: dict[str, CataloguePricingRun] = {}  # coverage id → its pricing run (this run's)

    @workflow.query(name=PRICING_QUERY)
    def pricing(self) -> list[CataloguePricingRun]:
        """Every pricing run this workflow run made or is making, in order: what ops read for
        a catalogue whose runs share one workflow (the API's pricing runs show the same)."""
        return list(self._runs.values())

    def _record(self, coverages: list[PlannedCoverage], status: str, documents: str | None = None) -> None:
        """Note the coverages' version-1 runs in the `pricing` query and the current details."""
        for c in coverages:
            key = str(c.coverage_id)
            earlier = self._runs.get(key)
            self._runs[key] = CataloguePricingRun(
                coverage_id=c.coverage_id,
                slot=c.slot,
                version=1,
                status=status,
                documents_workflow_id=documents or (earlier.documents_workflow_id if earlier else None),
            )
        counts = {s: sum(1 for r in self._runs.values() if r.status == s) for s in ("priced", "held", "pricing", "failed")}
        workflow.set_current_details(
            f"{self._input.target_id}: {counts['priced']} coverages priced (v1), "
            + (f"{counts['held']} held for an actuary, " if counts["held"] else "")
            + f"{counts['pricing']} pricing, {counts['failed']} failed; each run in the `{PRICING_QUERY}` query"
        )

    @workflow.run
    async def run(self, request: CatalogueInput) -> None:
        while True:
            seen = self._requests
            try:
                await workflow.wait_condition(lambda: self._requests != seen, timeout=IDLE)
            except asyncio.TimeoutError:
                await self._drain()
                if self._requests == seen:
                    return
            if self._requests >= MAX_REQUESTS_PER_RUN:
                await self._drain()
                workflow.continue_as_new(request)

    async def _drain(self) -> None:
        """Close only with no request in flight and no child pricing still running."""
        await workflow.wait_condition(
            lambda: workflow.all_handlers_finished()
            and all(f.done() for f in self._pricing.values())
            and all(t.done() for t in self._documents)
        )

    @workflow.update(name=ENSURE_UPDATE)
    async def ensure(self, request: EnsureCoveragesRequest) -> list[PlannedCoverage]:
        """Make the catalogue hold coverages for the slots; with `wait_for_pricing`, return
        only once each of them is priced."""
        self._requests += 1
        try:
            async with self._lock:  # one planning at a time: no slot is created twice
                planned = await self._plan(request)
                unpriced = [c for c in planned if c.coverage_id is not None and not c.priced]
                if workflow.patched(PATCH_JOINT_PRICING):
                    self._start_joint_pricing(unpriced)
                else:
                    for coverage in unpriced:
                        self._start_pricing(coverage)
            if not request.wait_for_pricing:
                return planned
            for coverage in planned:
                if coverage.coverage_id is not None and not coverage.priced:
                    await self._pricing[str(coverage.coverage_id)]
        except (ActivityError, ChildWorkflowError) as err:
            cause = err.cause if isinstance(err.cause, ApplicationError) else None
            raise ApplicationError(
                str(cause.message if cause else err), type=cause.type if cause else "CatalogueFailed"
            ) from err
        return [
            PlannedCoverage(slot=c.slot, coverage_id=c.coverage_id, reason=c.reason, priced=c.coverage_id is not None)
            for c in planned
        ]

    async def _plan(self, request: EnsureCoveragesRequest) -> list[PlannedCoverage]:
        site = await db_step(load_site, self._input.target_id)
        known = await db_step(find_catalogue_coverages, site, request.slots)
        have = {c.slot for c in known}
        missing = [s for s in request.slots if s not in have]
        created: list[PlannedCoverage] = []
        if missing and workflow.patched(PATCH_JOINT_PRICING):
            created = await self._propose_and_price(site, missing, request.fallbacks)
        elif missing:
            proposals = await workflow.execute_activity(
                propose_coverage_terms,
                ProposeTermsInput(
                    site=site,
                    slots=missing,
                    unit_limit=self._input.unit_limit,
                    currency=self._input.currency,
                    fallbacks=request.fallbacks,
                ),
                task_queue=pricing_queue(),
                start_to_close_timeout=PROPOSAL_TIMEOUT,
                heartbeat_timeout=PROPOSAL_HEARTBEAT,
                retry_policy=RETRY,
            )
            created = await db_step(
                create_coverages,
                CreateCoveragesInput(
                    site=site,
                    proposals=proposals,
                    created_by=self._input.created_by,
                    expected_loss_ratio=self._input.expected_loss_ratio,
                    simulations=self._input.simulations,
                ),
            )
        by_slot = {c.slot: c for c in [*known, *created]}
        answer = [by_slot[s] for s in request.slots if s in by_slot]
        if request.fallbacks:  # the fallback slots created for this request, after them
            wanted = set(request.slots)
            answer += [c for c in created if c.slot not in wanted]
        return answer

    async def _propose_and_price(self, site, slots, fallbacks: bool) -> list[PlannedCoverage]:
        """New slots: terms and version-1 prices in one activity, rows and published prices
        in one local activity; fit summaries and documents follow off the request's path."""
        found = await _simulate(
            propose_and_price_coverages,
            ProposeAndPriceInput(
                proposal=ProposeTermsInput(
                    site=site,
                    slots=slots,
                    unit_limit=self._input.unit_limit,
                    currency=self._input.currency,
                    fallbacks=fallbacks,
                ),
                simulations=self._input.simulations,
                expected_loss_ratio=self._input.expected_loss_ratio,
                requested_by=self._input.created_by,
            ),
            summary=f"Terms and joint pricing of {len(slots)} slots · {self._input.target_id} · v1",
        )
        created = await db_step(
            record_priced_coverages,
            RecordPricedInput(
                site=site,
                proposals=found.proposals,
                priced=found.priced,
                created_by=self._input.created_by,
                expected_loss_ratio=self._input.expected_loss_ratio,
                simulations=self._input.simulations,
                workflow_id=workflow.info().workflow_id,
            ),
        )
        if found.joint is not None:
            priced = [c for c in created if c.coverage_id is not None and c.priced]
            held = {item.run.coverage_id for item in found.priced if item.outcome.hold_reason is not None}
            self._record([c for c in priced if c.coverage_id not in held], "priced")
            self._record([c for c in priced if c.coverage_id in held], "held")
            self._documents.append(asyncio.ensure_future(self._report_and_documents(found.joint, priced)))
        return created

    def _needs_pricing(self, coverage: PlannedCoverage) -> bool:
        """Not priced, not being priced (a failed pricing is tried again)."""
        existing = self._pricing.get(str(coverage.coverage_id))
        return existing is None or (existing.done() and existing.exception() is not None)

    def _start_joint_pricing(self, coverages: list[PlannedCoverage]) -> None:
        todo = [c for c in coverages if self._needs_pricing(c)]
        if not todo:
            return
        job = asyncio.ensure_future(self._price_jointly(todo))
        for coverage in todo:
            self._pricing[str(coverage.coverage_id)] = job

    async def _price_jointly(self, coverages: list[PlannedCoverage]) -> None:
        """Price version 1 of the coverages on shared paths (seed: the first coverage's), then
        start each one's documents workflow without waiting for it."""
        seed = coverage_seed(coverages[0].coverage_id)
        runs = [
            PriceCoverageInput(
                coverage_id=c.coverage_id,
                version=1,
                simulations=self._input.simulations,
                seed=seed,
                expected_loss_ratio=self._input.expected_loss_ratio,
                requested_by=self._input.created_by,
            )
            for c in coverages
        ]
        self._record(coverages, "pricing")
        inputs = await db_step(
            start_pricing_runs,
            StartJointPricingInput(
                runs=runs, seed=seed, simulations=self._input.simulations, workflow_id=workflow.info().workflow_id
            ),
        )
        try:
            outcomes = await _simulate(
                simulate_coverages,
                inputs,
                summary=f"Pricing {len(runs)} coverages jointly · {self._input.target_id} · v1",
            )
        except ActivityError as err:
            await db_step(fail_pricing_runs, runs, str(err.cause or err))
            self._record(coverages, "failed")
            raise ApplicationError(f"pricing failed: {err.cause or err}", non_retryable=True) from err
        await db_step(publish_pricing_runs, [PublishPricingInput(run=r, outcome=o) for r, o in zip(runs, outcomes)])
        held = {r.coverage_id for r, o in zip(runs, outcomes) if o.hold_reason is not None}
        self._record([c for c in coverages if c.coverage_id not in held], "priced")
        self._record([c for c in coverages if c.coverage_id in held], "held")
        self._documents.append(asyncio.ensure_future(self._report_and_documents(inputs, coverages)))

    async def _report_and_documents(self, inputs, coverages: list[PlannedCoverage]) -> None:
        """After the prices: the fit summaries of the technical reports, then the coverages'
        fact sheets and technical reports in one workflow for the batch (runs before
        PATCH_DOCUMENTS_BATCH: a workflow per coverage); abandoned: the catalogue does not
        wait for rendering."""
        fits = await _simulate(
            summarise_fits,
            inputs,
            summary=f"Fit summaries of {len(coverages)} coverages · {self._input.target_id}",
            retry=RETRY,
        )
        await db_step(store_fits, fits)
        if workflow.patched(PATCH_DOCUMENTS_BATCH):
            await self._start_batch_documents(coverages)
        else:
            await asyncio.gather(*(start_documents(c.coverage_id, 1) for c in coverages))

    async def _start_batch_documents(self, coverages: list[PlannedCoverage]) -> None:
        """One documents workflow for the batch, on the documents queue, without waiting for
        it. One already running for the same coverages (a retried pricing) is left to finish."""
        ids = [c.coverage_id for c in coverages]
        target = self._input.target_id
        workflow_id = catalogue_documents_workflow_id(target, ids, 1)
        self._record(coverages, "priced", documents=workflow_id)
        try:
            await workflow.start_child_workflow(
                CatalogueDocumentsWorkflow.run,
                CatalogueDocumentsInput(target_id=target, coverage_ids=ids, version=1),
                id=workflow_id,
                task_queue=task_queue(workflow.info().task_queue, "documents"),
                parent_close_policy=ParentClosePolicy.ABANDON,
                search_attributes=TypedSearchAttributes([SearchAttributePair(MONITORING_TARGET_ID, target)]),
                static_summary=f"Documents · {len(ids)} coverages · {target} · v1",
            )
        except WorkflowAlreadyStartedError:
            workflow.logger.info("documents of %s coverages of %s already being rendered", len(ids), target)

    def _start_pricing(self, coverage: PlannedCoverage) -> None:
        key = str(coverage.coverage_id)
        existing = self._pricing.get(key)
        if existing is not None and not (existing.done() and existing.exception() is not None):
            return  # running or done: a failed one is retried below
        run = PriceCoverageInput(
            coverage_id=coverage.coverage_id,
            version=1,
            simulations=self._input.simulations,
            seed=coverage_seed(coverage.coverage_id),
            expected_loss_ratio=self._input.expected_loss_ratio,
            requested_by=self._input.created_by,
        )
        self._pricing[key] = asyncio.ensure_future(self._price(key, coverage, run))

    async def _price(self, key: str, coverage: PlannedCoverage, run: PriceCoverageInput):
        """One pricing run as a child workflow; at most PRICING_AT_ONCE at a time (runs before
        the patch start them all at once), so a new target's dozens of coverages never flood
        the Temporal server and the pricing queue ahead of everyone else's work."""
        if not workflow.patched(PATCH_BOUNDED_PRICING):
            return await self._child(key, coverage, run)
        async with self._slots:
            return await self._child(key, coverage, run)

    async def _child(self, key: str, coverage: PlannedCoverage, run: PriceCoverageInput):
        return await (
            workflow.execute_child_workflow(
                CoveragePricingWorkflow.run,
                run,
                id=coverage_pricing_workflow_id(coverage.coverage_id, 1),
                parent_close_policy=ParentClosePolicy.ABANDON,
                search_attributes=TypedSearchAttributes(
                    [
                        SearchAttributePair(COVERAGE_ID, key),
                        SearchAttributePair(MONITORING_TARGET_ID, self._input.target_id),
                    ]
                ),
                static_summary=f"Pricing · {coverage.slot.index_code} {coverage.slot.start:%b %Y} · {self._input.target_id} · v1",
            )
        )
