"""Data stored after a settlement's revision window does not re-settle it (docs/observations.md,
"Settlements are told"): the settlement's last run completed when its window closed, and the
tell (signal-with-start) started it again: it re-settled the period long after the window with
adjustments, and opened another 90-day window, as every late notice would again. Now the
settlement is not started again and the notice is closed. On the time-skipping server: the
real settlement workflow and activities run through their 90 days."""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal

from temporalio.client import WorkflowExecutionStatus

from api.settlement.observations import tell_settlements
from models.db import observations as observations_db
from models.db.tables import ParametricEvent, SettlementNotice
from models.domain.observations import ObservationIn
from models.temporal.ids import settlement_workflow_id
from models.temporal.queues import task_queue
from models.temporal.settlement import data_changed_start
from tests.api.test_observation_revisions import settled_past_policy
from tests.test_lifecycles_time_skipping import result_of, skipping_env, worker  # noqa: F401 - fixtures


async def test_a_notice_after_the_revision_window_is_closed_not_told(skipping_env, worker):
    env, lifecycle = skipping_env, task_queue(worker, "lifecycle")
    policy = await settled_past_policy(str(uuid.uuid4()), Decimal(10), settle=False)  # 10 mm a day: the excess pays
    workflow_id = settlement_workflow_id(policy.target, policy.start, policy.end)
    await env.client.start_workflow(**data_changed_start(policy.target, policy.start, policy.end, lifecycle))
    assert await result_of(env, workflow_id, timeout=300) == "SETTLED"  # settled, then 90 days without a revision
    closed = await env.client.get_workflow_handle(workflow_id).describe()
    assert closed.status == WorkflowExecutionStatus.COMPLETED
    events = await ParametricEvent.count().where(ParametricEvent.policy_id == policy.policy_id)
    assert events > 0

    days = [policy.start + dt.timedelta(days=i) for i in range((policy.end - policy.start).days + 1)]
    stored = await observations_db.store_batch(
        [ObservationIn(policy.target, "IMD-RF-DAILY", "rainfall_mm", d, None, Decimal(20), "IMD") for d in days]
    )
    assert stored.revised == len(days) and len(stored.notices) == 1
    told = await tell_settlements(env.client, lifecycle, stored.notices)

    after = await env.client.get_workflow_handle(workflow_id).describe()
    assert (after.status, after.run_id) == (WorkflowExecutionStatus.COMPLETED, closed.run_id), "started again"
    assert told == 0
    [notice] = await SettlementNotice.select(SettlementNotice.notified_at, SettlementNotice.settlements).where(
        SettlementNotice.id == stored.notices[0]
    )
    assert notice["notified_at"] is not None and notice["settlements"] == 0  # closed, not left for the sweep
    assert await ParametricEvent.count().where(ParametricEvent.policy_id == policy.policy_id) == events
