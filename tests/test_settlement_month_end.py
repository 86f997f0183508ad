"""A month end in one worker (docs/settlement.md, "A month end"): the settlements woken at
once read one at a time, and their final writes share one transaction and one commit, each
answered only when that commit is done. Real SQLite or PostgreSQL; activities run as
Temporal runs them (ActivityEnvironment)."""

from __future__ import annotations

import asyncio
import dataclasses
from decimal import Decimal

from temporalio.testing import ActivityEnvironment

import activities.settlement as settlement_activities
from activities.settlement import _read_turn, settle_period
from bench._settlement_seed import free_targets, months_back, seed
from models.clock import utcnow
from models.db import settlement as settlement_db
from models.db.tables import ParametricEvent, Settlement
from models.temporal.settlement import SettlePeriodInput


async def test_the_settlements_of_a_month_end_share_one_commit(database, monkeypatch):
    # However slow the machine, the transaction waits for the three (not the 1 s cap).
    monkeypatch.setattr(settlement_db.final_writes, "_linger", 60.0)
    targets = await free_targets(3)
    [month] = months_back(utcnow().date(), 1)
    rain = {t: [Decimal(400) if i % 2 == 0 else Decimal(90)] for i, t in enumerate(targets)}
    seeded = await seed(30, targets, [month], rain)
    at = utcnow()
    before = settlement_db.final_writes.batches

    async def settle(target: str):
        request = SettlePeriodInput(target_id=target, start=month[0], end=month[1], at=at, flag_missing=False)
        return await ActivityEnvironment().run(settle_period, request)

    outcomes = await asyncio.gather(*(settle(t) for t in targets))
    assert settlement_db.final_writes.batches == before + 1
    assert all(c.state == "SETTLED" for o in outcomes for c in o.coverages)
    states = await Settlement.select(Settlement.state).where(Settlement.monitoring_target_id.is_in(targets))
    assert [s["state"] for s in states] == ["SETTLED"] * 6
    events = await ParametricEvent.count().where(ParametricEvent.tenant_id == seeded["tenant"])
    assert events == 30 * 2  # every policy's two covers, once


async def test_settlement_reads_take_turns_and_a_waiting_one_keeps_heartbeating(monkeypatch):
    """The second settlement enters its reads only after the first has left them; while it
    waits it heartbeats the details its attempt started from (its resume point)."""
    monkeypatch.setattr(settlement_activities, "READ_TURN_HEARTBEAT", 0.05)
    inside: list[str] = []
    first_in = asyncio.Event()

    async def reads(name: str, hold: float) -> None:
        async with _read_turn():
            inside.append(f"{name} in")
            first_in.set()
            await asyncio.sleep(hold)
            inside.append(f"{name} out")

    first = ActivityEnvironment()
    second = ActivityEnvironment()
    second.info = dataclasses.replace(second.info, heartbeat_details=["resume-after-policy-x"])
    beats: list[tuple] = []
    second.on_heartbeat = lambda *details: beats.append(details)

    async def later() -> None:
        await first_in.wait()
        await second.run(reads, "second", 0.0)

    await asyncio.gather(first.run(reads, "first", 0.3), later())
    assert inside == ["first in", "first out", "second in", "second out"]
    assert len(beats) >= 2 and all(b == ("resume-after-policy-x",) for b in beats), beats
