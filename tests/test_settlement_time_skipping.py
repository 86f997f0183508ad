"""Settlement over months on the time-skipping server: a 12-month policy settles every month
from loaded observations with the payouts its terms give (hand-computed below), expires
after its last settlement; a cancelled policy is paid nothing after its cancellation;
missing data is flagged, then settled when it arrives; a revision of final data records
an adjustment."""

from __future__ import annotations

import asyncio
import datetime as dt
import uuid
from decimal import Decimal

import msgspec

from models.clock import utcnow
from models.db import observations as observations_db
from models.db import policies as policies_db
from models.db import quotes as quotes_db
from models.db.tables import Coverage, MonitoringTarget, ParametricEvent, Payout, Settlement
from models.domain.index_catalog import BY_CODE
from models.domain.observations import ObservationIn
from models.domain.quotes import build_quote, month_segments
from models.domain.settlement_basis import basis_for, encode_basis
from models.domain.terms import CoverageSlot
from models.temporal.ids import policy_workflow_id, settlement_workflow_id
from models.temporal.policies import PolicyWorkflowInput
from models.temporal.quotes import ConvertQuoteInput, CoverSnapshot
from models.temporal.settlement import DATA_CHANGED_SIGNAL, STATUS_QUERY, SettlementWorkflowStatus
from tests.test_lifecycles_time_skipping import (  # noqa: F401 - fixtures
    ClockWorkflow,
    advance,
    skipping_env,
    worker,
)
from workflows.policies import PolicyWorkflow
from workflows.settlement import DATA_LATENCY, MISSING_DATA_WINDOW

EXCESS, DEFICIT = "RAINFALL_MONTHLY_TOTAL", "RAINFALL_DEFICIT"
# Per unit of cover (limit 100,000 INR): excess pays 10,000 at 180.5 mm and 500 per mm
# beyond; deficit 10,000 at 12.5 mm and 500 per mm below. Sum insured 250,000: 2.5 units.
TERMS = {
    EXCESS: dict(direction="ABOVE", trigger=Decimal("180.5")),
    DEFICIT: dict(direction="BELOW", trigger=Decimal("12.5")),
}


async def _free_target() -> str:
    """A monitoring target no other test has coverages at (the catalogue key is unique)."""
    used = {r["monitoring_target_id"] for r in await Coverage.select(Coverage.monitoring_target_id)}
    rows = await MonitoringTarget.select(MonitoringTarget.id).order_by(MonitoringTarget.id)
    return next(r["id"] for r in rows if r["id"] not in used)


