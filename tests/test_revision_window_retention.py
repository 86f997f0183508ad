"""A settlement's revision window is kept in the database, not by Temporal's retention
(issue 33, section 7): the window was enforced by `ALLOW_DUPLICATE_FAILED_ONLY` on the
workflow id alone, so once retention deleted the closed run (90 days in dev, 400 in
production) a late revision started a new settlement, paid adjustments and opened a new
90-day window. Now the window's end is on the settlement rows: the notice sweep does not
start the settlement, and a settlement started all the same pays nothing and ends at once.

On the time-skipping server: the real settlement workflow and activities settle the period
and run through its 90 days; retention is simulated by a fresh Temporal server (its
namespace holds no run of the settlement: the test server cannot delete one), its clock
moved past the window."""

from __future__ import annotations

import contextlib
import datetime as dt
import sys
import uuid
from decimal import Decimal
from pathlib import Path

from temporalio.api.operatorservice.v1 import AddSearchAttributesRequest
from temporalio.client import WorkflowExecutionStatus
from temporalio.service import RPCError, RPCStatusCode
from temporalio.testing import ActivityEnvironment, WorkflowEnvironment
from temporalio.worker import Worker

from activities.settlement import settle_period
from api.settlement.observations import tell_settlements
from models.db import observations as observations_db
from models.db import settlement as settlement_db
from models.db.tables import ParametricEvent, Payout, Settlement, SettlementNotice
from models.domain.observations import ObservationIn
from models.domain.settlement import REVISION_WINDOW
from models.temporal.converter import data_converter
from models.temporal.ids import settlement_workflow_id
from models.temporal.queues import task_queue
from models.temporal.search_attributes import SEARCH_ATTRIBUTES
from models.temporal.settlement import SettlePeriodInput, data_changed_start
from tests.api.test_observation_revisions import settled_past_policy
from tests.test_lifecycles_time_skipping import INDEXED, ClockWorkflow, advance, result_of, skipping_env, worker  # noqa: F401
from workflows.worker import Workers


@contextlib.asynccontextmanager
async def fresh_temporal():
    """A Temporal server of its own with the service's workers: what is left once retention
    deleted every closed run of a settlement."""
    env = await WorkflowEnvironment.start_time_skipping(
        test_server_existing_path=str(Path(sys.executable).parent / "temporal-test-server"), data_converter=data_converter
    )
    await env.client.operator_service.add_search_attributes(AddSearchAttributesRequest(
        namespace=env.client.namespace, search_attributes={n: INDEXED[k] for n, k in SEARCH_ATTRIBUTES.items()}
    ))
    queue = f"fresh-{uuid.uuid4()}"
    try:
        async with Workers(env.client, queue, pricing_processes=0), Worker(
            env.client, task_queue=f"{queue}-clock", workflows=[ClockWorkflow]
        ):
            yield env, queue
    finally:
        await env.shutdown()


async def _money(policy_id: uuid.UUID) -> tuple[int, int]:
    return (await ParametricEvent.count().where(ParametricEvent.policy_id == policy_id),
            await Payout.count().where(Payout.policy_id == policy_id))


