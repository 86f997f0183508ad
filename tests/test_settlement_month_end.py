"""A month end in one worker (docs/settlement.md, "A month end"): on SQLite the settlements
woken at once read one at a time, and their final writes share one transaction and one
commit, each answered only when that commit is done. On PostgreSQL none of that machinery
runs (issue 25, finding 4): a settlement's final write commits at once, reads do not take
turns, and no lock of the process serialises write transactions. Real SQLite or PostgreSQL;
activities run as Temporal runs them (ActivityEnvironment)."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from decimal import Decimal

import pytest

from temporalio.testing import ActivityEnvironment

import activities.settlement as settlement_activities
from activities.settlement import _read_turn, settle_period
from bench._settlement_seed import free_targets, months_back, seed
from models.clock import utcnow
from models.db import settlement as settlement_db
from models.db.core import is_sqlite, write_transaction
from models.db.tables import ParametricEvent, Settlement
from models.temporal.settlement import SettlePeriodInput


async def test_the_settlements_of_a_month_end_share_one_commit_on_sqlite(database, monkeypatch):
    """SQLite: one commit for the three. PostgreSQL: three, each at once."""
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
    assert settlement_db.final_writes.batches == before + (1 if is_sqlite() else 3)
    assert all(c.state == "SETTLED" for o in outcomes for c in o.coverages)
    states = await Settlement.select(Settlement.state).where(Settlement.monitoring_target_id.is_in(targets))
    assert [s["state"] for s in states] == ["SETTLED"] * 6
    events = await ParametricEvent.count().where(ParametricEvent.tenant_id == seeded["tenant"])
    assert events == 30 * 2  # every policy's two covers, once


async def test_settlement_reads_take_turns_and_a_waiting_one_keeps_heartbeating(database, monkeypatch):
    """SQLite: the second settlement enters its reads only after the first has left them;
    while it waits it heartbeats the details its attempt started from (its resume point)."""
    if not is_sqlite():
        pytest.skip("SQLite's turn-taking (PostgreSQL: the test below)")
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


def _postgresql_only() -> None:
    if is_sqlite():
        pytest.skip("PostgreSQL's behaviour (SQLite shares the single writer: the tests above)")


async def test_on_postgresql_a_final_write_commits_at_once_while_others_still_read(database, monkeypatch):
    """A settlement still reading (it said its final write is coming) does not hold another
    one's final write open: it commits at once, not at the linger's end (old code: a
    transaction held open up to the linger, here 5 s, for nothing)."""
    _postgresql_only()
    monkeypatch.setattr(settlement_db.final_writes, "_linger", 5.0)
    targets = await free_targets(1)
    [month] = months_back(utcnow().date(), 1)
    await seed(5, targets, [month], {targets[0]: [Decimal(400)]})
    release = asyncio.Event()
    expecting = asyncio.Event()

    async def still_reading() -> None:
        with settlement_db.final_writes.expecting():
            expecting.set()
            await release.wait()

    reader = asyncio.create_task(still_reading())
    await expecting.wait()
    try:
        started = time.monotonic()
        request = SettlePeriodInput(target_id=targets[0], start=month[0], end=month[1], at=utcnow(), flag_missing=False)
        outcome = await ActivityEnvironment().run(settle_period, request)
        took = time.monotonic() - started
    finally:
        release.set()
        await reader
    assert [c.state for c in outcome.coverages] == ["SETTLED", "SETTLED"]
    assert took < 2.0, f"the final write waited {took:.2f} s for a settlement that was still reading"


async def test_on_postgresql_reads_do_not_take_turns_and_writes_are_not_serialised(database):
    _postgresql_only()
    inside = 0
    both_in = asyncio.Event()

    async def reads() -> None:
        nonlocal inside
        async with _read_turn():
            inside += 1
            if inside == 2:
                both_in.set()
            await asyncio.wait_for(both_in.wait(), 5)  # the other one is in at the same time

    await asyncio.gather(*(ActivityEnvironment().run(reads) for _ in range(2)))

    writing = 0
    both_writing = asyncio.Event()

    async def write() -> None:
        nonlocal writing
        async with write_transaction():
            await Settlement.raw("SELECT 1")
            writing += 1
            if writing == 2:
                both_writing.set()
            await asyncio.wait_for(both_writing.wait(), 5)  # no lock of this process between them

    await asyncio.gather(write(), write())