async def _policy(env, queue: str, monthly_totals: list[Decimal] | None, months: int = 12, ladder: bool = False):
    """A converted policy of `months` months (12 by default) over the catalogue coverages of
    a fresh target, its workflow started; the months' daily rainfall (each month's total
    spread evenly over its days, exact to 0.0001 mm) loaded as final IMD values when
    `monthly_totals` is given. `ladder`: the covers have IMD-RF-DAILY's settlement basis
    (issue 34; as coverages created now get it), else none (sold before the ladder)."""
    target = await _free_target()
    tenant_id = str(uuid.uuid4())
    today = dt.date.today()
    start = dt.date(today.year + (today.month >= 11), (today.month + 1) % 12 + 1, 1)
    last = start.month - 1 + months
    end = dt.date(start.year + last // 12, last % 12 + 1, 1) - dt.timedelta(days=1)
    now = utcnow()
    covers = {}
    for s, e in month_segments(start, end):
        for code in (EXCESS, DEFICIT):
            coverage_id = uuid.uuid4()
            basis = basis_for(code, "IMD-RF-DAILY") if ladder else None
            snapshot = CoverSnapshot(
                coverage_id=coverage_id,
                index_code=code,
                index_definition_id=BY_CODE[code].id,
                start=s,
                end=e,
                exit=None,
                currency="INR",
                limit_minor=10_000_000,
                min_payout_minor=1_000_000,
                payout_per_unit_minor=50_000,
                gross_premium_pct=Decimal("0.015"),
                risk_premium_pct=Decimal("0.01"),
                pricing_version=1,
                settlement_basis=basis,
                **TERMS[code],
            )
            covers[CoverageSlot(index_code=code, start=s, end=e)] = snapshot
            await Coverage.insert(
                Coverage(
                    id=coverage_id, monitoring_target_id=target, index_definition_id=BY_CODE[code].id,
                    risk_period_start=s, risk_period_end=e, risk_carrier="test", currency="INR",
                    direction=snapshot.direction, trigger=snapshot.trigger, limit_minor=10_000_000,
                    min_payout_minor=1_000_000, payout_per_unit_minor=50_000, expected_loss_ratio=Decimal("0.65"),
                    created_by="test", created_at=now, updated_at=now, settlement_basis=encode_basis(basis),
                )
            )
    draft = build_quote(
        quote_id=uuid.uuid4(),
        line_item_ids=[uuid.uuid4() for _ in month_segments(start, end)],
        tenant_id=tenant_id,
        monitoring_target_id=target,
        start=start,
        end=end,
        currency="INR",
        sum_insured_minor=25_000_000,
        external_ref=None,
        covers_by_slot=covers,
        today=today,
    )
    await quotes_db.insert_quote(draft)
    policy_id = uuid.uuid4()
    assert await policies_db.convert_quote(
        ConvertQuoteInput(tenant_id=tenant_id, quote_id=draft.id, policy_id=policy_id,
                          line_item_ids=[uuid.uuid4() for _ in draft.line_items])
    )
    months = list(month_segments(start, end))
    if monthly_totals is not None:
        await load_months(target, months, monthly_totals)
    handle = await env.client.start_workflow(
        PolicyWorkflow.run,
        PolicyWorkflowInput(tenant_id=tenant_id, policy_id=policy_id, monitoring_target_id=target,
                            external_ref=None, periods=[(i.start, i.end) for i in draft.line_items]),
        id=policy_workflow_id(tenant_id, policy_id),
        task_queue=queue,
    )
    with env.auto_time_skipping_disabled():
        await handle.execute_update(PolicyWorkflow.activate)
    return target, tenant_id, policy_id, months, handle


async def load_months(target, months, totals, skip_days=0, revision_of=None):
    rows = []
    for (s, e), total in zip(months, totals):
        days = [s + dt.timedelta(days=i) for i in range((e - s).days + 1)][skip_days:]
        n = len(days)
        each = (total / n).quantize(Decimal("0.0001"))
        for i, day in enumerate(days):
            value = each if i < n - 1 else total - each * (n - 1)  # the month sums to `total`
            rows.append(ObservationIn(target, "IMD-RF-DAILY", "rainfall_mm", day, None, value, "IMD"))
    return await observations_db.store_batch(rows)


def _at(day: dt.date) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(0), tzinfo=dt.timezone.utc)


async def _events(policy_id):
    return await ParametricEvent.select().where(ParametricEvent.policy_id == policy_id).order_by(ParametricEvent.settlement_key)


# Hand-computed: per unit, excess pays 10,000 + 500 × (total − 180.5), at most 100,000;
# deficit 10,000 + 500 × (12.5 − total); × 2.5 units; the line item pays at most 250,000.
TOTALS = [Decimal(x) for x in ("200", "5", "100", "600", "180.5", "12.5", "180.4999", "0", "90", "90", "90", "90")]
EXPECTED_INR = {
    0: (EXCESS, Decimal("49375.00")),  # (10,000 + 500 × 19.5) × 2.5
    1: (DEFICIT, Decimal("34375.00")),  # (10,000 + 500 × 7.5) × 2.5
    3: (EXCESS, Decimal("250000.00")),  # 219,750 per unit capped at 100,000, × 2.5
    4: (EXCESS, Decimal("25000.00")),  # exactly at the trigger: the minimum payout × 2.5
    5: (DEFICIT, Decimal("25000.00")),
    7: (DEFICIT, Decimal("40625.00")),  # (10,000 + 500 × 12.5) × 2.5
}


