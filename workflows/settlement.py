"""Settlement of one monitoring target's covers over one risk period, for every policy that
holds them. Workflow id `settlement:<target>:<start>:<end>`, search attributes
`MonitoringTargetId` and `SettlementState` (docs/settlement.md).

    sleep until the day after the period's end + DATA_LATENCY (covers on a source ladder:
        + their provisional latency, `first_due`; then checks daily to their calculation
        deadline and weekly after: INITIAL ──final values──▶ FINAL (SETTLED), docs/settlement.md)
    settle ──complete and final──▶ SETTLED ──data-changed (a revision)──▶ settle again (adjustments)
      │                                                     └──REVISION_WINDOW over──▶ done
      │   (the window's end is kept in the database: a run started after it ends at once)
      └─missing or provisional──▶ WAITING: again on data-changed or daily ──MISSING_DATA_WINDOW──▶ FLAGGED
                                  FLAGGED: again on data-changed or weekly (ops have the case)

Started by each policy's workflow when it is activated (the first start wins, the others
find it running), so a month end costs a handful of workflow tasks per target and period,
whatever the number of policies. All I/O is in `settle_period`.

Bounded history: while data is missing each check costs about 11 events (a timer, the
activity, two workflow tasks); a run whose history passes HISTORY_LIMIT continues as new
with what it found (`SettlementProgress`), as does one in its revision window, so however
long data is missing or revisions keep coming a run stays under HISTORY_LIMIT plus one
check. Webhooks are dispatched after a run that wrote something (runs before
PATCH_DISPATCH dispatched after none; those of the release in between, after every run).
"""

from __future__ import annotations

import asyncio
import datetime as dt

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from activities.settlement import settle_period
    from activities.webhooks import dispatch_webhooks
    from models.temporal.queues import task_queue
    from models.temporal.webhooks import DispatchInput
    from models.domain.lifecycle import day_start
    from models.domain.settlement import REVISION_WINDOW
    from models.temporal.search_attributes import MONITORING_TARGET_ID, SETTLEMENT_STATE
    from models.temporal.settlement import (
        DATA_CHANGED_SIGNAL,
        SETTLEMENT_WORKFLOW,
        STATUS_QUERY,
        CoverageSettled,
        SettlementInput,
        SettlementProgress,
        SettlePeriodInput,
        SettlePeriodOutcome,
        SettlementCoverageStatus,
        SettlementWorkflowStatus,
    )

# Observations of a day are final this long after it ends (IMD's gridded rainfall is
# published within two days; reanalysis within five).
DATA_LATENCY = dt.timedelta(days=3)
# Missing or provisional data: settlement tries again daily (and when data arrives) for this
# long after it is due, then flags the coverage for ops and keeps waiting for data: on every
# data-changed signal, and weekly (FLAGGED_RETRY_EVERY; runs before PATCH_BOUNDED_WAIT: daily).
MISSING_DATA_WINDOW = dt.timedelta(days=7)
RETRY_EVERY = dt.timedelta(days=1)
FLAGGED_RETRY_EVERY = dt.timedelta(days=7)
# A run whose history has this many events continues as new before its next wait (a month
# end's settlement has about 20; Temporal warns at 10,240).
HISTORY_LIMIT = 200
# A revision of final data within this long after the period settled re-settles
# (adjustments): models.domain.settlement.REVISION_WINDOW, imported above.
SETTLE_TIMEOUT = dt.timedelta(minutes=30)
SETTLE_HEARTBEAT = dt.timedelta(seconds=30)  # a page takes seconds; a lost worker is noticed in 30 s
SETTLE_RETRY = RetryPolicy(initial_interval=dt.timedelta(seconds=1), maximum_interval=dt.timedelta(minutes=5))

# dispatch_webhooks after settle_period came with issue 14, unmarked: every release since
# dispatches after each run, and runs without this marker keep doing so; runs with it (from
# issue 25 on) dispatch only after a run that wrote events or changed the state. The v3
# settlement as first recorded (032a8a3, no dispatch: never deployed without issue 14, which
# followed it twelve minutes later) is kept in tests/replay/unreplayable.
PATCH_DISPATCH = "settlement-dispatch-webhooks"
# Waiting for data with a weekly check once flagged and continue-as-new past HISTORY_LIMIT;
# per settle_period run n, so a run already waiting daily at the deploy switches at its next check.
PATCH_BOUNDED_WAIT = "settlement-bounded-wait-{}"
# The revision window with continue-as-new past HISTORY_LIMIT (runs already in their window
# at the deploy keep waiting as they did: 90 days at most).
PATCH_BOUNDED_REVISIONS = "settlement-bounded-revisions"
# settle_period on the settlement task queue, not beside the lifecycle's Update-serving writes.
PATCH_SETTLEMENT_QUEUE = "settlement-own-queue"
# The revision window ends when the database says (`SettlePeriodOutcome.revisions_until`, kept
# on the settlement rows), not 90 days after this run settled: a run started again after
# Temporal's retention deleted the closed one finds the window closed and ends at once.
PATCH_WINDOW_IN_DATABASE = "settlement-window-in-database"
# Covers on a source ladder (issue 34, docs/settlement.md "Two payments"): the first check at
# `SettlementInput.first_due` (the day after the period's end + the provisional product's
# latency) when that is sooner than due_at, and checks no later than the activity's
# `next_check` (daily until the calculation deadline, weekly after, the true-up deadline).
PATCH_LADDER = "settlement-ladder"
# The shortest wait before a check the activity asked for (its time may have passed).
MIN_CHECK_WAIT = dt.timedelta(seconds=1)


