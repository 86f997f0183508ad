"""The daily observations run (`observations-daily` Schedule): each configured provider in
its own activity, so ops see per provider what came in (rows new, revised, unchanged,
refused, held) and a failing source is retried without holding up the others.

And a held observation revision (four eyes, docs/observations.md): one workflow per revision,
`observation-revision:<id>`, waiting for a second data principal's decision:

    HELD ──decide (approve, not by the submitter)──▶ store the rows, tell settlements ──▶ APPROVED
      ├───decide (refuse)──────────────────────────────────────────────────────────────▶ REFUSED
      └───REVISION_HOLD_LIMIT without a decision──▶ refused by "system" as expired ─────▶ REFUSED

And the settlement-notices sweep (`settlement-notices` Schedule, every minute): the
settlements of every stored batch's notice not yet told are told (docs/observations.md,
"Settlements are told").
"""

from __future__ import annotations

import asyncio
import datetime as dt

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from activities.observations import decide_observation_revision, ingest_observations, sweep_settlement_notices
    from models.temporal.observations import (
        DECIDE_UPDATE,
        FOUR_EYES,
        NOT_HELD,
        OBSERVATION_INGEST_WORKFLOW,
        OBSERVATION_REVISION_WORKFLOW,
        REVISION_STATUS_QUERY,
        SETTLEMENT_NOTICE_SWEEP_WORKFLOW,
        STALE_REVISION,
        SYSTEM_ACTOR,
        DecideRevisionInput,
        HeldRevisionInput,
        IngestProviderInput,
        IngestRunInput,
        IngestSummary,
        NoticeSweepInput,
        NoticeSweepOutcome,
        RevisionDecided,
        RevisionDecision,
        RevisionStatus,
    )
    from models.temporal.staff import StaffActorCheck

# Other workflow modules are workflow code: imported in the sandbox, never passed through.
from workflows.staff import check_actor


@workflow.defn(name=OBSERVATION_INGEST_WORKFLOW)
class ObservationIngestWorkflow:
    @workflow.run
    async def run(self, request: IngestRunInput) -> list[IngestSummary | str]:
        today = workflow.now().date()

        async def one(provider: str) -> IngestSummary | str:
            try:
                return await workflow.execute_activity(
                    ingest_observations,
                    IngestProviderInput(provider=provider, today=today, lookback_days=request.lookback_days,
                                        task_queue=workflow.info().task_queue),
                    start_to_close_timeout=dt.timedelta(hours=1),
                    heartbeat_timeout=dt.timedelta(minutes=5),
                    retry_policy=RetryPolicy(initial_interval=dt.timedelta(seconds=30), maximum_attempts=5),
                    summary=f"Observations from {provider}" + (" (simulated)" if provider == "simulated" else ""),
                )
            except ActivityError as err:
                return f"{provider}: failed: {err.cause or err}"

        return list(await asyncio.gather(*(one(p) for p in request.providers)))


# A held revision waits this long for its decision, then is refused as expired: a revision
# of settled money decided weeks late would pay on what was known then, and the steward can
# submit it again with what is known now.
REVISION_HOLD_LIMIT = dt.timedelta(days=30)
DECIDE_TIMEOUT = dt.timedelta(minutes=10)  # storing a held batch (at most 20,000 rows) and telling settlements
# A decision someone waits for over HTTP: a few quick attempts, then the update fails (503).
DECIDE_RETRY = RetryPolicy(
    initial_interval=dt.timedelta(seconds=1), maximum_interval=dt.timedelta(seconds=10), maximum_attempts=5,
    non_retryable_error_types=[NOT_HELD, STALE_REVISION],
)
# The expiry nobody waits for: retried until the database answers.
EXPIRE_RETRY = RetryPolicy(
    initial_interval=dt.timedelta(seconds=5), maximum_interval=dt.timedelta(minutes=10),
    non_retryable_error_types=[NOT_HELD, STALE_REVISION],
)
APPROVED, REFUSED, HELD, DECIDING = "APPROVED", "REFUSED", "HELD", "DECIDING"
# A decision takes effect only after an activity has checked the decider against the staff
# table (issue 33: a plain Temporal client could approve as anyone). Decided in the update, so
# a revision that is never decided by a person (it expires) writes no marker.
PATCH_DECIDER_CHECKED = "revision-decider-checked"


