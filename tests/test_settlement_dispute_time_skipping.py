"""Sources that disagree (issue 34; docs/settlement.md, "Sources that disagree") on the
time-skipping server (real worker, test server, real database): a month's rainfall cover
whose primary (IMD's real-time grid: 150 mm, below the 180.5 mm trigger) and calibrated
fallback (ERA5: about 230 mm, above it) lie on different sides of the trigger beyond the
ladder's 10 mm tolerance is DISPUTED (the settlement row, an OPEN dispute, the workflow's
`SettlementState`), pays nothing, and stays so with only one data staff member's proposal;
once a second, different one confirms it, the settlement is told (the notice written with
the decision) and pays INITIAL on the chosen source. Prints the day of the payment."""

from __future__ import annotations

import datetime as dt
import json
import uuid
from decimal import Decimal

import pytest

from api.auth.tenants import create_staff
from api.settlement.observations import tell_settlements
from models.db import dispute_decisions
from models.db import observations as observations_db
from models.db.tables import Settlement, SettlementDispute, SettlementSnapshot
from models.domain.ladder import recompute, snapshot_hash
from models.temporal.ids import settlement_workflow_id
from models.temporal.queues import task_queue
from models.temporal.search_attributes import SETTLEMENT_STATE
from tests.test_lifecycles_time_skipping import (  # noqa: F401 - fixtures
    advance,
    skipping_env,
    worker,
)
from tests.test_settlement_ladder_time_skipping import FALLBACK, _days, _row
from tests.test_settlement_time_skipping import _at, _events, _policy


def _weighted(days: list[dt.date], total: Decimal) -> dict[dt.date, Decimal]:
    """`total` over the days in the weights 1, 2, 3, 1, 2, 3, … (no two days alike in a row),
    each to 0.01 mm, summing exactly to it."""
    weights = [1 + i % 3 for i in range(len(days))]
    each = [(total * w / sum(weights)).quantize(Decimal("0.01")) for w in weights]
    each[-1] = total - sum(each[:-1])
    return dict(zip(days, each))


async def _staff(settings, name: str) -> tuple[str, str]:
    """A new data staff member: (actor, stable staff id)."""
    name = f"{name}-{uuid.uuid4().hex[:6]}"
    made = await create_staff(name, ["data"], settings.scope, email=f"{name}@staff.example")
    return f"staff:{name}", made.client_id


