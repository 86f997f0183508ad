"""Settlement on the source ladder (issue 34) over a month on the time-skipping server (real
worker, test server, real database): a month's rainfall cover is fed IMD's real-time product
day by day and paid INITIAL the second day after its period, then trued up FINAL when the
archive is loaded; a cover whose primary misses two days is paid INITIAL at the calculation
deadline with the calibrated fallback (ERA5) filling them. Each prints the day of each
payment. Hand-computed amounts below (docs/settlement.md, "Two payments")."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from decimal import Decimal

from models.db import observations as observations_db
from models.db.tables import (
    ParametricEvent,
    Settlement,
    SettlementDispute,
    SettlementIndex,
    SettlementSnapshot,
    WebhookMessage,
)
from models.domain.ladder import recompute, snapshot_hash
from models.domain.observations import ObservationIn
from models.domain.settlement_basis import CALCULATION_DEADLINE_DAYS
from models.temporal.ids import settlement_workflow_id
from models.temporal.search_attributes import SETTLEMENT_STATE
from models.temporal.settlement import DATA_CHANGED_SIGNAL
from tests.test_lifecycles_time_skipping import (  # noqa: F401 - fixtures
    advance,
    skipping_env,
    worker,
)
from tests.test_settlement_time_skipping import _at, _events, _policy

RAIN, FALLBACK = "IMD-RF-DAILY", "REAN-SFC-HOURLY"


def _days(s: dt.date, e: dt.date) -> list[dt.date]:
    return [s + dt.timedelta(days=i) for i in range((e - s).days + 1)]


def _spread(days: list[dt.date], total: Decimal) -> dict[dt.date, Decimal]:
    """`total` over the days, each to 0.0001 mm, summing exactly to it; alternate days 0.1 mm
    above and below the mean (the same non-zero value five days running is a flat line the
    quality checks store SUSPECT: docs/observations.md, "Quality checks")."""
    each = (total / len(days)).quantize(Decimal("0.0001"))
    values = [each + (Decimal("0.1") if i % 2 else Decimal("-0.1")) for i in range(len(days) - 1)]
    return dict(zip(days, [*values, total - sum(values, Decimal(0))]))


def _row(target, day, value, provisional, data_set=RAIN, source="IMD") -> ObservationIn:
    return ObservationIn(target, data_set, "rainfall_mm", day, None, value, source, provisional=provisional)


def _sources_apart(target: str, s: dt.date, e: dt.date) -> list[ObservationIn]:
    """Forty days before the period with the archive and ERA5 side by side (equal, ERA5
    0.2 mm wetter on odd days: the calibration's overlap), then the period's real-time grid
    at 200 mm (above the 180.5 mm trigger) and ERA5 at 150 mm (well below it)."""
    rows = []
    for i, day in enumerate(s - dt.timedelta(days=k) for k in range(40, 0, -1)):
        v = Decimal(i % 11) * 2
        rows += [_row(target, day, v, False), _row(target, day, v + (Decimal("0.2") if i % 2 else 0), False, FALLBACK, "open-meteo")]
    days = _days(s, e)
    rows += [_row(target, d, v, True) for d, v in _spread(days, Decimal("200")).items()]
    rows += [_row(target, d, v, True, FALLBACK, "open-meteo") for d, v in _spread(days, Decimal("150")).items()]
    return rows


async def _snapshots(coverage_id) -> list[dict]:
    return await SettlementSnapshot.select().where(SettlementSnapshot.coverage_id == coverage_id).order_by(
        SettlementSnapshot.revision
    )


def _assert_reruns(snapshot: dict) -> dict:
    """Anyone can re-run the snapshot: its hash and its result from its values alone."""
    body = json.loads(snapshot["body"])
    assert snapshot_hash(body) == snapshot["sha256"]
    assert recompute(body) == body["result"]
    return body


async def test_paid_initial_on_the_real_time_product_then_trued_up_on_the_archive(skipping_env, worker):
    env = skipping_env
    target, tenant_id, policy_id, months, handle = await _policy(env, worker, None, months=1, ladder=True)
    (s, e), = months
    # IMD's real-time grid, published the day after each day: 200 mm over the month.
    provisional = _spread(_days(s, e), Decimal("200"))
    for day, value in provisional.items():
        await advance(env, worker, _at(day + dt.timedelta(days=1)) + dt.timedelta(hours=1) - await env.get_current_time())
        await observations_db.store_batch([_row(target, day, value, True)])
    settlement = env.client.get_workflow_handle(settlement_workflow_id(target, s, e))
    await advance(env, worker, _at(e) + dt.timedelta(days=3) - await env.get_current_time())

    [initial] = [x for x in await _events(policy_id) if x["event_type"] == "EXCESS_RAINFALL"]
    paid_on = (initial["validated_day"] - e).days
    print(f"\nINITIAL payment {initial['payout_minor'] / 100:.2f} INR on day {paid_on} after the period's end ({e})")
    assert paid_on == 2 <= CALCULATION_DEADLINE_DAYS  # the day after the end + one day's latency
    # 31 or 30 days of ±2 mm: error √(n × 4) to 0.01; the INITIAL index 200 − error.
    n = len(provisional)
    error = (Decimal(n) * 4).sqrt().quantize(Decimal("0.01"))
    paid_index = Decimal(200) - error
    per_unit = Decimal(10_000) + 500 * (paid_index - Decimal("180.5"))
    assert initial["stage"] == "INITIAL" and initial["kind"] == "SETTLEMENT" and initial["revision"] == 1
    assert initial["payout_minor"] == int((per_unit * Decimal("2.5") * 100).quantize(Decimal(1)))
    assert Decimal(initial["index_value"]) == paid_index
    explanation = initial["explanation"] if isinstance(initial["explanation"], dict) else json.loads(initial["explanation"])
    assert explanation["stage"] == "INITIAL" and explanation["indexError"] == str(error)
    index = await SettlementIndex.select().where(SettlementIndex.id == f"{initial['coverage_id']}:r1").first()
    path = index["path"] if isinstance(index["path"], list) else json.loads(index["path"])
    assert {(p["rung"], p["dataSet"], p["source"], p["error"]) for p in path} == {("PROVISIONAL", RAIN, "IMD", "2")}
    row = await Settlement.select().where(Settlement.coverage_id == initial["coverage_id"]).first()
    assert (row["state"], row["stage"]) == ("INITIAL", "INITIAL")
    assert (await settlement.describe()).typed_search_attributes.get(SETTLEMENT_STATE) == "INITIAL"
    messages = await WebhookMessage.select(WebhookMessage.payload).where(WebhookMessage.tenant_id == tenant_id)
    stages = {(p if isinstance(p, dict) else json.loads(p))["data"]["stage"] for p in (m["payload"] for m in messages)
              if "stage" in str(p)}
    assert stages == {"INITIAL"}

    # The archive, two months on: 204 mm. The true-up pays the contract's payout at 204 mm
    # (10,000 + 500 × 23.5 per unit, × 2.5) less what INITIAL paid.
    await advance(env, worker, _at(e) + dt.timedelta(days=60) - await env.get_current_time())
    # A policy whose covers are all INITIAL may expire; the true-up still pays it.
    assert await asyncio.wait_for(handle.result(), 60) == "EXPIRED"
    archive = _spread(_days(s, e), Decimal("204"))
    await observations_db.store_batch([_row(target, d, v, False) for d, v in archive.items()])
    with env.auto_time_skipping_disabled():
        await settlement.signal(DATA_CHANGED_SIGNAL)
    await advance(env, worker, dt.timedelta(hours=1))
    [_, final] = [x for x in await _events(policy_id) if x["event_type"] == "EXCESS_RAINFALL"]
    print(f"FINAL true-up {final['payout_minor'] / 100:.2f} INR on day {(final['validated_day'] - e).days} after the period's end")
    assert (final["stage"], final["kind"], final["revision"]) == ("FINAL", "ADJUSTMENT", 2)
    assert initial["payout_minor"] + final["payout_minor"] == 5_437_500  # 21,750 × 2.5 INR
    assert (await settlement.query("status"))["state"] == "SETTLED"
    row = await Settlement.select().where(Settlement.coverage_id == initial["coverage_id"]).first()
    assert (row["state"], row["stage"], row["revision"]) == ("SETTLED", "FINAL", 2)
    assert row["revisions_until"] is not None  # the revision window opens only after FINAL
    snapshots = await _snapshots(initial["coverage_id"])
    assert [(x["revision"], x["stage"]) for x in snapshots] == [(1, "INITIAL"), (2, "FINAL")]
    bodies = [_assert_reruns(x) for x in snapshots]
    assert bodies[1]["result"]["paidIndex"] == "204" and {v["rung"] for v in bodies[1]["values"]} == {"FINAL"}
    # The deficit cover (never triggered) is settled at both stages, paying nothing.
    deficit = [x for x in await _events(policy_id) if x["event_type"] == "RAINFALL_DEFICIT"]
    assert [(x["stage"], x["payout_minor"]) for x in deficit] == [("INITIAL", 0), ("FINAL", 0)]


async def test_a_negative_true_up_is_waived(skipping_env, worker):
    env = skipping_env
    target, tenant_id, policy_id, months, handle = await _policy(env, worker, None, months=1, ladder=True)
    (s, e), = months
    await observations_db.store_batch([_row(target, d, v, True) for d, v in _spread(_days(s, e), Decimal("250")).items()])
    await advance(env, worker, _at(e) + dt.timedelta(days=3) - await env.get_current_time())
    [initial] = [x for x in await _events(policy_id) if x["event_type"] == "EXCESS_RAINFALL"]
    # The archive says 185 mm: the contract pays 12,250 per unit, less than INITIAL paid.
    await observations_db.store_batch([_row(target, d, v, False) for d, v in _spread(_days(s, e), Decimal("185")).items()])
    settlement = env.client.get_workflow_handle(settlement_workflow_id(target, s, e))
    with env.auto_time_skipping_disabled():
        await settlement.signal(DATA_CHANGED_SIGNAL)
    await advance(env, worker, dt.timedelta(hours=1))
    [_, final] = [x for x in await _events(policy_id) if x["event_type"] == "EXCESS_RAINFALL"]
    explanation = final["explanation"] if isinstance(final["explanation"], dict) else json.loads(final["explanation"])
    assert (final["stage"], final["payout_minor"]) == ("FINAL", 0)
    assert explanation["waivedMinor"] == initial["payout_minor"] - 3_062_500 > 0  # 12,250 × 2.5 INR
    assert "waived" in explanation["waived"]


async def test_the_fallback_fills_two_missing_days_at_the_calculation_deadline(skipping_env, worker):
    env = skipping_env
    target, tenant_id, policy_id, months, handle = await _policy(env, worker, None, months=1, ladder=True)
    (s, e), = months
    # Sixty days before the period with the archive and ERA5 side by side (ERA5 ≈ 0.8 × IMD
    # + 1, ±0.3): the stored overlap the calibration is fitted on.
    overlap = [s - dt.timedelta(days=i) for i in range(60, 0, -1)]
    rows = []
    for i, day in enumerate(overlap):
        imd = Decimal(i % 13) * 2
        rows.append(_row(target, day, imd, False))
        rows.append(_row(target, day, imd * Decimal("0.8") + 1 + (Decimal("0.3") if i % 2 else Decimal("-0.3")),
                         False, FALLBACK, "open-meteo"))
    # The period: IMD's real-time grid lacks two days; ERA5 has every day.
    days = _days(s, e)
    missing = days[9:11]
    imd = _spread(days, Decimal("200"))
    rows += [_row(target, d, v, True) for d, v in imd.items() if d not in missing]
    rows += [_row(target, d, v * Decimal("0.8") + 1, True, FALLBACK, "open-meteo") for d, v in imd.items()]
    await observations_db.store_batch(rows)
    settlement = env.client.get_workflow_handle(settlement_workflow_id(target, s, e))

    await advance(env, worker, _at(e) + dt.timedelta(days=CALCULATION_DEADLINE_DAYS - 1, hours=1) - await env.get_current_time())
    assert [x for x in await _events(policy_id)] == []  # not before the deadline
    status = await settlement.query("status")
    assert status["state"] == "WAITING" and "no usable value for 2 day(s)" in status["coverages"][0]["detail"]
    await advance(env, worker, dt.timedelta(days=1))

    [initial] = [x for x in await _events(policy_id) if x["event_type"] == "EXCESS_RAINFALL"]
    paid_on = (initial["validated_day"] - e).days
    print(f"\nINITIAL payment {initial['payout_minor'] / 100:.2f} INR on day {paid_on} after the period's end "
          f"(two days from the calibrated fallback)")
    assert paid_on == CALCULATION_DEADLINE_DAYS and initial["stage"] == "INITIAL"
    [snapshot] = await _snapshots(initial["coverage_id"])
    body = _assert_reruns(snapshot)
    fallback_days = [v for v in body["values"] if v["rung"] == "FALLBACK"]
    assert [v["day"] for v in fallback_days] == [d.isoformat() for d in missing]
    assert {v["dataSet"] for v in fallback_days} == {FALLBACK}
    calibration = body["calibration"]
    assert calibration["scope"] == "target" and calibration["pairs"] == 60
    assert abs(Decimal(calibration["slope"]) - Decimal("1.25")) < Decimal("0.05")
    # Paid what the snapshot's result says, × 2.5 units.
    per_unit = Decimal(body["result"]["payoutPerUnit"])
    assert initial["payout_minor"] == int((per_unit * Decimal("2.5") * 100).quantize(Decimal(1)))
    assert Decimal(initial["index_value"]) == Decimal(body["result"]["paidIndex"])
    rows = await ParametricEvent.select().where(ParametricEvent.policy_id == policy_id)
    assert {r["stage"] for r in rows} == {"INITIAL"}


async def test_a_final_only_cover_keeps_its_timing_and_writes_a_snapshot_too(skipping_env, worker):
    """A cover sold before the ladder (no basis) settles as before: on final values, the day
    after its period + 3 days, at stage FINAL; its settlement's snapshot re-runs to what it paid."""
    env = skipping_env
    target, tenant_id, policy_id, months, handle = await _policy(env, worker, [Decimal("200")], months=1)
    (s, e), = months
    await advance(env, worker, _at(e) + dt.timedelta(days=5) - await env.get_current_time())
    [event] = [x for x in await _events(policy_id) if x["event_type"] == "EXCESS_RAINFALL"]
    assert (event["stage"], event["validated_day"], event["payout_minor"]) == ("FINAL", e + dt.timedelta(days=4), 4_937_500)
    [snapshot] = await _snapshots(event["coverage_id"])
    body = _assert_reruns(snapshot)
    assert (snapshot["revision"], snapshot["stage"]) == (1, "FINAL") and {v["rung"] for v in body["values"]} == {"FINAL"}
    assert Decimal(body["result"]["payoutPerUnit"]) * Decimal("2.5") * 100 == event["payout_minor"]


async def test_sources_that_disagree_hold_the_payment_until_decided(skipping_env, worker):
    """IMD's real-time grid puts the month above the trigger (200 mm), the calibrated ERA5
    well below it (about 150 mm): DISPUTED, nothing paid, one open dispute, however often it
    is checked; once decided PRIMARY (two data staff, package `disputes`' API; written here
    as it writes it) and told, the INITIAL payment is made on the primary."""
    env = skipping_env
    target, tenant_id, policy_id, months, handle = await _policy(env, worker, None, months=1, ladder=True)
    (s, e), = months
    await observations_db.store_batch(_sources_apart(target, s, e))
    settlement = env.client.get_workflow_handle(settlement_workflow_id(target, s, e))
    await advance(env, worker, _at(e) + dt.timedelta(days=5) - await env.get_current_time())
    assert [x for x in await _events(policy_id) if x["event_type"] == "EXCESS_RAINFALL"] == []  # the deficit side agrees
    assert (await settlement.describe()).typed_search_attributes.get(SETTLEMENT_STATE) == "DISPUTED"
    disputes = await SettlementDispute.select().where(SettlementDispute.monitoring_target_id == target)
    excess = [d for d in disputes if Decimal(d["primary_index"]) == Decimal("200")]
    assert len(excess) == 1 and excess[0]["state"] == "OPEN" and excess[0]["other_source"] == "FALLBACK"
    assert Decimal(excess[0]["other_index"]) < Decimal("180.5")

    await SettlementDispute.update({SettlementDispute.state: "DECIDED", SettlementDispute.decision: "PRIMARY",
                                    SettlementDispute.decided_by: "staff:b", SettlementDispute.proposed_by: "staff:a",
                                    SettlementDispute.decided_at: await env.get_current_time()}).where(
        SettlementDispute.id == excess[0]["id"])
    with env.auto_time_skipping_disabled():
        await settlement.signal(DATA_CHANGED_SIGNAL)
    await advance(env, worker, dt.timedelta(hours=1))
    [initial] = [x for x in await _events(policy_id) if x["event_type"] == "EXCESS_RAINFALL"]
    print(f"\nINITIAL payment {initial['payout_minor'] / 100:.2f} INR on day {(initial['validated_day'] - e).days} "
          f"after the period's end, once the dispute was decided")
    assert initial["stage"] == "INITIAL" and initial["payout_minor"] > 0
    body = _assert_reruns((await _snapshots(initial["coverage_id"]))[0])
    assert {v["rung"] for v in body["values"]} == {"PROVISIONAL"}


async def test_a_dispute_the_data_settle_is_closed_not_left_open(skipping_env, worker):
    """The sources disagree (DISPUTED, one OPEN dispute); then IMD revises its real-time values
    to agree with the fallback (both below the trigger). The settlement pays INITIAL on them
    and closes the dispute (CLOSED, why in its detail): it is not left OPEN for data staff to
    decide, and deciding it now is refused (409's NotOpen). Before, the dispute stayed OPEN and
    a later disagreement of the true-up found it instead of opening its own."""
    from models.db import dispute_decisions

    env = skipping_env
    target, tenant_id, policy_id, months, handle = await _policy(env, worker, None, months=1, ladder=True)
    (s, e), = months
    await observations_db.store_batch(_sources_apart(target, s, e))
    days = _days(s, e)
    settlement = env.client.get_workflow_handle(settlement_workflow_id(target, s, e))
    await advance(env, worker, _at(e) + dt.timedelta(days=5) - await env.get_current_time())
    assert (await settlement.describe()).typed_search_attributes.get(SETTLEMENT_STATE) == "DISPUTED"
    [dispute] = [d for d in await SettlementDispute.select().where(SettlementDispute.monitoring_target_id == target)
                 if Decimal(d["primary_index"]) == Decimal("200")]
    assert dispute["state"] == "OPEN"

    await observations_db.store_batch([_row(target, d, v, True) for d, v in _spread(days, Decimal("155")).items()])
    with env.auto_time_skipping_disabled():
        await settlement.signal(DATA_CHANGED_SIGNAL)
    await advance(env, worker, dt.timedelta(hours=1))
    row = await SettlementDispute.select().where(SettlementDispute.id == dispute["id"]).first()
    assert row["state"] == "CLOSED" and "agree again" in row["detail"], row
    [initial] = [x for x in await _events(policy_id) if x["event_type"] == "EXCESS_RAINFALL"]
    assert initial["stage"] == "INITIAL" and initial["payout_minor"] == 0  # 155 mm less its error: below 180.5
    assert (await settlement.describe()).typed_search_attributes.get(SETTLEMENT_STATE) == "INITIAL"
    try:
        await dispute_decisions.decide(dispute["coverage_id"], "PRIMARY", "the grid is right", "staff:a", "id-a")
    except dispute_decisions.NotOpen as refused:
        assert "closed" in str(refused)
    else:
        raise AssertionError("a closed dispute was decided")
