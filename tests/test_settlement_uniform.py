"""The set-based settlement of uniform line items (models/db/settlement_sql.py) writes what
the policy-by-policy path computes for each policy: the same events (payout, index value,
kind, explanation), one payout per paying event and the same webhook bodies. The oracle is
the per-policy computation itself (`_settle_held` over every held line item, read before
settlement), so the two paths cannot drift apart.

Policies at three quantities below the line-item cap (so each quantity pays differently),
some activated mid-month, one cancelled mid-month (paid nothing) and one cancelled after the
month (paid in full); the activity runs as Temporal would run it (ActivityEnvironment), then
again (a retry writes nothing twice)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import uuid
from decimal import Decimal

from temporalio.testing import ActivityEnvironment

from activities.settlement import MESSAGE_ID_MASKS, _settle_held, settle_period
from bench._settlement_seed import free_targets, months_back, seed
from models.clock import utcnow
from models.db import observations as observations_db
from models.db import settlement as settlement_db
from models.db.core import json_value
from models.db.tables import LineItem, ParametricEvent, Payout, Policy, WebhookMessage
from models.domain.observations import ObservationIn
from models.domain.settlement import period_index
from models.domain.webhooks import EVENT_VALIDATED, PAYOUT_RECORDED
from models.temporal.settlement import SettlePeriodInput

POLICIES = 40


async def _expected(request: SettlePeriodInput, from_nothing: bool = False) -> dict[str, dict]:
    """The per-policy path's events of every policy, by settlement key (`from_nothing`: as
    if nothing had been paid yet)."""
    coverages = await settlement_db.coverages_with_exposure(request.target_id, request.start, request.end)
    ready = {}
    for c in coverages:
        values, simulated = await observations_db.daily_values(request.target_id, c.index_code, request.start, request.end)
        ready[c.coverage_id] = (c, period_index(c.index_code, request.start, request.end, values, c.trigger), simulated)
    page, more = await settlement_db.exposure_page(list(ready), request.start, request.end, None, 10 * POLICIES)
    assert not more and len(page) == POLICIES
    if from_nothing:
        page = [dataclasses.replace(held, paid_minor={}, settled_revision={}) for held in page]
    return {e["settlement_key"]: e for held in page for e in _settle_held(request, held, ready)}


async def test_uniform_line_items_are_settled_as_each_policy_would_be(database):
    [target] = await free_targets(1)
    [month] = months_back(utcnow().date(), 1)
    # 250 mm over the month: 44,750 INR a unit, under the 250,000 INR cap at 2.5 to 3.5 units.
    seeded = await seed(POLICIES, [target], [month], {target: [Decimal(250)]}, quantities=3, late_percent=15)
    cancelled_within, cancelled_after = seeded["policies"][0], seeded["policies"][1]
    after_month = dt.datetime.combine(month[1], dt.time(0), tzinfo=dt.timezone.utc) + dt.timedelta(days=2)
    for policy_id, at in ((cancelled_within, dt.datetime.combine(month[0], dt.time(0), tzinfo=dt.timezone.utc) + dt.timedelta(days=5)),
                          (cancelled_after, after_month)):
        await Policy.update({Policy.status: "CANCELED", Policy.canceled_at: at}).where(Policy.id == policy_id)
    # A quantity no double holds exactly (a third): its line item must be matched all the same.
    await LineItem.update({LineItem.quantity: Decimal(250_000) / Decimal(3) / Decimal(100_000)}).where(
        LineItem.policy_id == seeded["policies"][2]
    )
    request = SettlePeriodInput(target_id=target, start=month[0], end=month[1], at=utcnow(), flag_missing=False)
    expected = await _expected(request)
    assert any(k.startswith(str(seeded["policies"][2])) and e["payout_minor"] for k, e in expected.items())
    assert not any(k.startswith(str(cancelled_within)) for k in expected)  # the oracle pays it nothing
    assert any(k.startswith(str(cancelled_after)) for k in expected)
    assert len({e["payout_minor"] for e in expected.values()}) == 5  # four quantities, and the deficit's 0

    env = ActivityEnvironment()
    first = await env.run(settle_period, request)
    again = await env.run(settle_period, request)  # a retry of the same run

    assert [c.state for c in first.coverages] == ["SETTLED", "SETTLED"]
    assert [c.state for c in again.coverages] == ["SETTLED", "SETTLED"]
    for c in first.coverages:  # what the run reports: every policy in force, every amount
        mine = [e for e in expected.values() if e["coverage_id"] == c.coverage_id]
        assert (c.events, c.paid_minor) == (len(mine), sum(e["payout_minor"] for e in mine)) and c.events == POLICIES - 1
    ids = seeded["policies"]
    events = {e["settlement_key"]: e for e in await ParametricEvent.select().where(ParametricEvent.policy_id.is_in(ids))}
    assert set(events) == set(expected)
    for key, want in expected.items():
        got = events[key]
        for column in ("tenant_id", "policy_id", "coverage_id", "event_type", "validated_day", "currency", "payout_minor",
                       "kind", "line_item_id", "data_set", "revision", "simulated", "stage"):
            assert got[column] == want[column], (key, column, got[column], want[column])
        assert Decimal(got["index_value"]) == want["index_value"]
        assert json_value(got["explanation"]) == want["explanation"]
    payouts = await Payout.select().where(Payout.policy_id.is_in(ids))
    # The ids the database made up (uniform path) are stored as every UUID column's text is.
    for table in ("parametric_event", "payout"):
        stored = await ParametricEvent.raw(f"SELECT CAST(id AS TEXT) AS id FROM {table} WHERE tenant_id = {{}}", seeded["tenant"])
        assert stored and all(str(uuid.UUID(r["id"])) == r["id"] for r in stored), table
    paying = {k: e for k, e in events.items() if e["payout_minor"] != 0}
    assert sorted((p["settlement_key"], p["amount_minor"], p["event_id"]) for p in payouts) == sorted(
        (k, e["payout_minor"], e["id"]) for k, e in paying.items()
    )
    messages = await WebhookMessage.select().where(WebhookMessage.tenant_id == seeded["tenant"])
    assert len(messages) == 2 * len(paying)
    by_event: dict[str, list[dict]] = {}
    for m in messages:
        body = json_value(m["payload"])
        event_id = uuid.UUID(body["data"]["eventId"])
        assert m["id"] == f"msg_{event_id.int ^ MESSAGE_ID_MASKS[m['event_type']]:032x}"  # as the per-policy path
        by_event.setdefault(body["data"]["eventId"], []).append(body)
    for key, event in paying.items():
        bodies = sorted(by_event[str(event["id"])], key=lambda b: b["type"])
        assert [b["type"] for b in bodies] == sorted([EVENT_VALIDATED, PAYOUT_RECORDED])
        for body in bodies:
            data = body["data"]
            assert data["policyId"] == str(event["policy_id"]) and data["coverageId"] == str(event["coverage_id"])
            assert data["payout"]["currency"] == "INR"
            assert Decimal(data["payout"]["amount"]) * 100 == event["payout_minor"]
            assert data["kind"] == "SETTLEMENT" and data["revision"] == event["revision"]


async def test_a_retry_after_a_revision_pays_the_difference_not_the_whole_again(database):
    """The first attempt settles every line item set-based and is lost before it reports; a
    revised day arrives; the retry (the same run, the same time) finds events on the line
    items and settles them policy by policy: adjustments of the difference, so each policy's
    total is what a settlement on the revised data pays."""
    [target] = await free_targets(1)
    [month] = months_back(utcnow().date(), 1)
    seeded = await seed(POLICIES, [target], [month], {target: [Decimal(250)]}, quantities=2)
    request = SettlePeriodInput(target_id=target, start=month[0], end=month[1], at=utcnow(), flag_missing=False)
    env = ActivityEnvironment()
    await env.run(settle_period, request)
    await observations_db.store_batch(
        [ObservationIn(target, "IMD-RF-DAILY", "rainfall_mm", month[0], None, Decimal(60), "IMD")]  # +~52 mm: revision 2
    )
    fresh = await _expected(request, from_nothing=True)  # what revision 2 pays from nothing
    await env.run(settle_period, request)
    rows = await ParametricEvent.select().where(ParametricEvent.policy_id.is_in(seeded["policies"]))
    totals: dict[tuple, int] = {}
    for r in rows:
        totals[(r["policy_id"], r["coverage_id"])] = totals.get((r["policy_id"], r["coverage_id"]), 0) + r["payout_minor"]
    assert totals == {(e["policy_id"], e["coverage_id"]): e["payout_minor"] for e in fresh.values()}
    assert {r["kind"] for r in rows if r["revision"] == 2} == {"ADJUSTMENT"}
    payouts = await Payout.select().where(Payout.policy_id.is_in(seeded["policies"]))
    assert sum(p["amount_minor"] for p in payouts) == sum(totals.values())

