"""The lifecycle of a policy. Workflow id `policy:<tenant>:<policy id>`.

    NEW ──convert──▶ CREATED (draft) ──activate──▶ ACCEPTED ──first risk start──▶ ACTIVE ──last end + 3 days──▶ EXPIRED
     │                  └──lapse time──▶ LAPSED        └──────────cancel──────────────┴──▶ CANCELED
     └──conversion refused, or none before the quote's deadline──▶ NOT_CREATED

- PATCH /quotes/{id} starts this workflow with update-with-start (`convert`); the update
  writes the quote's conversion (a local activity, ids derived from the quote) before it
  answers. This workflow does not tell the quote's: the API signals it once the update has
  answered (issue 29: a signal from here doubled the conversion's server work), and failing
  that the quote's workflow finds the conversion in the database at its deadline
  (workflows/quotes.py).
- A draft lapses at `lapse_at` (models.domain.lifecycle.quote_deadline: the quote's validity end or
  the first risk-period start, whichever is first); activation after it is refused.
- Documents never gate the lifecycle: the policy schedule renders in a workflow of its own
  (`policy-schedule:<tenant>:<policy>`, retried until it succeeds) while monitoring runs on.
- Monitoring sleeps on durable timers, one per distinct risk-period start plus one for the
  end: a handful of workflow tasks per policy, never one per day. A cancel in flight settles
  before a timer acts on the status; cancelling wakes every timer and ends the workflow, so
  covers no longer trigger.
- After the end the policy expires once its covers are settled: it looks an hour after its
  last settlement was due, then waits on one activity the server retries (hourly, backing
  off to daily), so its history stays the same size however long the data takes.

Versioning (docs/workflow-versioning.md): policies live for years, so each change is a
patch at the point where behaviour changes, and a running policy takes the new path from
the first such point it reaches after the deploy.
"""

from __future__ import annotations

import asyncio
import datetime as dt

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, WorkflowAlreadyStartedError
from temporalio.workflow import ParentClosePolicy

with workflow.unsafe.imports_passed_through():
    from activities.documents import PolicyScheduleRequest, render_policy_schedule
    from activities.policies import (
        convert_to_policy,
        set_policy_status,
        transition_policy,
    )
    from models.domain.lifecycle import day_start
    from models.domain.statuses import PolicyStatus
    from models.temporal.ids import policy_schedule_workflow_id
    from models.temporal.lifecycle import TransitionOutcome
    from models.temporal.policies import (
        ACTIVATE_UPDATE,
        CANCEL_UPDATE,
        CONVERT_UPDATE,
        POLICY_SCHEDULE_WORKFLOW,
        POLICY_WORKFLOW,
        STATUS_QUERY,
        ConvertToPolicyInput,
        PolicyScheduleInput,
        PolicyStatusInput,
        PolicyPeriodStatus,
        PolicyTransitionInput,
        PolicyWorkflowInput,
        PolicyWorkflowStatus,
    )
    from models.temporal.search_attributes import POLICY_STATUS
    from activities.settled_wait import await_policy_settled
    from activities.settlement import policy_settled, start_settlements
    from models.temporal.settlement import PolicySettledInput, StartSettlementsInput

# Other workflow modules are workflow code: imported in the sandbox, never passed through.
from workflows.settlement import DATA_LATENCY as SETTLEMENT_DATA_LATENCY
from workflows.lifecycle import (
    BACKGROUND_WRITE,
    BACKGROUND_WRITE_RETRY,
    LOCAL_ACTIVITY_FAILED,
    PATCH_BOUNDED_WRITE,
    REQUEST_WRITE,
    WRITE_RETRY,
    WRITE_TIMEOUT,
    background_write,
    capacity_refused,
    refuse,
    write_failed,
)