async def test_a_12_month_policy_settles_every_month_and_expires(skipping_env, worker):
    env = skipping_env
    target, tenant_id, policy_id, months, handle = await _policy(env, worker, TOTALS)
    last_end = months[-1][1]
    await advance(env, worker, _at(last_end) + dt.timedelta(days=1) + DATA_LATENCY + dt.timedelta(days=2) - await env.get_current_time())
    assert await asyncio.wait_for(handle.result(), 60) == "EXPIRED"

    events = await _events(policy_id)
    assert len(events) == 24  # every cover settled once, paying or not
    assert all(e["kind"] == "SETTLEMENT" and e["revision"] == 1 and e["data_set"] == "IMD-RF-DAILY" for e in events)
    month_of = {
        r["id"]: next(i for i, (s, _) in enumerate(months) if s == r["risk_period_start"])
        for r in await Coverage.select(Coverage.id, Coverage.risk_period_start).where(Coverage.monitoring_target_id == target)
    }
    paid = {month_of[e["coverage_id"]]: (e["event_type"], Decimal(e["payout_minor"]) / 100) for e in events if e["payout_minor"]}
    assert paid == {m: ({"RAINFALL_MONTHLY_TOTAL": "EXCESS_RAINFALL", "RAINFALL_DEFICIT": "RAINFALL_DEFICIT"}[c], v)
                    for m, (c, v) in EXPECTED_INR.items()}
    # Validated the day settlement ran: the day after the month's end plus the data latency.
    assert {e["validated_day"] for e in events} == {e + dt.timedelta(days=1) + DATA_LATENCY for _, e in months}
    payouts = await Payout.select().where(Payout.policy_id == policy_id)
    assert sum(p["amount_minor"] for p in payouts) == sum(int(v * 100) for _, v in EXPECTED_INR.values())
    assert len(payouts) == len(EXPECTED_INR)
    assert (await policies_db.policy_row(tenant_id, policy_id)).status == "EXPIRED"
    states = await Settlement.select(Settlement.state).where(Settlement.monitoring_target_id == target)
    assert [s["state"] for s in states] == ["SETTLED"] * 24


async def test_a_cancelled_policy_is_paid_nothing_after_its_cancellation(skipping_env, worker):
    env = skipping_env
    totals = [Decimal("600")] * 12  # every month pays the whole sum insured
    target, tenant_id, policy_id, months, handle = await _policy(env, worker, totals)
    # Into the third month: the first month is settled (due on the 4th of the second month).
    await advance(env, worker, _at(months[2][0]) + dt.timedelta(days=10) - await env.get_current_time())
    with env.auto_time_skipping_disabled():
        assert await handle.execute_update(PolicyWorkflow.cancel) == "CANCELED"
    await advance(env, worker, _at(months[-1][1]) + dt.timedelta(days=30) - await env.get_current_time())
    events = await _events(policy_id)
    # Months 1 and 2 ended before the cancellation; month 3 (cancelled mid-period) and later pay nothing.
    periods = {(e["coverage_id"]) for e in events}
    assert len(events) == 4 and len(periods) == 4
    assert sum(e["payout_minor"] for e in events) == 2 * 25_000_000
    assert (await policies_db.policy_row(tenant_id, policy_id)).status == "CANCELED"