def due_at(end: dt.date) -> dt.datetime:
    """When a period ending on `end` (inclusive) is settled first."""
    return day_start(end + dt.timedelta(days=1)) + DATA_LATENCY


@workflow.defn(name=SETTLEMENT_WORKFLOW)
class SettlementWorkflow:
    @workflow.init
    def __init__(self, request: SettlementInput) -> None:
        self._input = request
        self._changes = 0
        self._state = "SCHEDULED"
        self._coverages: list[CoverageSettled] = []
        self._runs = 0
        self._continued = 0
        # data-changed signals counted when the last settle_period started (new code's waits
        # wake on any signal after that, including one that came during the run).
        self._acted_on = 0
        self._next_check: dt.datetime | None = None  # when a cover on a ladder is next due a check
        progress = request.progress
        if progress is not None:
            self._state = progress.state
            self._runs = progress.runs
            self._coverages = list(progress.coverages)
            self._continued = progress.continued + 1
            self._acted_on = -1 if progress.changed else 0
            self._next_check = progress.next_check

    @workflow.signal(name=DATA_CHANGED_SIGNAL)
    def data_changed(self) -> None:
        self._changes += 1

    @workflow.query(name=STATUS_QUERY)
    def status(self) -> SettlementWorkflowStatus:
        return SettlementWorkflowStatus(
            target_id=self._input.target_id,
            period_start=self._input.start.isoformat(),
            period_end=self._input.end.isoformat(),
            due_at=min(due_at(self._input.end), self._input.first_due or due_at(self._input.end)).isoformat(),
            state=self._state,
            settlement_runs=self._runs,
            continued_runs=self._continued,
            coverages=[
                SettlementCoverageStatus(
                    coverage_id=str(c.coverage_id),
                    index_code=c.index_code,
                    state=c.state,
                    revision=c.revision,
                    index_value=None if c.index_value is None else str(c.index_value),
                    detail=c.detail,
                )
                for c in self._coverages
            ],
        )

    @workflow.run
    async def run(self, request: SettlementInput) -> str:
        if request.progress is not None:  # continued as new: this code's paths throughout
            if request.progress.revisions_until is None:
                return await self._await_data()
            return await self._revisions(request.progress.revisions_until)
        workflow.upsert_search_attributes(
            [MONITORING_TARGET_ID.value_set(request.target_id), SETTLEMENT_STATE.value_set("WAITING")]
        )
        due = due_at(request.end)
        first = due
        if request.first_due is not None and request.first_due < due and workflow.patched(PATCH_LADDER):
            first = request.first_due
        await self._wait(first - workflow.now())
        flag_after = due + MISSING_DATA_WINDOW
        while True:
            outcome = await self._settle(flag_missing=workflow.now() >= flag_after)
            if outcome.state == "SETTLED":
                break
            if workflow.patched(PATCH_BOUNDED_WAIT.format(self._runs)):
                return await self._await_data()
            await self._wait(RETRY_EVERY)
        revisions_until = self._window_end(outcome)
        if workflow.patched(PATCH_BOUNDED_REVISIONS):
            return await self._revisions(revisions_until)
        while True:
            seen = self._changes
            remaining = revisions_until - workflow.now()
            if remaining <= dt.timedelta(0):
                break
            try:
                await workflow.wait_condition(lambda: self._changes != seen, timeout=remaining)
            except asyncio.TimeoutError:
                break
            await self._settle(flag_missing=False)
        return self._state

    # --- this code's paths: bounded history ---------------------------------------------------

    async def _await_data(self) -> str:
        """Data still missing or provisional (the last run left the period WAITING or
        FLAGGED): check again daily until the period is flagged, weekly after, and at once
        on data-changed; then the revision window."""
        flag_after = due_at(self._input.end) + MISSING_DATA_WINDOW
        while True:
            if self._acted_on == self._changes:  # no signal to act on: wait for one, or the next check
                self._continue_if_long(revisions_until=None)
                every = RETRY_EVERY if workflow.now() < flag_after else FLAGGED_RETRY_EVERY
                if self._next_check is not None and workflow.patched(PATCH_LADDER):
                    every = max(min(every, self._next_check - workflow.now()), MIN_CHECK_WAIT)
                await self._wait_for_data(every)
            outcome = await self._settle(flag_missing=workflow.now() >= flag_after)
            if outcome.state == "SETTLED":
                return await self._revisions(self._window_end(outcome))

    async def _revisions(self, until: dt.datetime) -> str:
        """Settled: re-settle on each data-changed signal (a revision: adjustments) until the
        revision window ends, continuing as new whenever the history grows long."""
        while True:
            if self._acted_on == self._changes:
                remaining = until - workflow.now()
                if remaining <= dt.timedelta(0):
                    break
                self._continue_if_long(revisions_until=until)
                if not await self._wait_for_data(remaining):
                    break
            await self._settle(flag_missing=False)
        return self._state

    def _window_end(self, outcome: SettlePeriodOutcome) -> dt.datetime:
        """When the revision window of a period just settled closes: as the database keeps
        it (runs with PATCH_WINDOW_IN_DATABASE), else REVISION_WINDOW from now."""
        if outcome.revisions_until is not None and workflow.patched(PATCH_WINDOW_IN_DATABASE):
            return outcome.revisions_until
        return workflow.now() + REVISION_WINDOW

    async def _wait_for_data(self, delay: dt.timedelta) -> bool:
        """Until a data-changed signal not acted on yet, or `delay`; True if a signal came."""
        try:
            await workflow.wait_condition(lambda: self._changes != self._acted_on, timeout=delay)
            return True
        except asyncio.TimeoutError:
            return False

    def _continue_if_long(self, revisions_until: dt.datetime | None) -> None:
        """Continue as new (same workflow id, search attributes kept) once the history is
        long, carrying what this run found."""
        info = workflow.info()
        if info.get_current_history_length() < HISTORY_LIMIT and not info.is_continue_as_new_suggested():
            return
        workflow.continue_as_new(
            SettlementInput(
                target_id=self._input.target_id,
                start=self._input.start,
                end=self._input.end,
                progress=SettlementProgress(
                    state=self._state,
                    runs=self._runs,
                    coverages=self._coverages,
                    revisions_until=revisions_until,
                    changed=self._changes != self._acted_on,
                    continued=self._continued,
                    next_check=self._next_check,
                ),
            )
        )

    # --- shared -----------------------------------------------------------------------------------

    async def _wait(self, delay: dt.timedelta) -> None:
        """Sleep `delay`, or less if observations over the period arrive."""
        if delay <= dt.timedelta(0):
            return
        seen = self._changes
        try:
            await workflow.wait_condition(lambda: self._changes != seen, timeout=delay)
        except asyncio.TimeoutError:
            pass

    async def _settle(self, flag_missing: bool) -> SettlePeriodOutcome:
        self._acted_on = self._changes
        outcome = await workflow.execute_activity(
            settle_period,
            SettlePeriodInput(
                target_id=self._input.target_id,
                start=self._input.start,
                end=self._input.end,
                at=workflow.now(),
                flag_missing=flag_missing,
            ),
            start_to_close_timeout=SETTLE_TIMEOUT,
            heartbeat_timeout=SETTLE_HEARTBEAT,
            retry_policy=SETTLE_RETRY,
            summary=f"Settle {self._input.target_id} {self._input.start}..{self._input.end}",
            **({"task_queue": task_queue(workflow.info().task_queue, "settlement")}
               if workflow.patched(PATCH_SETTLEMENT_QUEUE) else {}),
        )
        self._runs += 1
        self._coverages = outcome.coverages
        self._next_check = outcome.next_check
        # The events' webhooks (written with them) go out now, not at the next dispatch tick.
        # Runs with the marker (and every continued run) dispatch only after a run that wrote
        # something (the one-minute dispatch schedule sends whatever else is left); runs without
        # it are the settlements every release since issue 14 ran: they dispatch after each run.
        wrote = any(c.events for c in outcome.coverages) or outcome.state != self._state
        after_writes_only = self._input.progress is not None or workflow.patched(PATCH_DISPATCH)
        if wrote or not after_writes_only:
            await workflow.execute_activity(
                dispatch_webhooks,
                DispatchInput(task_queue=task_queue(workflow.info().task_queue, "webhooks")),
                start_to_close_timeout=dt.timedelta(minutes=10),
                heartbeat_timeout=dt.timedelta(minutes=1),
                retry_policy=SETTLE_RETRY,
            )
        if outcome.state != self._state:
            self._state = outcome.state
            workflow.upsert_search_attributes([SETTLEMENT_STATE.value_set(outcome.state)])
        return outcome
