"""A policy whose quote left a month with one viable cover and a month with none settles on
the time-skipping server (issue 33, 1): the one-cover line item pays by its one cover's terms
(capped at its sum insured), the uncovered month has no settlement at all (its rain, however
heavy, pays nothing), the two-cover month settles as ever; the policy expires."""

from __future__ import annotations

import asyncio
import datetime as dt
import uuid
from decimal import Decimal

import pytest
from temporalio.service import RPCError

from models.clock import utcnow
from models.db import policies as policies_db
from models.db import quotes as quotes_db
from models.db.tables import Coverage, Payout, Settlement
from models.domain.index_catalog import BY_CODE
from models.domain.quotes import NO_VIABLE_COVER, build_quote, month_segments
from models.domain.terms import CoverageSlot
from models.temporal.ids import policy_workflow_id, settlement_workflow_id
from models.temporal.policies import PolicyWorkflowInput
from models.temporal.quotes import ConvertQuoteInput, CoverSnapshot
from tests.test_lifecycles_time_skipping import (  # noqa: F401 - fixtures
    ClockWorkflow,
    advance,
    skipping_env,
    worker,
)
from tests.test_settlement_time_skipping import DEFICIT, EXCESS, TERMS, _at, _events, _free_target, load_months
from workflows.policies import PolicyWorkflow
from workflows.settlement import DATA_LATENCY

# Month 0: excess rainfall alone; month 1: nothing viable; month 2: excess and deficit.
CODES = [(EXCESS,), (), (EXCESS, DEFICIT)]
TOTALS = [Decimal("200"), Decimal("600"), Decimal("5")]


async def test_a_one_cover_month_pays_by_its_cover_and_an_uncovered_month_is_not_settled(skipping_env, worker):
    env = skipping_env
    target = await _free_target()
    tenant_id = str(uuid.uuid4())
    today = dt.date.today()
    start = dt.date(today.year + (today.month >= 11), (today.month + 1) % 12 + 1, 1)
    end = dt.date(start.year + (start.month + 2) // 12, (start.month + 2) % 12 + 1, 1) - dt.timedelta(days=1)
    months = month_segments(start, end)
    assert len(months) == 3
    now = utcnow()
    covers = {}
    for (s, e), codes in zip(months, CODES):
        for code in codes:
            snapshot = CoverSnapshot(
                coverage_id=uuid.uuid4(), index_code=code, index_definition_id=BY_CODE[code].id, start=s, end=e,
                exit=None, currency="INR", limit_minor=10_000_000, min_payout_minor=1_000_000,
                payout_per_unit_minor=50_000, gross_premium_pct=Decimal("0.015"), risk_premium_pct=Decimal("0.01"),
                pricing_version=1, **TERMS[code],
            )
            covers[CoverageSlot(index_code=code, start=s, end=e)] = snapshot
            await Coverage.insert(Coverage(
                id=snapshot.coverage_id, monitoring_target_id=target, index_definition_id=BY_CODE[code].id,
                risk_period_start=s, risk_period_end=e, risk_carrier="test", currency="INR",
                direction=snapshot.direction, trigger=snapshot.trigger, limit_minor=10_000_000,
                min_payout_minor=1_000_000, payout_per_unit_minor=50_000, expected_loss_ratio=Decimal("0.65"),
                created_by="test", created_at=now, updated_at=now,
            ))
    draft = build_quote(
        quote_id=uuid.uuid4(), line_item_ids=[uuid.uuid4() for _ in months], tenant_id=tenant_id,
        monitoring_target_id=target, start=start, end=end, currency="INR", sum_insured_minor=25_000_000,
        external_ref=None, covers_by_slot=covers, today=today,
    )
    assert [len(i.covers) for i in draft.line_items] == [1, 2]
    assert [(m.start, m.reason) for m in draft.uncovered_months] == [(months[1][0], NO_VIABLE_COVER)]
    await quotes_db.insert_quote(draft)
    assert (await quotes_db.quote_row(tenant_id, draft.id)).uncovered_months == draft.uncovered_months
    policy_id = uuid.uuid4()
    assert await policies_db.convert_quote(
        ConvertQuoteInput(tenant_id=tenant_id, quote_id=draft.id, policy_id=policy_id,
                          line_item_ids=[uuid.uuid4() for _ in draft.line_items])
    )
    await load_months(target, months, TOTALS)
    handle = await env.client.start_workflow(
        PolicyWorkflow.run,
        # the periods the API gives a converted tenant quote: its line items' months
        PolicyWorkflowInput(tenant_id=tenant_id, policy_id=policy_id, monitoring_target_id=target,
                            external_ref=None, periods=[(i.start, i.end) for i in draft.line_items]),
        id=policy_workflow_id(tenant_id, policy_id),
        task_queue=worker,
    )
    with env.auto_time_skipping_disabled():
        await handle.execute_update(PolicyWorkflow.activate)
    await advance(env, worker, _at(end) + dt.timedelta(days=1) + DATA_LATENCY + dt.timedelta(days=2) - await env.get_current_time())
    assert await asyncio.wait_for(handle.result(), 60) == "EXPIRED"

    events = await _events(policy_id)
    assert len(events) == 3  # one cover in month 0, two in month 2, none in month 1
    paid = sorted((e["event_type"], e["payout_minor"]) for e in events if e["payout_minor"])
    # (10,000 + 500 × 19.5) × 2.5 INR by the one excess cover; (10,000 + 500 × 7.5) × 2.5 by the deficit
    assert paid == [("EXCESS_RAINFALL", 4_937_500), ("RAINFALL_DEFICIT", 3_437_500)]
    assert sum(p["amount_minor"] for p in await Payout.select().where(Payout.policy_id == policy_id)) == 8_375_000
    states = await Settlement.select(Settlement.period_start, Settlement.state).where(Settlement.monitoring_target_id == target)
    assert sorted((s["period_start"], s["state"]) for s in states) == [
        (months[0][0], "SETTLED"), (months[2][0], "SETTLED"), (months[2][0], "SETTLED"),
    ]
    with pytest.raises(RPCError):  # no settlement workflow for the uncovered month
        await env.client.get_workflow_handle(settlement_workflow_id(target, *months[1])).describe()