async def test_missing_data_is_flagged_then_settled_when_it_arrives_and_a_revision_adjusts(skipping_env, worker):
    env = skipping_env
    target, tenant_id, policy_id, months, handle = await _policy(env, worker, None)
    first = months[:1]
    await load_months(target, first, [Decimal("200")], skip_days=1)  # the first day is missing
    s, e = first[0]
    due = _at(e) + dt.timedelta(days=1) + DATA_LATENCY
    settlement = env.client.get_workflow_handle(settlement_workflow_id(target, s, e))
    await advance(env, worker, due + dt.timedelta(hours=1) - await env.get_current_time())
    status = await settlement.query("status")
    assert status["state"] == "WAITING" and "no value for 1 day(s)" in status["coverages"][0]["detail"]
    # Typed (issue 33, 7): a SettlementWorkflowStatus, the same JSON the untyped callers read.
    typed = await settlement.query(STATUS_QUERY, result_type=SettlementWorkflowStatus)
    assert typed.state == "WAITING" and typed.target_id == target and typed.period_start == s.isoformat()
    assert msgspec.to_builtins(typed) == status
    assert set(status) == {
        "targetId", "periodStart", "periodEnd", "dueAt", "state", "settlementRuns", "continuedRuns", "coverages",
    }
    assert set(status["coverages"][0]) == {"coverageId", "indexCode", "state", "revision", "indexValue", "detail"}
    assert await _events(policy_id) == []  # never paid on partial data

    await advance(env, worker, MISSING_DATA_WINDOW + dt.timedelta(days=1))
    status = await settlement.query("status")
    assert status["state"] == "FLAGGED"
    described = await settlement.describe()
    assert described.typed_search_attributes.get(
        __import__("models.temporal.search_attributes", fromlist=["x"]).SETTLEMENT_STATE
    ) == "FLAGGED"
    rows = await Settlement.select(Settlement.state).where(Settlement.period_start == s, Settlement.monitoring_target_id == target)
    assert {r["state"] for r in rows} == {"FLAGGED"}

    # The missing day arrives (the month now totals 200 + 10 = 210 mm).
    await observations_db.store_batch([ObservationIn(target, "IMD-RF-DAILY", "rainfall_mm", s, None, Decimal("10"), "IMD")])
    with env.auto_time_skipping_disabled():
        await settlement.signal(DATA_CHANGED_SIGNAL)
    await advance(env, worker, dt.timedelta(hours=1))
    assert (await settlement.query("status"))["state"] == "SETTLED"
    events = await _events(policy_id)
    excess = [x for x in events if x["event_type"] == "EXCESS_RAINFALL"]
    assert [x["payout_minor"] for x in excess] == [6_187_500]  # (10,000 + 500 × 29.5) × 2.5 INR

    # A revision of final data: the missing day was 20 mm, not 10 (the month: 220 mm).
    outcome = await observations_db.store_batch(
        [ObservationIn(target, "IMD-RF-DAILY", "rainfall_mm", s, None, Decimal("20"), "IMD")]
    )
    assert (outcome.new, outcome.revised) == (0, 1)
    with env.auto_time_skipping_disabled():
        await settlement.signal(DATA_CHANGED_SIGNAL)
    await advance(env, worker, dt.timedelta(hours=1))
    events = await _events(policy_id)
    adjustments = [x for x in events if x["kind"] == "ADJUSTMENT"]
    assert [(x["event_type"], x["payout_minor"], x["revision"]) for x in adjustments] == [("EXCESS_RAINFALL", 1_250_000, 2)]
    assert sum(x["payout_minor"] for x in events if x["event_type"] == "EXCESS_RAINFALL") == 7_437_500
    # Replaying the same batch changes nothing.
    again = await observations_db.store_batch(
        [ObservationIn(target, "IMD-RF-DAILY", "rainfall_mm", s, None, Decimal("20"), "IMD")]
    )
    assert (again.new, again.revised, again.unchanged) == (0, 0, 1)


# --- bounded histories (issue 25, finding 2) ----------------------------------------------------

from temporalio.api.enums.v1 import EventType  # noqa: E402

from workflows.policies import SETTLED_CHECK_MARGIN  # noqa: E402
from workflows.settlement import HISTORY_LIMIT, due_at  # noqa: E402

# One check of a settlement still waiting for data (its timer, its settle_period, the workflow
# tasks around them, a dispatch when it wrote something): what a run may hold beyond the limit.
ONE_CHECK = 20
# A one-month policy's whole history, from conversion to expiry, however long it waits.
POLICY_EVENTS = 80
MISSING_FOR = dt.timedelta(days=120)


def _activity_events(events, name: str, kind) -> list:
    """Events of `kind` (scheduled or completed) of the activity `name`, local or not."""
    scheduled = {
        e.event_id for e in events
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
        and e.activity_task_scheduled_event_attributes.activity_type.name == name
    }
    found = []
    for e in events:
        if kind == "scheduled" and e.event_id in scheduled:
            found.append(e)
        elif kind == "completed" and e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
            if e.activity_task_completed_event_attributes.scheduled_event_id in scheduled:
                found.append(e)
        elif e.event_type == EventType.EVENT_TYPE_MARKER_RECORDED:
            details = e.marker_recorded_event_attributes.details
            if "data" in details and f'"activity_type":"{name}"' in details["data"].payloads[0].data.decode():
                found.append(e)
    return found