@workflow.defn(name=OBSERVATION_REVISION_WORKFLOW)
class ObservationRevisionWorkflow:
    @workflow.init
    def __init__(self, held: HeldRevisionInput) -> None:
        self._held = held
        self._state = HELD
        self._decided_by = ""
        self._decision_reason = ""
        self._expires_at = (held.held_at or workflow.now()) + REVISION_HOLD_LIMIT

    @workflow.query(name=REVISION_STATUS_QUERY)
    def status(self) -> RevisionStatus:
        return RevisionStatus(
            revision_id=self._held.revision_id, state=self._state, submitted_by=self._held.submitted_by,
            rows=self._held.rows, settlements=self._held.settlements, expires_at=self._expires_at,
            decided_by=self._decided_by, decision_reason=self._decision_reason,
        )

    @workflow.update(name=DECIDE_UPDATE)
    async def decide(self, decision: RevisionDecision) -> RevisionDecided:
        """Since PATCH_DECIDER_CHECKED the decider is first checked against the staff table (an
        active data staff member, who they say, and, approving, not the submitter: by stable
        id); a refusal fails the update and leaves the revision HELD."""
        if workflow.patched(PATCH_DECIDER_CHECKED):
            await check_actor(StaffActorCheck(
                actor=decision.decided_by, actor_id=decision.decided_by_id, role="data",
                other_actor=self._held.submitted_by if decision.state == APPROVED else "",
                action=f"{'approve' if decision.state == APPROVED else 'refuse'} this revision",
            ))
        self._check(decision)  # again: two updates accepted together pass the validator both
        return await self._apply(decision, DECIDE_RETRY)

    @decide.validator
    def validate_decide(self, decision: RevisionDecision) -> None:
        self._check(decision)

    def _check(self, decision: RevisionDecision) -> None:
        if self._state != HELD:
            detail = "being decided" if self._state == DECIDING else f"{self._state} already (by {self._decided_by})"
            raise ApplicationError(f"the revision is {detail}", type=NOT_HELD)
        if decision.state not in (APPROVED, REFUSED):
            raise ApplicationError(f"a decision is {APPROVED} or {REFUSED}, not {decision.state!r}", type=NOT_HELD)
        if decision.state == APPROVED and decision.decided_by == self._held.submitted_by:
            raise ApplicationError(
                f"four eyes: {decision.decided_by} submitted this revision; another data staff member approves it",
                type=FOUR_EYES,
            )

    async def _apply(self, decision: RevisionDecision, retry: RetryPolicy) -> RevisionDecided:
        self._state = DECIDING
        try:
            outcome = await workflow.execute_activity(
                decide_observation_revision,
                DecideRevisionInput(
                    revision_id=self._held.revision_id, state=decision.state, decided_by=decision.decided_by,
                    reason=decision.reason, task_queue=workflow.info().task_queue,
                ),
                start_to_close_timeout=DECIDE_TIMEOUT,
                retry_policy=retry,
                summary=f"{'Store and re-settle' if decision.state == APPROVED else 'Refuse'} · {decision.decided_by}",
            )
        except ActivityError as err:
            self._state = HELD
            cause = err.cause
            if isinstance(cause, ApplicationError):
                raise ApplicationError(cause.message, type=cause.type) from None
            raise ApplicationError(f"the decision could not be recorded: {cause or err}", type="DecisionFailed") from None
        self._state, self._decided_by, self._decision_reason = outcome.state, outcome.decided_by, decision.reason
        return outcome

    @workflow.run
    async def run(self, held: HeldRevisionInput) -> str:
        try:
            await workflow.wait_condition(
                lambda: self._state in (APPROVED, REFUSED),
                timeout=max(self._expires_at - workflow.now(), dt.timedelta(seconds=1)),
            )
        except asyncio.TimeoutError:
            await workflow.wait_condition(lambda: self._state != DECIDING)  # a decision under way ends first
            if self._state == HELD:
                days = REVISION_HOLD_LIMIT.days
                expiry = RevisionDecision(REFUSED, SYSTEM_ACTOR, f"expired: not decided within {days} days")
                try:
                    await self._apply(expiry, EXPIRE_RETRY)
                except ApplicationError:  # decided outside this run: nothing left to expire
                    pass
        await workflow.wait_condition(workflow.all_handlers_finished)
        return self._state


@workflow.defn(name=SETTLEMENT_NOTICE_SWEEP_WORKFLOW)
class SettlementNoticeSweepWorkflow:
    """One sweep: a single activity, retried until the database and Temporal answer (the
    next run of the Schedule is skipped while this one runs)."""

    @workflow.run
    async def run(self, request: NoticeSweepInput) -> NoticeSweepOutcome:
        return await workflow.execute_activity(
            sweep_settlement_notices,
            request,
            start_to_close_timeout=dt.timedelta(minutes=10),
            heartbeat_timeout=dt.timedelta(minutes=1),
            retry_policy=RetryPolicy(maximum_interval=dt.timedelta(minutes=1)),
            summary="Tell the settlements of observations stored and not told",
        )