async def test_disputed_until_two_data_staff_members_decide_then_paid_on_the_source_chosen(skipping_env, worker, settings):
    env = skipping_env
    target, tenant_id, policy_id, months, handle = await _policy(env, worker, None, months=1, ladder=True)
    (s, e), = months
    days = _days(s, e)
    # Sixty days before the period with the archive and ERA5 side by side (ERA5 ≈ 0.8 × IMD
    # + 1, ±0.3): the stored overlap the calibration is fitted on (IMD ≈ 1.25 × ERA5 − 1.25).
    rows = []
    for i, day in enumerate(s - dt.timedelta(days=k) for k in range(60, 0, -1)):
        imd = Decimal(i % 13) * 2
        rows.append(_row(target, day, imd, False))
        rows.append(_row(target, day, imd * Decimal("0.8") + 1 + (Decimal("0.3") if i % 2 else Decimal("-0.3")),
                         False, FALLBACK, "open-meteo"))
    # The period: IMD's real-time grid says 150 mm; ERA5 says what calibrates to about 230.
    rows += [_row(target, d, v, True) for d, v in _weighted(days, Decimal(150)).items()]
    rows += [_row(target, d, ((v + Decimal("1.25")) / Decimal("1.25")).quantize(Decimal("0.01")), True, FALLBACK, "open-meteo")
             for d, v in _weighted(days, Decimal(230)).items()]
    await observations_db.store_batch(rows)
    settlement = env.client.get_workflow_handle(settlement_workflow_id(target, s, e))

    # Due the second day after the period: DISPUTED, nothing paid on the excess cover.
    await advance(env, worker, _at(e) + dt.timedelta(days=3) - await env.get_current_time())
    excess = [x for x in await _events(policy_id) if x["event_type"] == "EXCESS_RAINFALL"]
    assert excess == []
    status = await settlement.query("status")
    assert status["state"] == "DISPUTED"
    assert (await settlement.describe()).typed_search_attributes.get(SETTLEMENT_STATE) == "DISPUTED"
    [dispute] = await SettlementDispute.select().where(SettlementDispute.monitoring_target_id == target)
    coverage_id = dispute["coverage_id"]
    assert (dispute["state"], dispute["other_source"], dispute["primary_index"]) == ("OPEN", "FALLBACK", Decimal(150))
    assert dispute["other_index"] > Decimal("190.5")  # across the trigger, beyond the 10 mm tolerance
    row = await Settlement.select().where(Settlement.coverage_id == coverage_id).first()
    assert row["state"] == "DISPUTED"
    print(f"\nstill DISPUTED on day {(await env.get_current_time()).date().toordinal() - e.toordinal()} after the period's end: "
          f"IMD {dispute['primary_index']} mm against the calibrated ERA5 {dispute['other_index']} mm")

    # One data staff member's proposal decides nothing; the proposer cannot confirm it.
    first, second = await _staff(settings, "dana"), await _staff(settings, "devi")
    proposed = await dispute_decisions.decide(coverage_id, "FALLBACK", "the IMD gauge was blocked mid-month",
                                              *first)
    assert proposed.dispute["state"] == "PROPOSED" and proposed.notices == []
    with pytest.raises(dispute_decisions.FourEyes):
        await dispute_decisions.decide(coverage_id, "FALLBACK", "confirmed", *first)
    await advance(env, worker, dt.timedelta(days=1))
    assert [x for x in await _events(policy_id) if x["event_type"] == "EXCESS_RAINFALL"] == []
    assert (await settlement.query("status"))["state"] == "DISPUTED"

    # A second, different one confirms: DECIDED; the settlement is told and pays INITIAL on
    # the calibrated fallback.
    decided = await dispute_decisions.decide(coverage_id, "FALLBACK", "ERA5 and the district reports agree",
                                             *second)
    assert decided.dispute["state"] == "DECIDED" and decided.decided_now and len(decided.notices) == 1
    assert await tell_settlements(env.client, task_queue(worker, "lifecycle"), decided.notices) == 1
    await advance(env, worker, dt.timedelta(hours=1))

    [initial] = [x for x in await _events(policy_id) if x["event_type"] == "EXCESS_RAINFALL"]
    paid_on = (initial["validated_day"] - e).days
    print(f"INITIAL payment {initial['payout_minor'] / 100:.2f} INR on day {paid_on} after the period's end "
          "(on the calibrated fallback, decided by two data staff members)")
    assert initial["stage"] == "INITIAL" and initial["kind"] == "SETTLEMENT"
    assert paid_on == 4  # disputed from day 2 (its first check), proposed on day 3, confirmed on day 4
    [snapshot] = await SettlementSnapshot.select().where(SettlementSnapshot.coverage_id == coverage_id)
    body = json.loads(snapshot["body"])
    assert snapshot_hash(body) == snapshot["sha256"] and recompute(body) == body["result"]
    assert {v["rung"] for v in body["values"]} == {"FALLBACK"} and body["calibration"]["pairs"] == 60
    assert Decimal(body["result"]["paidIndex"]) > Decimal("180.5")
    per_unit = Decimal(body["result"]["payoutPerUnit"])
    assert initial["payout_minor"] == int((per_unit * Decimal("2.5") * 100).quantize(Decimal(1))) > 0
    row = await Settlement.select().where(Settlement.coverage_id == coverage_id).first()
    assert (row["state"], row["stage"]) == ("INITIAL", "INITIAL")
    assert (await settlement.describe()).typed_search_attributes.get(SETTLEMENT_STATE) == "INITIAL"


