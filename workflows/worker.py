"""Workers, one per task queue (models.temporal.queues.QUEUE_SUFFIXES):

- **lifecycle** (`<base>`): every workflow, and the short database activities that Updates
  wait on. Nothing CPU-heavy runs here, so a conversion never queues behind a price.
- **pricing** (`<base>-pricing`): Monte Carlo and term proposals, on a process pool whose
  processes run at a lower CPU priority (nice); activity slots equal the pool size, and
  heartbeats reach Temporal from the pool's processes through a shared-state manager.
- **documents** (`<base>-documents`): WeasyPrint, one document at a time.
- **webhooks** (`<base>-webhooks`): deliveries, many at once (async HTTP).
- **settlement** (`<base>-settlement`): `settle_period`, a month end's long database work,
  never queued beside the short writes that Updates wait on (the settlement workflow itself
  stays on the lifecycle queue; runs started before the split call it there).

Every worker gets a graceful-shutdown timeout (WORKER_SHUTDOWN_SECONDS, 30 s): on SIGTERM
it stops polling and the activities in flight have that long to finish before they are
cancelled (a cancelled one is retried elsewhere, but its work so far is lost). The pricing
pool's processes ignore SIGTERM and SIGINT (a process manager signalling the whole group
must not kill a simulation the worker is draining); they die with their worker.

`python -m workflows.worker --queue ...` (or `parametric worker`, which runs it) serves any
of them in one process; `make dev` runs each in its own process.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import multiprocessing
import os
from multiprocessing.managers import SyncManager
from datetime import timedelta
from dataclasses import dataclass, field

from temporalio.client import Client
from temporalio.worker import SharedStateManager, Worker
from temporalio.worker.workflow_sandbox import (
    SandboxedWorkflowRunner,
    SandboxRestrictions,
)

from activities.catalogue import (
    create_coverages,
    find_catalogue_coverages,
    load_site,
    propose_and_price_coverages,
    propose_coverage_terms,
    record_priced_coverages,
)
from activities.bordereaux import produce_bordereaux
from activities.documents import (
    render_catalogue_documents,
    render_claim_report,
    render_coverage_documents,
    render_policy_schedule,
    render_portfolio_report,
)
from activities.fast_quotes import (
    complete_fast_quote,
    price_fast_quote,
    render_fast_quote_document,
    set_fast_quote_status,
)
from activities.book_capital import price_against_book
from activities.packages import find_package_price, price_package
from activities.partners import save_business_partner
from activities.policies import (
    convert_quote,
    convert_to_policy,
    set_policy_status,
    transition_policy,
)
from activities.portfolio import compute_portfolio
from activities.pricing_runs import (
    fail_pricing_run,
    fail_pricing_runs,
    lapse_pricing_candidate,
    publish_pricing_candidate,
    publish_pricing_run,
    publish_pricing_runs,
    simulate_coverage,
    simulate_coverages,
    start_pricing_run,
    start_pricing_runs,
    store_fits,
    store_pricing_candidate,
    summarise_fits,
)
from activities.quotes import (
    expire_quote,
    persist_quote,
    record_quote,
    reject_quote,
    transition_quote,
)
from activities.observations import decide_observation_revision, ingest_observations, sweep_settlement_notices
from activities.settled_wait import await_policy_settled
from activities.start_sweep import restart_held_revisions, start_orphaned_pricing_runs
from activities.settlement import policy_settled, settle_period, start_settlements
from activities.site_models import warm_up
from activities.staff import check_staff_actor
from activities.travel import price_stay_nights, record_travel_coverages
from activities.webhooks import deliver_webhook, dispatch_webhooks, finish_webhook_delivery
from models.settings import Settings
from models.temporal.queues import QUEUE_SUFFIXES, task_queue
from workflows.bordereaux import BordereauxWorkflow
from workflows.catalogue import CatalogueWorkflow
from workflows.catalogue_documents import CatalogueDocumentsWorkflow
from workflows.documents import (
    ClaimReportWorkflow,
    CoverageDocumentsWorkflow,
    PolicyScheduleWorkflow,
    PortfolioReportWorkflow,
)
from workflows.partners import BusinessPartnerWorkflow
from workflows.policies import PolicyWorkflow
from workflows.portfolio import PortfolioWorkflow
from workflows.pricing import CoveragePricingWorkflow
from workflows.quotes import QuoteWorkflow
from workflows.observations import ObservationIngestWorkflow, ObservationRevisionWorkflow, SettlementNoticeSweepWorkflow
from workflows.settlement import SettlementWorkflow
from workflows.start_sweep import StartSweepWorkflow
from workflows.travel import TravelCoveragesWorkflow
from workflows.webhooks import WebhookDeliveryWorkflow, WebhookDispatchWorkflow

QUEUES = tuple(QUEUE_SUFFIXES)

WORKFLOWS = [
    TravelCoveragesWorkflow,
    BusinessPartnerWorkflow,
    CatalogueWorkflow,
    CoveragePricingWorkflow,
    CoverageDocumentsWorkflow,
    CatalogueDocumentsWorkflow,
    QuoteWorkflow,
    PolicyWorkflow,
    PolicyScheduleWorkflow,
    SettlementWorkflow,
    WebhookDeliveryWorkflow,
    WebhookDispatchWorkflow,
    ObservationIngestWorkflow,
    ObservationRevisionWorkflow,
    SettlementNoticeSweepWorkflow,
    StartSweepWorkflow,
    ClaimReportWorkflow,
    BordereauxWorkflow,
    PortfolioWorkflow,
    PortfolioReportWorkflow,
]
LIFECYCLE_ACTIVITIES = [
    record_travel_coverages,
    save_business_partner,
    set_fast_quote_status,
    complete_fast_quote,
    load_site,
    find_catalogue_coverages,
    create_coverages,
    start_pricing_run,
    publish_pricing_run,
    fail_pricing_run,
    # catalogues started on the lifecycle queue price jointly there once patched
    start_pricing_runs,
    publish_pricing_runs,
    fail_pricing_runs,
    simulate_coverages,
    summarise_fits,
    store_fits,
    propose_and_price_coverages,
    record_priced_coverages,
    find_package_price,  # a tenant quote's package priced before (local activity)
    record_quote,
    convert_to_policy,
    reject_quote,
    expire_quote,
    set_policy_status,
    settle_period,
    policy_settled,
    await_policy_settled,  # an ended policy's wait for settlement, retried by the server
    start_settlements,
    dispatch_webhooks,
    ingest_observations,
    decide_observation_revision,
    sweep_settlement_notices,
    start_orphaned_pricing_runs,  # the start sweep: starts lost by a crash after their row's commit
    restart_held_revisions,
    check_staff_actor,  # local: an actor-carrying update's staff check (workflows/staff.py)
    # Workflows started before the per-queue split or the checked transitions call these
    # on the lifecycle queue (docs/workflow-versioning.md, "Retiring a patch").
    persist_quote,
    convert_quote,
    transition_quote,
    transition_policy,
    simulate_coverage,
    propose_coverage_terms,
    render_policy_schedule,
]
PRICING_ACTIVITIES = [
    price_fast_quote,  # sync: marks the quote running, simulates in the pool's process
    price_package,  # sync: a tenant quote's package never priced before
    price_against_book,  # sync: a tenant quote's capital from the book (activities/book_capital.py)
    price_stay_nights,
    simulate_coverage,
    simulate_coverages,
    summarise_fits,
    propose_coverage_terms,
    propose_and_price_coverages,
    compute_portfolio,  # sync: the book's risk (docs/portfolio.md), reads and writes through run_sync
]
# The catalogue's orchestration runs beside its Monte Carlo on the pricing worker, with the
# short database activities it waits on (async: the worker's event loop, not the pool).
PRICING_WORKFLOWS = [CatalogueWorkflow, CoveragePricingWorkflow, PortfolioWorkflow]
# Their database steps are local activities (workflows/pricing.py), so the pricing queue's
# activity slots are the pool's alone.
PRICING_DB_ACTIVITIES = [
    load_site,
    find_catalogue_coverages,
    create_coverages,
    start_pricing_run,
    publish_pricing_run,
    fail_pricing_run,
    start_pricing_runs,
    publish_pricing_runs,
    fail_pricing_runs,
    store_fits,
    record_priced_coverages,
    # an actuary's rerun: candidate, publication by a second actuary, lapse
    store_pricing_candidate,
    publish_pricing_candidate,
    lapse_pricing_candidate,
    check_staff_actor,  # the publisher's staff check (local, workflows/staff.py)
]
# A month end's settlements on a queue of their own (new runs: workflows/settlement.py).
SETTLEMENT_ACTIVITIES = [settle_period]
DOCUMENT_WORKFLOWS = [
    CoverageDocumentsWorkflow, CatalogueDocumentsWorkflow, PolicyScheduleWorkflow, ClaimReportWorkflow,
    PortfolioReportWorkflow,  # the book's risk as a PDF for the risk carrier, rendered when first asked for
    BordereauxWorkflow,  # a month's bordereaux: database reads and CSV, off the lifecycle queue
]
# Webhook delivery waits on receivers: its own queue, so a slow one never delays the rest.
WEBHOOK_WORKFLOWS = [WebhookDeliveryWorkflow, WebhookDispatchWorkflow]
WEBHOOK_ACTIVITIES = [deliver_webhook, finish_webhook_delivery, dispatch_webhooks]
DOCUMENT_ACTIVITIES = [
    render_coverage_documents,
    render_catalogue_documents,
    render_policy_schedule,
    render_fast_quote_document,
    render_claim_report,
    render_portfolio_report,
    produce_bordereaux,
]

log = logging.getLogger("parametric.worker")

# How long activities in flight get to finish once a worker is told to stop (SIGTERM).
SHUTDOWN_GRACE = timedelta(seconds=30)

# The sandbox (docs/workflow-sandbox.md). Passed through (imported once per process, outside
# the sandbox) are only the modules whose code is deterministic and which carry the types the
# data converter decodes into: msgspec, and the project's domain, Temporal contract and wire
# types. Everything else a workflow module imports at its top, and the workflow modules
# themselves, are re-imported in each run's sandbox, where the default restrictions refuse the
# clock, randomness, uuid4, files, sockets and processes (RestrictedWorkflowAccessError): use
# workflow.now(), workflow.random(), workflow.uuid4() or an activity. Activity modules are
# imported by reference only, in `workflow.unsafe.imports_passed_through()` blocks.
PASSTHROUGH_MODULES = ("msgspec", "models.domain", "models.temporal", "models.wire")
WORKFLOW_RESTRICTIONS = SandboxRestrictions.default.with_passthrough_modules(*PASSTHROUGH_MODULES)
WORKFLOW_RUNNER = SandboxedWorkflowRunner(restrictions=WORKFLOW_RESTRICTIONS)


def _lower_priority() -> None:
    """Pricing processes yield the CPU to the lifecycle and the API (nice +10)."""
    try:
        os.nice(10)
    except OSError:  # pragma: no cover - not permitted
        pass


def _outlive_group_signals() -> None:
    """A child of the worker (pool process, the pool's manager) ignores SIGTERM and SIGINT:
    its worker decides when it stops, and a signal to the whole process group (what process
    managers and a terminal's Ctrl-C send) must not kill a simulation, or the heartbeats of
    one, that the worker is draining. It dies with its worker, even one killed outright
    (Linux: PR_SET_PDEATHSIG; SIGKILL, since SIGTERM is ignored), so no orphan keeps a core
    busy."""
    import signal

    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG = 1
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        pass


def _pool_process_init(modules: tuple[str, ...] = ()) -> None:
    """A pool process runs at the pricing priority, outlives signals to its group, and loads
    the pricing activities' `modules` and the calibration data before its first activity."""
    _lower_priority()
    _outlive_group_signals()
    warm_up(modules)


@dataclass
class PricingPool:
    """The process pool of the pricing worker, with the manager its heartbeats go through.
    Processes are spawned (not forked from a process that runs Temporal's threads)."""

    processes: int
    _context: multiprocessing.context.BaseContext = field(default_factory=lambda: multiprocessing.get_context("spawn"))

    def __post_init__(self) -> None:
        modules = tuple(sorted({a.__module__ for a in PRICING_ACTIVITIES}))
        self.executor = concurrent.futures.ProcessPoolExecutor(
            max_workers=self.processes, mp_context=self._context, initializer=_pool_process_init, initargs=(modules,)
        )
        # Processes start when work is submitted: start them all now, so they warm up
        # (_pool_process_init) while the worker starts rather than in a first quote's time.
        for _ in range(self.processes):
            self.executor.submit(os.getpid)
        # The manager carries the pool's heartbeats: it outlives a SIGTERM to the group too.
        self._manager = SyncManager(ctx=self._context)
        self._manager.start(initializer=_outlive_group_signals)
        self.shared_state = SharedStateManager.create_from_multiprocessing(self._manager)

    def close(self) -> None:
        self.executor.shutdown(wait=False, cancel_futures=True)
        self._manager.shutdown()


def _with_overrides(activities: list, overrides: dict | None) -> list:
    """`overrides` (activity name → function) lets fault-injection tests replace an activity
    with one that fails as they say; the production workers take none."""
    if not overrides:
        return list(activities)
    by_name = {a.__temporal_activity_definition.name: a for a in activities}
    return [overrides.get(name, function) for name, function in by_name.items()]


def build_lifecycle_worker(
    client: Client, base_queue: str, activity_overrides: dict | None = None, shutdown: timedelta = SHUTDOWN_GRACE
) -> Worker:
    """Every workflow and the short database activities."""
    activities = _with_overrides(LIFECYCLE_ACTIVITIES, activity_overrides)
    return Worker(
        client,
        graceful_shutdown_timeout=shutdown,
        task_queue=task_queue(base_queue, "lifecycle"),
        workflow_runner=WORKFLOW_RUNNER,
        workflows=WORKFLOWS,
        activities=activities,
        # The lifecycle queue's sync activities are the legacy CPU ones, never called by new runs.
        activity_executor=concurrent.futures.ThreadPoolExecutor(max_workers=2),
    )


def build_pricing_worker(
    client: Client,
    base_queue: str,
    pool: PricingPool | None = None,
    activity_overrides: dict | None = None,
    shutdown: timedelta = SHUTDOWN_GRACE,
) -> Worker:
    """Monte Carlo on `pool` (a thread when None: tests that need no process isolation)."""
    common = dict(
        graceful_shutdown_timeout=shutdown,
        task_queue=task_queue(base_queue, "pricing"),
        workflows=PRICING_WORKFLOWS,
        workflow_runner=WORKFLOW_RUNNER,
        activities=_with_overrides([*PRICING_ACTIVITIES, *PRICING_DB_ACTIVITIES], activity_overrides),
    )
    if pool is None:
        return Worker(
            client,
            **common,
            activity_executor=concurrent.futures.ThreadPoolExecutor(max_workers=1),
            max_concurrent_activities=1,
        )
    return Worker(
        client,
        **common,
        activity_executor=pool.executor,
        shared_state_manager=pool.shared_state,
        max_concurrent_activities=pool.processes,
    )


def build_documents_worker(
    client: Client, base_queue: str, activity_overrides: dict | None = None, shutdown: timedelta = SHUTDOWN_GRACE
) -> Worker:
    """Renders one document at a time (WeasyPrint is CPU-bound): documents never starve the
    API or the lifecycle."""
    return Worker(
        client,
        graceful_shutdown_timeout=shutdown,
        task_queue=task_queue(base_queue, "documents"),
        workflows=DOCUMENT_WORKFLOWS,
        workflow_runner=WORKFLOW_RUNNER,
        activities=_with_overrides(DOCUMENT_ACTIVITIES, activity_overrides),
        max_concurrent_activities=1,
    )


def build_webhooks_worker(
    client: Client, base_queue: str, activity_overrides: dict | None = None, shutdown: timedelta = SHUTDOWN_GRACE
) -> Worker:
    """Delivers signed webhooks (async HTTP: many at once)."""
    return Worker(
        client,
        graceful_shutdown_timeout=shutdown,
        task_queue=task_queue(base_queue, "webhooks"),
        workflows=WEBHOOK_WORKFLOWS,
        workflow_runner=WORKFLOW_RUNNER,
        activities=_with_overrides(WEBHOOK_ACTIVITIES, activity_overrides),
        max_concurrent_activities=50,
    )


def build_settlement_worker(
    client: Client, base_queue: str, activity_overrides: dict | None = None, shutdown: timedelta = SHUTDOWN_GRACE
) -> Worker:
    """Runs `settle_period` (async database work): a month end wakes every target's
    settlement at once, and they queue here, not beside the lifecycle queue's short writes
    that API requests wait on. No workflows: the settlement workflow stays on the lifecycle
    queue."""
    return Worker(
        client,
        graceful_shutdown_timeout=shutdown,
        task_queue=task_queue(base_queue, "settlement"),
        activities=_with_overrides(SETTLEMENT_ACTIVITIES, activity_overrides),
        max_concurrent_activities=50,
    )


async def ensure_schedules(client: Client, settings: Settings) -> None:
    """The recurring jobs ops see under Schedules in the Temporal UI: webhook dispatch (and
    its sweep for deliveries not started), the settlement-notices sweep and the start sweep
    (workflows whose start a crash lost: docs/runbook.md) every minute;
    the observations run daily at 02:30 UTC (08:00 IST) when providers are configured; the
    bordereaux of the month just ended on the 1st at 06:00 UTC (docs/bordereaux.md).
    Created once; a changed provider list updates the existing schedule."""
    from temporalio.client import (
        Schedule,
        ScheduleActionStartWorkflow,
        ScheduleAlreadyRunningError,
        ScheduleCalendarSpec,
        ScheduleIntervalSpec,
        ScheduleOverlapPolicy,
        SchedulePolicy,
        ScheduleRange,
        ScheduleSpec,
        ScheduleUpdate,
    )

    from models.temporal.observations import (
        INGEST_SCHEDULE_ID,
        NOTICE_SWEEP_SCHEDULE_ID,
        OBSERVATION_INGEST_WORKFLOW,
        SETTLEMENT_NOTICE_SWEEP_WORKFLOW,
        IngestRunInput,
        NoticeSweepInput,
    )
    from models.temporal.bordereaux import BORDEREAUX_SCHEDULE_ID, BORDEREAUX_WORKFLOW, BordereauxInput
    from models.temporal.portfolio import PORTFOLIO_SCHEDULE_ID, PORTFOLIO_WORKFLOW, PortfolioInput
    from models.temporal.sweeps import START_SWEEP_SCHEDULE_ID, START_SWEEP_WORKFLOW, StartSweepInput
    from models.temporal.webhooks import DISPATCH_SCHEDULE_ID, WEBHOOK_DISPATCH_WORKFLOW, DispatchInput

    hooks = task_queue(settings.task_queue, "webhooks")
    lifecycle = task_queue(settings.task_queue, "lifecycle")
    wanted = {
        DISPATCH_SCHEDULE_ID: Schedule(
            action=ScheduleActionStartWorkflow(
                WEBHOOK_DISPATCH_WORKFLOW, DispatchInput(task_queue=hooks), id="webhook-dispatch", task_queue=hooks
            ),
            spec=ScheduleSpec(intervals=[ScheduleIntervalSpec(every=timedelta(minutes=1))]),
            policy=SchedulePolicy(overlap=ScheduleOverlapPolicy.SKIP),
        ),
        NOTICE_SWEEP_SCHEDULE_ID: Schedule(
            action=ScheduleActionStartWorkflow(
                SETTLEMENT_NOTICE_SWEEP_WORKFLOW, NoticeSweepInput(task_queue=lifecycle), id="settlement-notices",
                task_queue=lifecycle,
            ),
            spec=ScheduleSpec(intervals=[ScheduleIntervalSpec(every=timedelta(minutes=1))]),
            policy=SchedulePolicy(overlap=ScheduleOverlapPolicy.SKIP),
        ),
        # Whatever providers are configured: a rerun's or a held revision's start lost by a crash.
        START_SWEEP_SCHEDULE_ID: Schedule(
            action=ScheduleActionStartWorkflow(
                START_SWEEP_WORKFLOW, StartSweepInput(base_queue=settings.task_queue), id="start-sweep",
                task_queue=lifecycle,
            ),
            spec=ScheduleSpec(intervals=[ScheduleIntervalSpec(every=timedelta(minutes=1))]),
            policy=SchedulePolicy(overlap=ScheduleOverlapPolicy.SKIP),
        ),
        # The month just ended (input month "": the workflow takes the month before its start).
        BORDEREAUX_SCHEDULE_ID: Schedule(
            action=ScheduleActionStartWorkflow(
                BORDEREAUX_WORKFLOW, BordereauxInput(), id="bordereaux-monthly",
                task_queue=task_queue(settings.task_queue, "documents"),
            ),
            spec=ScheduleSpec(calendars=[ScheduleCalendarSpec(
                day_of_month=[ScheduleRange(1)], hour=[ScheduleRange(6)], minute=[ScheduleRange(0)],
            )]),
            policy=SchedulePolicy(overlap=ScheduleOverlapPolicy.SKIP),
        ),
        # The whole book's risk, daily: the losses per path a quote's capital is taken against.
        PORTFOLIO_SCHEDULE_ID: Schedule(
            action=ScheduleActionStartWorkflow(
                PORTFOLIO_WORKFLOW, PortfolioInput(currency=settings.catalogue_currency), id="portfolio-daily",
                task_queue=task_queue(settings.task_queue, "pricing"),
            ),
            spec=ScheduleSpec(calendars=[ScheduleCalendarSpec(hour=[ScheduleRange(0)], minute=[ScheduleRange(30)])]),
            policy=SchedulePolicy(overlap=ScheduleOverlapPolicy.SKIP),
        ),
    }
    if settings.observation_providers:
        wanted[INGEST_SCHEDULE_ID] = Schedule(
            action=ScheduleActionStartWorkflow(
                OBSERVATION_INGEST_WORKFLOW, IngestRunInput(providers=list(settings.observation_providers)),
                id="observations-daily", task_queue=task_queue(settings.task_queue, "lifecycle"),
            ),
            spec=ScheduleSpec(calendars=[ScheduleCalendarSpec(hour=[ScheduleRange(2)], minute=[ScheduleRange(30)])]),
            policy=SchedulePolicy(overlap=ScheduleOverlapPolicy.SKIP),
        )
    for schedule_id, schedule in wanted.items():
        try:
            await client.create_schedule(schedule_id, schedule)
        except ScheduleAlreadyRunningError:
            await client.get_schedule_handle(schedule_id).update(lambda _, s=schedule: ScheduleUpdate(schedule=s))


@dataclass
class Workers:
    """The workers of some queues in this process (an async context manager)."""

    client: Client
    base_queue: str
    queues: tuple[str, ...] = QUEUES
    pricing_processes: int = 1
    activity_overrides: dict | None = None
    shutdown_grace: timedelta = SHUTDOWN_GRACE
    _pool: PricingPool | None = None
    _workers: list[Worker] = field(default_factory=list)

    def build(self) -> list[Worker]:
        workers = []
        options = dict(activity_overrides=self.activity_overrides, shutdown=self.shutdown_grace)
        if "lifecycle" in self.queues:
            workers.append(build_lifecycle_worker(self.client, self.base_queue, **options))
        if "pricing" in self.queues:
            self._pool = PricingPool(self.pricing_processes) if self.pricing_processes > 0 else None
            workers.append(build_pricing_worker(self.client, self.base_queue, self._pool, **options))
        if "documents" in self.queues:
            workers.append(build_documents_worker(self.client, self.base_queue, **options))
        if "webhooks" in self.queues:
            workers.append(build_webhooks_worker(self.client, self.base_queue, **options))
        if "settlement" in self.queues:
            workers.append(build_settlement_worker(self.client, self.base_queue, **options))
        return workers

    async def __aenter__(self) -> "Workers":
        self._workers = self.build()
        for worker in self._workers:
            await worker.__aenter__()
        return self

    async def __aexit__(self, *exc) -> None:
        # All at once: each drains its activities for up to the grace, not one grace after another.
        try:
            await asyncio.gather(*(worker.__aexit__(*exc) for worker in reversed(self._workers)))
        finally:
            if self._pool is not None:
                self._pool.close()


def default_pricing_processes() -> int:
    """One pricing process per spare core (at least one)."""
    return max(1, (os.cpu_count() or 2) - 1)


async def run_worker(settings: Settings, queues: tuple[str, ...] = QUEUES, stop: asyncio.Event | None = None) -> None:
    from piccolo.engine.finder import engine_finder
    from temporalio.runtime import Runtime

    from models.db.core import close_pool, open_pool
    from models.db.sealing import require_key
    from models.db.sealing_keys import check_sealing_key
    from models.observability.tracing import configure_tracing, instrument_database
    from models.temporal.client import connect
    from workflows.observability import DomainMetrics, Observability, worker_runtime

    require_key(settings)  # SECRETS_KEY with PostgreSQL (it opens the webhook secrets)
    if "lifecycle" not in queues:
        # Pricing and documents yield the CPU to the lifecycle and the API on a shared machine.
        _lower_priority()
    await open_pool()
    await check_sealing_key()  # another host's SECRETS_KEY: refuse to start
    if configure_tracing("worker"):
        instrument_database(engine_finder())
    # The runtime serves this process's Prometheus endpoint (WORKER_METRICS_PORT; none when 0);
    # the interceptor logs each activity with its ids and counts what it did.
    runtime = worker_runtime(settings)
    metrics = DomainMetrics((runtime or Runtime.default()).metric_meter, settings.catalogue_currency)
    client = await connect(settings, runtime=runtime, interceptors=[Observability(metrics)])
    workers = Workers(
        client,
        settings.task_queue,
        queues,
        settings.pricing_processes or default_pricing_processes(),
        shutdown_grace=timedelta(seconds=max(0.0, settings.worker_shutdown_seconds)),
    )
    log.info(
        "worker polling %s on %s/%s",
        ", ".join(task_queue(settings.task_queue, q) for q in queues),
        settings.temporal_address,
        settings.temporal_namespace,
    )
    if runtime is not None:
        log.info("worker metrics on http://%s:%s/metrics", settings.metrics_host, settings.worker_metrics_port)
    if "webhooks" in queues:
        await ensure_schedules(client, settings)
    try:
        async with workers:
            await (stop.wait() if stop is not None else asyncio.Event().wait())
            log.info("stopping: activities in flight have %s s to finish", settings.worker_shutdown_seconds)
    finally:
        await close_pool()
    log.info("worker stopped")


def main(argv: list[str] | None = None) -> None:
    """The worker's entry point: `python -m workflows.worker [--queue Q ...] [--pricing-processes N]`."""
    import argparse
    from dataclasses import replace

    from models.settings import load_settings

    parser = argparse.ArgumentParser(prog="python -m workflows.worker", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--queue", dest="queues", action="append", choices=QUEUES,
        help="task queue to serve (repeatable; default all)",
    )
    parser.add_argument("--pricing-processes", type=int, help="pricing pool size (default: one per spare core)")
    parser.add_argument(
        "--metrics-port", type=int,
        help="Prometheus port of this process (default WORKER_METRICS_PORT; 0: none); one per process on a host",
    )
    args = parser.parse_args(argv)
    from models.observability.logs import configure_logging

    settings = load_settings()
    if args.pricing_processes:
        settings = replace(settings, pricing_processes=max(1, min(64, args.pricing_processes)))
    if args.metrics_port is not None:
        settings = replace(settings, worker_metrics_port=max(0, args.metrics_port))
    queues = tuple(q for q in QUEUES if not args.queues or q in args.queues)
    # JSON lines on stderr (models/observability/logs.py), named after the queues served.
    configure_logging("worker-" + "+".join(queues), settings.log_format, settings.log_level)

    async def serve() -> None:
        # SIGTERM (how `make dev` and process managers stop a worker) and SIGINT stop it the
        # same way: the workers drain and the pricing pool and its manager are shut down.
        import signal

        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, stop.set)
        await run_worker(settings, queues, stop)

    asyncio.run(serve())


if __name__ == "__main__":
    main()