async def test_a_late_revision_after_retention_deleted_the_closed_run_pays_nothing_and_opens_no_window(
    skipping_env, worker, monkeypatch
):
    env, lifecycle = skipping_env, task_queue(worker, "lifecycle")
    policy = await settled_past_policy(str(uuid.uuid4()), Decimal(10), settle=False)  # 10 mm a day: the excess pays
    workflow_id = settlement_workflow_id(policy.target, policy.start, policy.end)
    await env.client.start_workflow(**data_changed_start(policy.target, policy.start, policy.end, lifecycle))
    assert await result_of(env, workflow_id, timeout=300) == "SETTLED"  # settled, then 90 days without a revision
    closed = await env.client.get_workflow_handle(workflow_id).describe()
    assert closed.status == WorkflowExecutionStatus.COMPLETED
    windows = await settlement_db.revision_windows(policy.target, policy.start, policy.end)
    assert windows and all(w["state"] == "SETTLED" and w["revisions_until"] is not None for w in windows.values())
    [until] = {w["revisions_until"] for w in windows.values()}  # one window for the period
    assert closed.close_time >= until
    paid = await _money(policy.policy_id)
    assert paid[0] > 0 and paid[1] > 0

    async with fresh_temporal() as (fresh, queue):
        await advance(fresh, queue, REVISION_WINDOW + dt.timedelta(days=2))  # its clock where the first one got to
        now = await fresh.get_current_time()
        assert now > until
        monkeypatch.setattr(observations_db, "utcnow", lambda: now)
        fresh_lifecycle = task_queue(queue, "lifecycle")

        # A revision of every day, long after the window: the notice is closed, nothing started.
        days = [policy.start + dt.timedelta(days=i) for i in range((policy.end - policy.start).days + 1)]
        stored = await observations_db.store_batch(
            [ObservationIn(policy.target, "IMD-RF-DAILY", "rainfall_mm", d, None, Decimal(20), "IMD") for d in days]
        )
        assert stored.revised == len(days) and len(stored.notices) == 1
        assert await tell_settlements(fresh.client, fresh_lifecycle, stored.notices) == 0
        try:
            started = await fresh.client.get_workflow_handle(workflow_id).describe()
        except RPCError as err:
            assert err.status == RPCStatusCode.NOT_FOUND
        else:
            raise AssertionError(f"the late revision started the settlement again: {started.status}")
        [notice] = await SettlementNotice.select(SettlementNotice.notified_at, SettlementNotice.settlements).where(
            SettlementNotice.id == stored.notices[0]
        )
        assert notice["notified_at"] is not None and notice["settlements"] == 0  # closed, not left for the sweep
        assert await _money(policy.policy_id) == paid

        # Started all the same (by anything else that starts it): it pays nothing, says why on
        # the rows, and ends at once instead of opening another 90-day window.
        handle = await fresh.client.start_workflow(
            **data_changed_start(policy.target, policy.start, policy.end, fresh_lifecycle)
        )
        assert await result_of(fresh, workflow_id, timeout=300) == "SETTLED"
        ran = await handle.describe()
        assert ran.close_time - ran.start_time < dt.timedelta(days=1), "it opened another revision window"
        assert await _money(policy.policy_id) == paid
        rows = await Settlement.select(
            Settlement.coverage_id, Settlement.detail, Settlement.revision, Settlement.revisions_until
        ).where(
            Settlement.coverage_id.is_in(list(windows))
        )
        assert all(r["revisions_until"] == until for r in rows)  # the window is not opened again
        revised = [r for r in rows if "after the revision window closed" in r["detail"]]
        assert revised, rows  # the rainfall covers' rows say why the revision was not settled
        assert all(r["revision"] == windows[r["coverage_id"]]["revision"] for r in rows)  # settled as it was

        # The activity itself, as a run started by anything would call it: again nothing (idempotent).
        at = await fresh.get_current_time()
        for _ in range(2):
            outcome = await ActivityEnvironment().run(
                settle_period, SettlePeriodInput(target_id=policy.target, start=policy.start, end=policy.end, at=at)
            )
            assert outcome.state == "SETTLED" and outcome.revisions_until == until
            assert all(c.events == 0 and c.paid_minor == 0 for c in outcome.coverages)
        assert await _money(policy.policy_id) == paid


async def test_the_migration_gives_the_periods_settled_before_it_their_window(database):
    """Periods settled before the window was kept: every coverage SETTLED → 90 days after
    the run that settled the last of them first (its earliest index record); a period with a
    coverage still waiting → none yet."""
    from importlib import import_module

    from models.db.core import insert_rows
    from models.db.tables import SettlementIndex

    backfill = import_module("models.db.migrations.parametric_2026_11_29t07_51_00_000000")
    target = f"T-{uuid.uuid4().hex[:12]}"
    t0 = dt.datetime(2026, 3, 4, 6, 0, tzinfo=dt.timezone.utc)
    settled = {uuid.uuid4(): t0, uuid.uuid4(): t0 + dt.timedelta(days=2)}  # the second settled two days later
    waiting = [uuid.uuid4(), uuid.uuid4()]
    rows = [
        Settlement(coverage_id=c, monitoring_target_id=target, period_start=dt.date(2026, 2, 1),
                   period_end=dt.date(2026, 2, 28), state="SETTLED", revision=1, updated_at=t0 + dt.timedelta(days=40))
        for c in settled
    ] + [
        Settlement(coverage_id=c, monitoring_target_id=target, period_start=dt.date(2026, 1, 1),
                   period_end=dt.date(2026, 1, 31), state=state, updated_at=t0)
        for c, state in zip(waiting, ("SETTLED", "FLAGGED"))
    ]
    await insert_rows(rows)
    await insert_rows([
        SettlementIndex(id=f"{c}:r{r}", coverage_id=c, revision=r, index_code="RAINFALL_MONTHLY_TOTAL",
                        data_set="IMD-RF-DAILY", index_value=Decimal(1), path=[], computed_at=at + dt.timedelta(days=9 * (r - 1)))
        for c, at in settled.items() for r in (1, 2)  # a revision's record later: the first counts
    ])
    await backfill.windows()
    found = {r["coverage_id"]: r["revisions_until"] for r in await Settlement.select(
        Settlement.coverage_id, Settlement.revisions_until).where(Settlement.monitoring_target_id == target)}
    assert {c: found[c] for c in settled} == {c: t0 + dt.timedelta(days=2) + REVISION_WINDOW for c in settled}
    assert [found[c] for c in waiting] == [None, None]