def _time(event) -> dt.datetime:
    return event.event_time.ToDatetime(dt.timezone.utc)


async def test_months_of_missing_data_keep_the_settlement_and_policy_histories_bounded(skipping_env, worker):
    """120 days without the data of a one-month policy's period: the settlement checks daily,
    is flagged after 7 days, then checks weekly and continues as new before its history
    passes HISTORY_LIMIT events; the ended policy waits on one activity the server retries.
    (Before: a settlement added about 17 events a day and its policy about 6, without end.)
    When the data arrives the period settles and the policy expires within a day."""
    env = skipping_env
    target, tenant_id, policy_id, months, handle = await _policy(env, worker, None, months=1)
    (s, e), = months
    due = due_at(e)
    settlement = env.client.get_workflow_handle(settlement_workflow_id(target, s, e))
    await advance(env, worker, due + MISSING_FOR - await env.get_current_time())

    settlement_events = len((await settlement.fetch_history()).events)
    policy_events = len((await handle.fetch_history()).events)
    assert settlement_events <= HISTORY_LIMIT + ONE_CHECK, settlement_events
    assert policy_events <= POLICY_EVENTS, policy_events
    status = await settlement.query("status")
    assert status["state"] == "FLAGGED"
    assert status["continuedRuns"] >= 1, status  # it has continued as new, carrying its state
    # Daily for the 7 days before the flag, then weekly: about 24 runs, not 121.
    assert status["settlementRuns"] <= 8 + MISSING_FOR.days // 7 + 2, status
    assert (await settlement.describe()).typed_search_attributes.get(
        __import__("models.temporal.search_attributes", fromlist=["x"]).SETTLEMENT_STATE
    ) == "FLAGGED"
    assert await _status_of(tenant_id, policy_id) == "ACTIVE"

    await load_months(target, months, [Decimal("200")])
    with env.auto_time_skipping_disabled():
        await settlement.signal(DATA_CHANGED_SIGNAL)
    await advance(env, worker, dt.timedelta(days=1, hours=1))
    assert (await settlement.query("status"))["state"] == "SETTLED"
    assert [x["payout_minor"] for x in await _events(policy_id) if x["event_type"] == "EXCESS_RAINFALL"] == [4_937_500]
    assert await asyncio.wait_for(handle.result(), 60) == "EXPIRED"
    assert len((await handle.fetch_history()).events) <= POLICY_EVENTS


async def test_a_policy_looks_at_its_settlement_only_after_the_settlement_ran(skipping_env, worker):
    """The policy's end and its last settlement fall on the same instant (the period's end +
    DATA_LATENCY): the policy's first settled-check comes SETTLED_CHECK_MARGIN after it, once
    the settlement has run, so a policy with its data in expires that day (before: it looked
    at that instant, found nothing settled, and looked again the next day)."""
    env = skipping_env
    target, tenant_id, policy_id, months, handle = await _policy(env, worker, [Decimal("200")], months=1)
    (s, e), = months
    due = due_at(e)
    await advance(env, worker, due + dt.timedelta(days=2) - await env.get_current_time())
    assert await asyncio.wait_for(handle.result(), 60) == "EXPIRED"

    settlement = env.client.get_workflow_handle(settlement_workflow_id(target, s, e))
    settled = _activity_events((await settlement.fetch_history()).events, "settle_period", "completed")
    policy = (await handle.fetch_history()).events
    checks = [*_activity_events(policy, "policy_settled", "any"), *_activity_events(policy, "await_policy_settled", "scheduled")]
    first_check = min(_time(c) for c in checks)
    assert first_check >= due + SETTLED_CHECK_MARGIN, (first_check, due)
    assert first_check > _time(settled[0]), "the policy looked before its settlement ran"
    expired = max(_time(x) for x in policy if x.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED)
    assert expired < due + dt.timedelta(hours=6), (expired, due)


async def _status_of(tenant_id: str, policy_id) -> str:
    return (await policies_db.policy_row(tenant_id, policy_id)).status
