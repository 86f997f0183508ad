"""Group commit (models/db/group_commit.py) on a real SQLite file: concurrent jobs share a
transaction, each is answered only once committed, a failing job is rolled back alone."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest
from piccolo.columns import Integer, Varchar
from piccolo.engine.sqlite import TransactionType
from piccolo.table import Table

from models.db.group_commit import GroupCommit
from models.db.sqlite_engine import PooledSQLiteEngine


@pytest.fixture
def setup(tmp_path):
    path = tmp_path / "group.sqlite"
    with sqlite3.connect(path) as raw:
        raw.execute("PRAGMA journal_mode=WAL")
        raw.execute("CREATE TABLE thing (id INTEGER PRIMARY KEY, name VARCHAR(20) UNIQUE, n INTEGER)")
    engine = PooledSQLiteEngine(path=str(path), timeout=5)

    class Thing(Table, db=engine, tablename="thing"):
        name = Varchar(length=20)
        n = Integer()

    group = GroupCommit(lambda: engine.transaction(transaction_type=TransactionType.immediate), Thing.raw)
    yield path, Thing, group


def committed(path) -> set[str]:
    """What another connection sees: only committed rows."""
    with sqlite3.connect(path) as raw:
        return {r[0] for r in raw.execute("SELECT name FROM thing")}


async def test_concurrent_jobs_share_transactions_and_are_answered_once_committed(setup):
    path, Thing, group = setup
    seen_at_answer = {}

    async def submit(name: str) -> None:
        async def job() -> str:
            await Thing.insert(Thing(name=name, n=1))
            await asyncio.sleep(0.01)
            return name

        assert await group.run(job) == name
        seen_at_answer[name] = name in committed(path)

    await asyncio.gather(*(submit(f"t{i}") for i in range(10)))
    assert committed(path) == {f"t{i}" for i in range(10)}
    assert all(seen_at_answer.values())  # durable before the caller hears of it
    assert group.batches < 10  # jobs that arrived while a batch was written went together


async def test_a_failing_job_is_rolled_back_alone(setup):
    path, Thing, group = setup

    def job(name: str, fail: bool):
        async def run() -> str:
            await Thing.insert(Thing(name=name, n=1))
            if fail:
                raise ValueError(f"{name} fails")
            return name

        return run

    results = await asyncio.gather(
        group.run(job("a", False)), group.run(job("b", True)), group.run(job("c", False)), return_exceptions=True
    )
    assert results[0] == "a" and results[2] == "c"
    assert isinstance(results[1], ValueError)
    assert committed(path) == {"a", "c"}


async def test_a_failed_commit_fails_every_job_of_the_batch(setup):
    path, Thing, group = setup

    async def job() -> None:
        await Thing.insert(Thing(name="x", n=1))
        # A deferred constraint would fail at COMMIT; here the transaction itself is made to
        # fail after the jobs: the outer context raises.
        return None

    class Boom(Exception):
        pass

    real = group._transaction

    class Failing:
        def __init__(self):
            self.inner = real()

        async def __aenter__(self):
            return await self.inner.__aenter__()

        async def __aexit__(self, *exc):
            await self.inner.__aexit__(Boom, Boom(), None)
            raise Boom("commit failed")

    group._transaction = Failing
    results = await asyncio.gather(group.run(job), group.run(job), return_exceptions=True)
    assert all(isinstance(r, Boom) for r in results), results
    assert committed(path) == set()
