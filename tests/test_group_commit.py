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


def SQLITE() -> bool:
    """These groups write a SQLite file of their own, whatever engine the suite runs on."""
    return True


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

    group = GroupCommit(lambda: engine.transaction(transaction_type=TransactionType.immediate), Thing.raw, grouped=SQLITE)
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


def grouped(Thing, linger: float) -> GroupCommit:
    return GroupCommit(lambda: Thing._meta.db.transaction(transaction_type=TransactionType.immediate), Thing.raw, linger, grouped=SQLITE)


def inserting(Thing, name: str):
    async def job() -> str:
        await Thing.insert(Thing(name=name, n=1))
        return name

    return job


async def test_expected_jobs_join_the_open_transaction_and_share_its_commit(setup):
    path, Thing, _ = setup
    group = grouped(Thing, linger=5.0)
    seen_at_answer = {}

    async def later(name: str, delay: float) -> None:
        with group.expecting():
            await asyncio.sleep(delay)  # reading, say
            await group.run(inserting(Thing, name))
        seen_at_answer[name] = committed(path)

    async def now() -> None:
        await group.run(inserting(Thing, "first"))
        seen_at_answer["first"] = committed(path)

    async def started_expecting():
        tasks = [asyncio.create_task(later("b", 0.05)), asyncio.create_task(later("c", 0.15))]
        await asyncio.sleep(0)  # both have said they are coming
        await now()
        await asyncio.gather(*tasks)

    await started_expecting()
    assert group.batches == 1
    # The first job's caller hears of it only with the later ones committed: one commit.
    assert seen_at_answer == {name: {"first", "b", "c"} for name in ("first", "b", "c")}


async def test_an_expectation_ended_without_a_job_does_not_hold_the_commit(setup):
    path, Thing, _ = setup
    group = grouped(Thing, linger=5.0)

    async def changes_its_mind() -> None:
        with group.expecting():
            await asyncio.sleep(0.05)

    loop = asyncio.get_running_loop()
    other = asyncio.create_task(changes_its_mind())
    await asyncio.sleep(0)
    t0 = loop.time()
    await group.run(inserting(Thing, "a"))
    assert loop.time() - t0 < 1.0  # answered when the other stopped expecting, not after the 5 s linger
    assert committed(path) == {"a"}
    await other


async def test_the_linger_caps_how_long_a_commit_waits_for_expected_jobs(setup):
    path, Thing, _ = setup
    group = grouped(Thing, linger=0.2)
    release = asyncio.Event()

    async def slow() -> None:
        with group.expecting():
            await release.wait()
            await group.run(inserting(Thing, "slow"))

    loop = asyncio.get_running_loop()
    other = asyncio.create_task(slow())
    await asyncio.sleep(0)
    t0 = loop.time()
    await group.run(inserting(Thing, "a"))
    waited = loop.time() - t0
    assert 0.15 <= waited < 2.0, waited
    assert committed(path) == {"a"}
    release.set()
    await other
    assert committed(path) == {"a", "slow"} and group.batches == 2


async def test_a_task_taking_a_write_transaction_of_its_own_stops_being_expected(setup, database):
    """`write_transaction()` ends the current task's expectation: the lingering writer holds the
    write lock that transaction waits for."""
    from models.db.core import write_transaction

    _, Thing, _ = setup
    group = grouped(Thing, linger=5.0)
    with group.expecting():
        assert group._queue().expected == 1
        async with write_transaction():
            assert group._queue().expected == 0
    assert group._queue().expected == 0


async def test_a_failed_begin_fails_its_callers_at_once(setup):
    """Nothing is written and every caller hears of it, instead of the writer trying again."""
    _, Thing, _ = setup
    attempts = 0

    class Unavailable(Exception):
        pass

    class GiveUp(BaseException):
        """Ends a writer that keeps trying (it would never yield to the event loop)."""

    class NoBegin:
        async def __aenter__(self):
            nonlocal attempts
            attempts += 1
            if attempts > 3:
                raise GiveUp()
            raise Unavailable("database unavailable")

        async def __aexit__(self, *exc):
            return False

    group = GroupCommit(NoBegin, Thing.raw, linger=5.0, grouped=SQLITE)
    results = await asyncio.wait_for(
        asyncio.gather(group.run(inserting(Thing, "a")), group.run(inserting(Thing, "b")), return_exceptions=True), 5
    )
    assert all(isinstance(r, Unavailable) for r in results), results
    assert attempts == 1


async def test_a_failing_savepoint_statement_fails_every_caller_of_the_transaction(setup):
    """When rolling a failed job back to its savepoint fails too (on SQLite an I/O error
    rolls the whole transaction back), the job that ran, the one running and those not run
    yet all get an exception: none is left waiting, nothing is committed."""
    path, Thing, _ = setup

    async def raw(sql: str):
        if sql.startswith("ROLLBACK TO"):
            raise sqlite3.OperationalError("no such savepoint: group_job_1")
        return await Thing.raw(sql)

    group = GroupCommit(lambda: Thing._meta.db.transaction(transaction_type=TransactionType.immediate), raw, linger=5.0, grouped=SQLITE)

    async def failing() -> None:
        raise ValueError("this job fails")

    results = await asyncio.wait_for(
        asyncio.gather(group.run(inserting(Thing, "a")), group.run(failing), group.run(inserting(Thing, "c")),
                       return_exceptions=True),
        5,
    )
    assert all(isinstance(r, Exception) for r in results), results
    assert committed(path) == set()


async def test_the_linger_caps_a_transaction_even_while_jobs_keep_arriving(setup):
    """Jobs of 60 ms arriving every 50 ms: one is always queued when the writer looks, and
    the transaction still ends at its linger; the rest go in the next ones."""
    path, Thing, _ = setup
    group = grouped(Thing, linger=0.2)
    names = [f"j{i}" for i in range(16)]

    def slow_insert(name: str):
        async def job() -> str:
            await Thing.insert(Thing(name=name, n=1))
            await asyncio.sleep(0.06)
            return name

        return job

    async def arriving(i: int, name: str) -> None:
        with group.expecting():
            await asyncio.sleep(0.05 * i)
            await group.run(slow_insert(name))

    await asyncio.wait_for(asyncio.gather(*(arriving(i, n) for i, n in enumerate(names))), 10)
    assert committed(path) == set(names)
    assert group.batches >= 3  # about 1 s of jobs, transactions of at most 0.2 s and one job