async def test_a_true_up_across_the_trigger_waits_for_two_data_staff_members(skipping_env, worker, settings):
    """The INITIAL payment on IMD's real-time 200 mm, then the archive's 170 mm: the final
    index and the INITIAL one lie on different sides of the trigger beyond the tolerance,
    so the true-up is DISPUTED (FINAL against PROVISIONAL) until two data staff members
    decide; FINAL decided, the true-up settles on the archive: the contract pays nothing
    at 170 mm and the negative true-up is waived (an ADJUSTMENT of 0)."""
    env = skipping_env
    target, tenant_id, policy_id, months, handle = await _policy(env, worker, None, months=1, ladder=True)
    (s, e), = months
    days = _days(s, e)
    await observations_db.store_batch([_row(target, d, v, True) for d, v in _weighted(days, Decimal(200)).items()])
    await advance(env, worker, _at(e) + dt.timedelta(days=3) - await env.get_current_time())
    [initial] = [x for x in await _events(policy_id) if x["event_type"] == "EXCESS_RAINFALL"]
    assert initial["stage"] == "INITIAL" and initial["payout_minor"] > 0
    print(f"\nINITIAL payment {initial['payout_minor'] / 100:.2f} INR on day {(initial['validated_day'] - e).days}")

    await advance(env, worker, _at(e) + dt.timedelta(days=60) - await env.get_current_time())
    archive = await observations_db.store_batch([_row(target, d, v, False) for d, v in _weighted(days, Decimal(170)).items()])
    settlement = env.client.get_workflow_handle(settlement_workflow_id(target, s, e))
    assert await tell_settlements(env.client, task_queue(worker, "lifecycle"), archive.notices) == 1
    await advance(env, worker, dt.timedelta(hours=1))
    assert [x["stage"] for x in await _events(policy_id) if x["event_type"] == "EXCESS_RAINFALL"] == ["INITIAL"]
    assert (await settlement.describe()).typed_search_attributes.get(SETTLEMENT_STATE) == "DISPUTED"
    [dispute] = await SettlementDispute.select().where(SettlementDispute.monitoring_target_id == target)
    assert (dispute["state"], dispute["other_source"]) == ("OPEN", "PROVISIONAL")
    assert (dispute["primary_index"], dispute["other_index"]) == (Decimal(170), Decimal(200))
    assert dispute_decisions.choices(dispute) == ("FINAL", "PROVISIONAL")

    first, second = await _staff(settings, "dana"), await _staff(settings, "devi")
    with pytest.raises(dispute_decisions.BadSource):
        await dispute_decisions.decide(dispute["coverage_id"], "FALLBACK", "ERA5", *first)
    await dispute_decisions.decide(dispute["coverage_id"], "FINAL", "the archive is the contract's final product", *first)
    decided = await dispute_decisions.decide(dispute["coverage_id"], "FINAL", "agreed", *second)
    assert await tell_settlements(env.client, task_queue(worker, "lifecycle"), decided.notices) == 1
    await advance(env, worker, dt.timedelta(hours=1))

    [_, final] = [x for x in await _events(policy_id) if x["event_type"] == "EXCESS_RAINFALL"]
    print(f"FINAL true-up {final['payout_minor'] / 100:.2f} INR on day {(final['validated_day'] - e).days} "
          "(decided FINAL by two data staff members; the negative true-up waived)")
    assert (final["stage"], final["kind"], final["payout_minor"]) == ("FINAL", "ADJUSTMENT", 0)
    explanation = final["explanation"] if isinstance(final["explanation"], dict) else json.loads(final["explanation"])
    assert explanation["waivedMinor"] == initial["payout_minor"]
    row = await Settlement.select().where(Settlement.coverage_id == dispute["coverage_id"]).first()
    assert (row["state"], row["stage"]) == ("SETTLED", "FINAL")
    assert (await settlement.describe()).typed_search_attributes.get(SETTLEMENT_STATE) == "SETTLED"
