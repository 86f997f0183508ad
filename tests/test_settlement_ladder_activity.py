"""The ladder's settlement activity run again and again (issue 34; real activity, real
database): exactly once. A cover paid INITIAL is not paid INITIAL again, however often it
is checked; the FINAL true-up is written once; each settlement has one snapshot; nothing is
written twice by a retry (a run at the same instant) or by later checks."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from temporalio.testing import ActivityEnvironment

from activities.settlement import settle_period
from models.clock import utcnow
from models.db import observations as observations_db
from models.db.tables import ParametricEvent, Payout, Settlement, SettlementSnapshot, WebhookMessage
from models.domain.observations import ObservationIn
from models.temporal.settlement import SettlePeriodInput
from tests.api.test_observation_revisions import settled_past_policy


async def _written(policy) -> tuple[list, int, int, list]:
    events = await ParametricEvent.select(
        ParametricEvent.settlement_key, ParametricEvent.stage, ParametricEvent.kind, ParametricEvent.payout_minor
    ).where(ParametricEvent.policy_id == policy.policy_id).order_by(ParametricEvent.settlement_key)
    payouts = await Payout.count().where(Payout.policy_id == policy.policy_id)
    messages = await WebhookMessage.count().where(WebhookMessage.policy_id == policy.policy_id)
    snapshots = await SettlementSnapshot.select(SettlementSnapshot.id, SettlementSnapshot.sha256).where(
        SettlementSnapshot.coverage_id == policy.excess_id
    ).order_by(SettlementSnapshot.revision)
    return events, payouts, messages, snapshots


async def _run(policy, at: dt.datetime):
    return await ActivityEnvironment().run(
        settle_period, SettlePeriodInput(target_id=policy.target, start=policy.start, end=policy.end, at=at)
    )


async def test_initial_and_its_true_up_are_each_written_once(database, tenant):
    policy = await settled_past_policy(tenant.id, Decimal(7), ladder=True)  # paid INITIAL (7 mm a day, provisional)
    first = await _written(policy)
    excess = [e for e in first[0] if e["payout_minor"] > 0]
    assert [(e["stage"], e["kind"]) for e in excess] == [("INITIAL", "SETTLEMENT")] and first[1] == 1 and first[2] == 2
    now = utcnow()
    for at in (now, now + dt.timedelta(days=1), now + dt.timedelta(days=8)):  # a retry, later checks
        outcome = await _run(policy, at)
        assert outcome.state == "INITIAL" and not any(c.events for c in outcome.coverages)
        assert await _written(policy) == first

    days = [policy.start + dt.timedelta(days=i) for i in range((policy.end - policy.start).days + 1)]
    await observations_db.store_batch(
        [ObservationIn(policy.target, "IMD-RF-DAILY", "rainfall_mm", d, None, Decimal(8), "IMD") for d in days]
    )
    at = now + dt.timedelta(days=40)
    outcome = await _run(policy, at)
    assert outcome.state == "SETTLED" and outcome.revisions_until is not None
    trued_up = await _written(policy)
    final = [e for e in trued_up[0] if e["stage"] == "FINAL"]
    assert len(final) == 2 and {e["kind"] for e in final} == {"ADJUSTMENT"}  # both covers: excess and deficit
    assert [s["id"].rsplit(":", 1)[1] for s in trued_up[3]] == ["s1", "s2"]
    for again in (at, at + dt.timedelta(days=7)):
        outcome = await _run(policy, again)
        assert outcome.state == "SETTLED" and not any(c.events for c in outcome.coverages)
        assert await _written(policy) == trued_up
    row = await Settlement.select(Settlement.state, Settlement.stage).where(Settlement.coverage_id == policy.excess_id).first()
    assert (row["state"], row["stage"]) == ("SETTLED", "FINAL")


async def test_without_final_values_by_the_true_up_deadline_the_best_rungs_settle_final(database, tenant):
    """The archive never comes: at the true-up deadline (450 days after the period) the
    calculation agent's final determination settles FINAL on the best rungs then available
    (here the provisional values, unreduced): the true-up pays the rest of the contract's
    payout on them."""
    policy = await settled_past_policy(tenant.id, Decimal(7), ladder=True)
    [initial] = [e for e in (await _written(policy))[0] if e["payout_minor"] > 0]
    before = dt.datetime.combine(policy.end + dt.timedelta(days=449), dt.time(0), tzinfo=dt.timezone.utc)
    assert (await _run(policy, before)).state == "INITIAL"
    outcome = await _run(policy, before + dt.timedelta(days=1))
    assert outcome.state == "SETTLED"
    events, _, _, snapshots = await _written(policy)
    [true_up] = [e for e in events if e["stage"] == "FINAL" and e["payout_minor"] > 0]
    days = (policy.end - policy.start).days + 1
    contract = int((Decimal(10_000) + 500 * (7 * days - Decimal("180.5"))) * Decimal("2.5") * 100)  # minor units
    assert initial["payout_minor"] + true_up["payout_minor"] == contract
    assert [s["id"].rsplit(":", 1)[1] for s in snapshots] == ["s1", "s2"]
    # The archive after the determination: it stands (the calculation agent's final word).
    settled = await _written(policy)
    await observations_db.store_batch([
        ObservationIn(policy.target, "IMD-RF-DAILY", "rainfall_mm", policy.start + dt.timedelta(days=i), None,
                      Decimal(9), "IMD") for i in range(days)
    ])
    assert (await _run(policy, before + dt.timedelta(days=2))).state == "SETTLED"
    assert await _written(policy) == settled
