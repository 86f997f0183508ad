"""A held observation revision's workflow on the time-skipping server: its update refuses
the submitter's own approval and a decision of a decided revision (the validator, before
anything is written), and a revision nobody decides is refused as expired after
REVISION_HOLD_LIMIT, storing nothing."""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal

import pytest
from temporalio.client import WorkflowUpdateFailedError
from temporalio.exceptions import ApplicationError

from api.auth.tenants import create_staff
from models.clock import utcnow
from models.db import observation_revisions as revisions_db
from models.db.tables import Observation, ObservationRevision
from api.settlement.observations import hold_in_temporal
from models.temporal.observations import (
    DECIDE_UPDATE,
    FOUR_EYES,
    RevisionDecided,
    RevisionDecision,
    held_input,
)
from tests.test_lifecycles_time_skipping import advance, result_of, skipping_env, worker  # noqa: F401 - fixtures
from workflows.observations import REVISION_HOLD_LIMIT

async def _held_revision(submitted_by: str, target: str) -> dict:
    """A HELD revision's row (written directly: what is held, and why, is tested over HTTP)."""
    revision_id = uuid.uuid4()
    day = dt.date.today() - dt.timedelta(days=40)
    held = {
        "monitoringTargetId": target, "dataSet": "IMD-RF-DAILY", "variable": "rainfall_mm", "day": day.isoformat(),
        "hour": None, "value": "12", "source": "IMD", "quality": "GOOD", "provisional": False, "simulated": False,
        "revises": 0, "previousValue": "0", "previousQuality": "GOOD", "previousProvisional": False,
    }
    await ObservationRevision.insert(ObservationRevision(
        id=revision_id, state="HELD", submitted_by=submitted_by, reason="test", rows=[held], row_count=1,
        settlements=[], fingerprint=uuid.uuid4().hex, created_at=utcnow(), decided_by="", decided_at=None,
        decision_reason="",
    ))
    return await revisions_db.revision(revision_id)


async def test_the_update_refuses_the_submitters_approval_and_a_second_decision(skipping_env, worker):
    env = skipping_env
    row = await _held_revision("staff:dana", "IN-28.625N-077.125E")
    with env.auto_time_skipping_disabled():
        handle = env.client.get_workflow_handle(await hold_in_temporal(env.client, worker, held_input(row)))
        with pytest.raises(WorkflowUpdateFailedError) as own:
            await handle.execute_update(DECIDE_UPDATE, RevisionDecision("APPROVED", "staff:dana"), result_type=RevisionDecided)
        assert isinstance(own.value.cause, ApplicationError) and own.value.cause.type == FOUR_EYES
        # The decider is checked against the staff table (issue 33): a data staff member of it.
        devi = f"devi-{uuid.uuid4().hex[:6]}"
        await create_staff(devi, ["data"], "test", email=f"{devi}@staff.example")
        decided = await handle.execute_update(
            DECIDE_UPDATE, RevisionDecision("APPROVED", f"staff:{devi}", "checked"), result_type=RevisionDecided
        )
        assert (decided.state, decided.decided_by, decided.stored) == ("APPROVED", f"staff:{devi}", 1)
    assert await result_of(env, handle.id) == "APPROVED"
    stored = await Observation.select(Observation.value, Observation.submitted_by, Observation.approved_by).where(
        Observation.obs_key == f"IN-28.625N-077.125E|IMD-RF-DAILY|rainfall_mm|{row['rows'][0]['day']}|"
    )
    assert stored == [{"value": Decimal(12), "submitted_by": "staff:dana", "approved_by": f"staff:{devi}"}]


async def test_an_undecided_revision_is_refused_as_expired(skipping_env, worker):
    env = skipping_env
    target = "IN-28.625N-077.375E"
    row = await _held_revision("provider:imd-grid", target)
    with env.auto_time_skipping_disabled():
        workflow_id = await hold_in_temporal(env.client, worker, held_input(row))
    await advance(env, worker, REVISION_HOLD_LIMIT + dt.timedelta(days=1))
    assert await result_of(env, workflow_id) == "REFUSED"
    after = await revisions_db.revision(row["id"])
    assert (after["state"], after["decided_by"]) == ("REFUSED", "system")
    assert after["decision_reason"] == f"expired: not decided within {REVISION_HOLD_LIMIT.days} days"
    assert await Observation.count().where(Observation.monitoring_target_id == target) == 0
    handle = env.client.get_workflow_handle(workflow_id)
    with pytest.raises(Exception):  # closed: no update reaches it (the API answers 409 from the row first)
        await handle.execute_update(DECIDE_UPDATE, RevisionDecision("APPROVED", "staff:devi"), result_type=RevisionDecided)