# How policies activated before PolicyScheduleWorkflow existed render their schedule in their
# own history (they replay with it; new policies start that workflow instead).
RENDER_TIMEOUT_V0 = dt.timedelta(minutes=5)
RENDER_RETRY_V0 = RetryPolicy(
    initial_interval=dt.timedelta(seconds=1), maximum_interval=dt.timedelta(minutes=1), maximum_attempts=10
)

# Settlement waits this long after a period for its data (workflows/settlement.py).
DATA_LATENCY = SETTLEMENT_DATA_LATENCY
# After its last period's end + DATA_LATENCY (the instant its last settlement runs), a policy
# waits until its covers are settled before it expires. It first looks this long after that
# instant: looking at the very instant raced the settlement, and lost a day.
SETTLED_CHECK_MARGIN = dt.timedelta(hours=1)
# Then one activity (activities/settled_wait.py) retried by the server: again after an hour,
# backing off to once a day, for as long as the data takes; its retries add no events.
SETTLED_POLL = RetryPolicy(
    initial_interval=dt.timedelta(hours=1), backoff_coefficient=2.0, maximum_interval=dt.timedelta(days=1)
)
# Policies that started waiting before PATCH_AWAITS_SETTLEMENT: a local activity and a timer
# (about 6 events) a day.
SETTLED_CHECK_EVERY = dt.timedelta(days=1)

PATCH_DRAFT_LAPSES = "policy-draft-lapses"
PATCH_SCHEDULE_WORKFLOW = "policy-schedule-workflow"
PATCH_SCHEDULE_FAILURE_NOT_FATAL = "policy-schedule-failure-not-fatal"
# Activated policies start the settlement workflows of their periods, and expire only once
# their covers are settled (policies activated before this deploy: docs/settlement.md).
PATCH_SETTLEMENT = "policy-starts-settlement"
# Per call site (a timer, an update): a policy running since before the patch takes the new
# path at the first of them it reaches after the deploy (a patch id is memoised per run).
PATCH_CANCEL_SETTLES_FIRST = "policy-cancel-settles-first-{}"
PATCH_CHECKED_TRANSITIONS = "policy-checked-transitions-{}"
# The wait for settlement: SETTLED_CHECK_MARGIN, then SETTLED_POLL. Per daily check n of the
# old wait, so a policy already waiting at the deploy switches at its next check (0: the end).
PATCH_AWAITS_SETTLEMENT = "policy-awaits-settlement-{}"
# The patches a run takes the new path of without asking `patched` (no marker, no
# TemporalChangeVersion upsert; docs/workflow-versioning.md, "Baselines"), because it can tell
# it was started by code that had them:
# - a run started with a quote id (it converts its own quote) was started by issue 9's code,
#   which had CONVERTING_RUNS_HAVE;
# - a run whose first workflow task recorded PATCH_BASELINE ran that task on code that had
#   BASELINE_HAS, so it reaches every one of their points on such code.
# Every other patch, one added after these above all, goes through `workflow.patched`: a run
# started before it may be anywhere when it is deployed (issue 33: `_new_path` answered True
# for any patch on a converting run). A new patch is added to a NEW baseline (a new id and
# set, checked before this one), never to these sets.
CONVERTING_RUNS_HAVE = frozenset({PATCH_DRAFT_LAPSES, PATCH_SCHEDULE_WORKFLOW, PATCH_CANCEL_SETTLES_FIRST,
                                  PATCH_CHECKED_TRANSITIONS})
PATCH_BASELINE = "policy-baseline-1"
BASELINE_HAS = CONVERTING_RUNS_HAVE | {PATCH_SETTLEMENT, PATCH_AWAITS_SETTLEMENT, PATCH_BOUNDED_WRITE}

_start_of = day_start


@workflow.defn(name=POLICY_WORKFLOW)
class PolicyWorkflow:
    @workflow.init
    def __init__(self, request: PolicyWorkflowInput) -> None:
        self._input = request
        # The first thing a run does, in its first workflow task: one marker instead of one per
        # patch of BASELINE_HAS (runs recorded before it replay without it: False).
        self._baseline = workflow.patched(PATCH_BASELINE)
        # A workflow that converts its quote starts NEW; one started as a quote's child (before
        # the conversion moved here) finds its draft written and runs its patches.
        self._converts = request.quote_id is not None
        self._status = "NEW" if self._converts else PolicyStatus.CREATED
        first_start = min(s for s, _ in request.periods)
        self._lapse_at = request.lapse_at or _start_of(first_start)
        self._detail = ""
        self._periods = [{"start": s.isoformat(), "end": e.isoformat(), "monitoring": "PENDING"} for s, e in request.periods]

    @workflow.query(name=STATUS_QUERY)
    def status(self) -> PolicyWorkflowStatus:
        return PolicyWorkflowStatus(
            policy_id=str(self._input.policy_id),
            quote_id=self._input.quote_id and str(self._input.quote_id),
            status=self._status,
            lapse_at=self._lapse_at.isoformat(),
            periods=[PolicyPeriodStatus(**period) for period in self._periods],
            detail=self._detail,
        )

    @workflow.run
    async def run(self, request: PolicyWorkflowInput) -> str:
        if self._converts:
            await self._await_conversion()
            if self._status == PolicyStatus.NOT_CREATED:
                return await self._finish()
        if self._new_path(PATCH_DRAFT_LAPSES):
            await self._await_activation()
            if self._status == PolicyStatus.LAPSED:
                return await self._finish()
        else:
            await workflow.wait_condition(lambda: self._status in (PolicyStatus.ACCEPTED, PolicyStatus.CANCELED))
        if self._status == PolicyStatus.ACCEPTED:
            await self._schedule_documents()
        settles = self._status == PolicyStatus.ACCEPTED and self._new_path(PATCH_SETTLEMENT)
        if settles:
            await self._start_settlements()
        starts = sorted({s for s, _ in request.periods})
        for index, start in enumerate(starts):
            if await self._sleep_until(_start_of(start), index):
                return await self._finish()
            for period in self._periods:
                if period["start"] == start.isoformat():
                    period["monitoring"] = "MONITORING"
            if self._status == PolicyStatus.ACCEPTED:
                self._status = "ACTIVATING"
                await self._background_write(PolicyStatus.ACTIVE, [PolicyStatus.ACCEPTED], index)
                self._set(PolicyStatus.ACTIVE)
        last_end = max(e for _, e in request.periods)
        # The moment the settlement of the last period is due (workflows.settlement.due_at).
        settled_due = _start_of(last_end) + dt.timedelta(days=1) + DATA_LATENCY
        if await self._sleep_until(settled_due, len(starts)):
            return await self._finish()
        if settles and await self._await_settlement(settled_due, len(starts)):
            return await self._finish()
        for period in self._periods:
            period["monitoring"] = "ENDED"
        self._status = "EXPIRING"
        await self._background_write(PolicyStatus.EXPIRED, [PolicyStatus.ACTIVE], len(starts))
        self._set(PolicyStatus.EXPIRED)
        return await self._finish()

    # --- conversion and draft -------------------------------------------------------------------

    async def _await_conversion(self) -> None:
        """Until the `convert` update has written the draft; a workflow whose conversion is
        refused, or never comes before the quote's deadline, ends without a policy."""
        while self._status in ("NEW", "CONVERTING"):
            if self._status == "CONVERTING":
                await workflow.wait_condition(lambda: self._status != "CONVERTING")
                continue
            remaining = self._lapse_at - workflow.now()
            if remaining <= dt.timedelta(0):
                # A write that committed after its request gave up is found here: the draft
                # then exists (and lapses at once); otherwise there is no policy.
                outcome = await background_write(
                    convert_to_policy, self._conversion_input(), "policy-conversion-deadline", has_patch=self._has_bounded_writes()
                )
                if outcome.applied:
                    self._status = PolicyStatus.CREATED
                else:
                    self._detail = outcome.detail or "no conversion before the quote's deadline"
                    self._set(PolicyStatus.NOT_CREATED)
                break
            try:
                await workflow.wait_condition(lambda: self._status != "NEW", timeout=remaining)
            except asyncio.TimeoutError:
                pass

    @workflow.update(name=CONVERT_UPDATE)
    async def convert(self) -> str:
        """Write the conversion of the quote into this policy's draft; returns the policy id."""
        self._status = "CONVERTING"
        try:
            outcome = await self._conversion_write(**REQUEST_WRITE)
        except LOCAL_ACTIVITY_FAILED as err:
            self._status = "NEW"  # a retried PATCH finds this workflow and writes again
            raise write_failed(err) from err
        if outcome.applied:
            self._status = PolicyStatus.CREATED
            return str(self._input.policy_id)
        if outcome.capacity is not None:
            # It does not fit a capacity limit (docs/capacity.md): nothing was written and the
            # quote stays open, so this workflow waits for a later conversion as before the
            # update (no command differs: only outcomes of this new refusal take this path).
            self._status = "NEW"
            raise capacity_refused(outcome)
        self._detail = outcome.detail or f"the quote is {outcome.status}"
        self._set(PolicyStatus.NOT_CREATED)
        raise refuse("convert the quote", outcome.status, outcome.detail)

    async def _conversion_write(self, **options) -> TransitionOutcome:
        return await workflow.execute_local_activity(convert_to_policy, self._conversion_input(), **options)

    def _conversion_input(self) -> ConvertToPolicyInput:
        return ConvertToPolicyInput(
            tenant_id=self._input.tenant_id,
            quote_id=self._input.quote_id,
            policy_id=self._input.policy_id,
            at=workflow.now(),
        )

    @convert.validator
    def validate_convert(self) -> None:
        if self._status != "NEW":
            state = "being converted" if self._status == "CONVERTING" else PolicyStatus.ACCEPTED
            raise refuse("convert the quote", state)
        if workflow.now() >= self._lapse_at:
            raise refuse("convert the quote", PolicyStatus.CREATED, f"it expired at {self._lapse_at:%Y-%m-%d %H:%M} UTC")

    async def _await_activation(self) -> None:
        """A draft waits for activation until it lapses."""
        while self._status in (PolicyStatus.CREATED, "ACTIVATING", "LAPSING"):
            if self._status != PolicyStatus.CREATED:
                await workflow.wait_condition(lambda: self._status not in ("ACTIVATING", "LAPSING"))
                continue
            remaining = self._lapse_at - workflow.now()
            if remaining <= dt.timedelta(0):
                self._status = "LAPSING"
                outcome = await background_write(
                    set_policy_status, self._status_input(PolicyStatus.LAPSED, [PolicyStatus.CREATED]), "policy-lapse",
                    has_patch=self._has_bounded_writes(),
                )
                self._adopt(outcome, PolicyStatus.LAPSED)
                continue
            try:
                await workflow.wait_condition(lambda: self._status != PolicyStatus.CREATED, timeout=remaining)
            except asyncio.TimeoutError:
                pass

    # --- documents ------------------------------------------------------------------------------

    async def _schedule_documents(self) -> None:
        if self._new_path(PATCH_SCHEDULE_WORKFLOW):
            await self._start_schedule_workflow()
            return
        try:
            await workflow.execute_activity(
                render_policy_schedule,
                PolicyScheduleRequest(tenant_id=self._input.tenant_id, policy_id=self._input.policy_id),
                start_to_close_timeout=RENDER_TIMEOUT_V0,
                retry_policy=RENDER_RETRY_V0,
            )
        except ActivityError:
            if not workflow.patched(PATCH_SCHEDULE_FAILURE_NOT_FATAL):
                raise
            await self._start_schedule_workflow()

    async def _start_schedule_workflow(self) -> None:
        """The schedule renders in its own workflow, retried until it succeeds (ops see it
        there); the policy does not wait for it."""
        request = self._input
        try:
            await workflow.start_child_workflow(
                POLICY_SCHEDULE_WORKFLOW,
                PolicyScheduleInput(tenant_id=request.tenant_id, policy_id=request.policy_id),
                id=policy_schedule_workflow_id(request.tenant_id, request.policy_id),
                parent_close_policy=ParentClosePolicy.ABANDON,
                static_summary=f"Policy schedule · {request.policy_id}",
            )
        except WorkflowAlreadyStartedError:  # started before (a policy reset by ops)
            pass

    # --- settlement -----------------------------------------------------------------------------

    async def _start_settlements(self) -> None:
        """One settlement workflow per risk period of the policy's target, shared by every
        policy holding covers over it (started by the first, found by the others)."""
        await background_write(
            start_settlements,
            StartSettlementsInput(
                target_id=self._input.monitoring_target_id,
                periods=list(self._input.periods),
                task_queue=workflow.info().task_queue,
            ),
            "policy-start-settlements",
            has_patch=self._has_bounded_writes(),
        )

    async def _await_settlement(self, due: dt.datetime, index: int) -> bool:
        """After the end, until every cover the policy holds is settled; True if the policy
        was cancelled meanwhile. Policies already waiting at the deploy did so with a daily
        check (local activity + timer); each check is a patch point, so they switch at the
        next one."""
        checks = 0
        while not self._new_path(PATCH_AWAITS_SETTLEMENT, checks):
            if await self._settled():
                return False
            checks += 1
            if await self._sleep_until(workflow.now() + SETTLED_CHECK_EVERY, index):
                return True
        if checks == 0 and await self._sleep_until(due + SETTLED_CHECK_MARGIN, index):
            return True
        return await self._poll_settled()

    async def _poll_settled(self) -> bool:
        """One activity, retried by the server until the covers are settled (SETTLED_POLL);
        a cancellation meanwhile ends the wait. True if cancelled."""
        poll = workflow.start_activity(
            await_policy_settled,
            PolicySettledInput(tenant_id=self._input.tenant_id, policy_id=self._input.policy_id),
            start_to_close_timeout=WRITE_TIMEOUT,
            retry_policy=SETTLED_POLL,
            summary="Waits until every cover of the policy is settled",
        )
        cancelled = asyncio.ensure_future(workflow.wait_condition(lambda: self._status == PolicyStatus.CANCELED))
        await workflow.wait([poll, cancelled], return_when=asyncio.FIRST_COMPLETED)
        if not poll.done():
            poll.cancel()
            try:
                await poll
            except (ActivityError, asyncio.CancelledError):
                pass
            return True
        cancelled.cancel()
        await poll
        # A cancel being written settles first: if its write fails the policy expires.
        await workflow.wait_condition(lambda: self._status not in ("CANCELING", "ACTIVATING"))
        return self._status == PolicyStatus.CANCELED

    async def _settled(self) -> bool:
        """The daily check of policies that started waiting before PATCH_AWAITS_SETTLEMENT."""
        return await workflow.execute_local_activity(
            policy_settled,
            PolicySettledInput(tenant_id=self._input.tenant_id, policy_id=self._input.policy_id),
            **BACKGROUND_WRITE,
        )

    # --- monitoring -----------------------------------------------------------------------------

    async def _sleep_until(self, moment: dt.datetime, index: int) -> bool:
        """Durable timer; True if the policy was cancelled meanwhile."""
        delay = moment - workflow.now()
        if delay > dt.timedelta(0):
            try:
                await workflow.wait_condition(lambda: self._status == PolicyStatus.CANCELED, timeout=delay)
            except asyncio.TimeoutError:
                pass
        if self._new_path(PATCH_CANCEL_SETTLES_FIRST, index):
            # A cancel (or activation) being written settles first: if its write fails the
            # policy is still in force and monitoring goes on.
            await workflow.wait_condition(lambda: self._status not in ("CANCELING", "ACTIVATING"))
            return self._status == PolicyStatus.CANCELED
        return self._status in ("CANCELING", PolicyStatus.CANCELED)

    async def _finish(self) -> str:
        await workflow.wait_condition(workflow.all_handlers_finished)
        if self._status == PolicyStatus.CANCELED:
            for period in self._periods:
                if period["monitoring"] != "ENDED":
                    period["monitoring"] = PolicyStatus.CANCELED
        return self._status

    # --- transitions ----------------------------------------------------------------------------

    @workflow.update(name=ACTIVATE_UPDATE)
    async def activate(self) -> str:
        if not self._checked_transitions():
            return await self._activate_v0()
        if self._status != PolicyStatus.CREATED:
            raise refuse("activate the policy", self._status)
        self._status = "ACTIVATING"
        try:
            outcome = await self._status_write(PolicyStatus.ACCEPTED, [PolicyStatus.CREATED], **REQUEST_WRITE)
        except LOCAL_ACTIVITY_FAILED as err:
            self._status = PolicyStatus.CREATED
            raise write_failed(err) from err
        self._adopt(outcome, PolicyStatus.ACCEPTED, fallback=PolicyStatus.CREATED)
        if self._status != PolicyStatus.ACCEPTED:
            raise refuse("activate the policy", self._status, outcome.detail)
        return self._status

    @activate.validator
    def validate_activate(self) -> None:
        if self._status != PolicyStatus.CREATED:
            raise refuse("activate the policy", self._status)
        if workflow.now() >= self._lapse_at:
            raise refuse(
                "activate the policy",
                PolicyStatus.CREATED,
                f"activation closed at {self._lapse_at:%Y-%m-%d %H:%M} UTC (the quote's deadline: its validity "
                "end or the first risk-period start); cover is never sold once its risk period has started",
            )

    @workflow.update(name=CANCEL_UPDATE)
    async def cancel(self) -> str:
        # An activation being written finishes first; then the cancel applies to its result.
        await workflow.wait_condition(lambda: self._status != "ACTIVATING")
        if self._status not in (PolicyStatus.ACCEPTED, PolicyStatus.ACTIVE):
            raise refuse("cancel the policy", self._status)
        if not self._checked_transitions():
            return await self._cancel_v0()
        previous = self._status
        self._status = "CANCELING"
        try:
            outcome = await self._status_write(PolicyStatus.CANCELED, [PolicyStatus.ACCEPTED, PolicyStatus.ACTIVE], **REQUEST_WRITE)
        except LOCAL_ACTIVITY_FAILED as err:
            self._status = previous
            raise write_failed(err) from err
        self._adopt(outcome, PolicyStatus.CANCELED, fallback=previous)
        if self._status != PolicyStatus.CANCELED:
            raise refuse("cancel the policy", self._status, outcome.detail)
        return self._status

    @cancel.validator
    def validate_cancel(self) -> None:
        if self._status not in (PolicyStatus.ACCEPTED, "ACTIVATING", PolicyStatus.ACTIVE):
            raise refuse("cancel the policy", self._status)

    def _checked_transitions(self) -> bool:
        info = workflow.current_update_info()
        return self._new_path(PATCH_CHECKED_TRANSITIONS, info.id if info else "")

    def _new_path(self, patch: str, *values: object) -> bool:
        """Whether this run takes the new path of `patch` (a patch id, or a per-call-site
        template formatted with `values`). A run that can tell it was started by code with
        the patch (CONVERTING_RUNS_HAVE, BASELINE_HAS) takes it without a marker; any other
        patch is asked of `workflow.patched`, which writes the marker on the new path."""
        if (self._converts and patch in CONVERTING_RUNS_HAVE) or (self._baseline and patch in BASELINE_HAS):
            return True
        return workflow.patched(patch.format(*values) if values else patch)

    def _has_bounded_writes(self) -> bool:
        """`background_write`'s patch (`bounded-write-<site>`) is in this run's baseline."""
        return self._baseline and PATCH_BOUNDED_WRITE in BASELINE_HAS

    async def _status_write(self, to_status: str, from_statuses: list[str], **options) -> TransitionOutcome:
        return await workflow.execute_local_activity(set_policy_status, self._status_input(to_status, from_statuses), **options)

    def _status_input(self, to_status: str, from_statuses: list[str]) -> PolicyStatusInput:
        return PolicyStatusInput(
            tenant_id=self._input.tenant_id,
            policy_id=self._input.policy_id,
            to_status=to_status,
            from_statuses=from_statuses,
            at=workflow.now(),
        )

    def _adopt(self, outcome: TransitionOutcome, wanted: str, fallback: str | None = None) -> None:
        """The write's outcome decides: the wanted status if the row holds it (this write or
        an earlier attempt that committed late), else what the row holds (or `fallback`)."""
        if outcome.status == wanted:
            self._set(wanted)
        elif fallback is not None and outcome.status not in (PolicyStatus.LAPSED, PolicyStatus.CANCELED, PolicyStatus.EXPIRED):
            self._status = fallback
            self._detail = outcome.detail or f"the database holds {outcome.status}"
        else:
            self._detail = outcome.detail or f"the database holds {outcome.status}"
            self._set(outcome.status)

    async def _background_write(self, to_status: str, from_statuses: list[str], index: int) -> None:
        """A write no request waits on (ACTIVE at the risk start, EXPIRED at the end): retried
        until it lands; a row that disagrees is logged and shown in the `status` query."""
        if not self._new_path(PATCH_CHECKED_TRANSITIONS, f"background-{index}"):
            await self._write_v0(to_status, from_statuses, background=True)
            return
        outcome = await background_write(
            set_policy_status, self._status_input(to_status, from_statuses), f"policy-status-{index}",
            has_patch=self._has_bounded_writes(),
        )
        if outcome.status != to_status:
            self._detail = f"the database holds {outcome.status} where {to_status} was written"
            workflow.logger.error("policy %s: %s", self._input.policy_id, self._detail)

    def _set(self, status: str) -> None:
        self._status = status
        workflow.upsert_search_attributes([POLICY_STATUS.value_set(status)])

    # --- workflows running since before the checked transitions (replay and running policies) ----

    async def _activate_v0(self) -> str:
        if self._status != PolicyStatus.CREATED:
            raise refuse("activate the policy", self._status)
        self._status = "ACTIVATING"
        try:
            await self._write_v0(PolicyStatus.ACCEPTED, [PolicyStatus.CREATED])
        except ActivityError as err:
            self._status = PolicyStatus.CREATED
            raise write_failed(err) from err
        self._set(PolicyStatus.ACCEPTED)
        return self._status

    async def _cancel_v0(self) -> str:
        previous = self._status
        self._status = "CANCELING"
        try:
            await self._write_v0(PolicyStatus.CANCELED, [previous])
        except ActivityError as err:
            self._status = previous
            raise write_failed(err) from err
        self._set(PolicyStatus.CANCELED)
        return self._status

    async def _write_v0(self, to_status: str, from_statuses: list[str], background: bool = False) -> None:
        await workflow.execute_local_activity(
            transition_policy,
            PolicyTransitionInput(
                tenant_id=self._input.tenant_id,
                policy_id=self._input.policy_id,
                to_status=to_status,
                from_statuses=from_statuses,
                at=workflow.now(),
            ),
            start_to_close_timeout=WRITE_TIMEOUT,
            retry_policy=BACKGROUND_WRITE_RETRY if background else WRITE_RETRY,
        )
