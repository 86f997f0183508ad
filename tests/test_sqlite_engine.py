"""The connection-reusing SQLite engine: reuse, freshness, and no reuse after a fault."""

from __future__ import annotations

import asyncio
import sqlite3
import time

import pytest
from piccolo.columns import Integer, Varchar
from piccolo.engine.exceptions import TransactionError
from piccolo.engine.sqlite import TransactionType
from piccolo.querystring import QueryString
from piccolo.table import Table

from models.db.sqlite_engine import PooledSQLiteEngine

SLOW = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 20000000) SELECT count(*) AS n FROM c"


@pytest.fixture
def engine(tmp_path):
    path = tmp_path / "pool.sqlite"
    with sqlite3.connect(path) as raw:
        raw.execute("PRAGMA journal_mode=WAL")
        raw.execute("CREATE TABLE thing (id INTEGER PRIMARY KEY, name VARCHAR(20), n INTEGER)")
    return PooledSQLiteEngine(path=str(path), timeout=5)


def table(engine):
    class Thing(Table, db=engine, tablename="thing"):
        name = Varchar(length=20)
        n = Integer()

    return Thing


def write_outside(engine, sql: str) -> None:
    """A write from another process's point of view: a plain sqlite3 connection."""
    with sqlite3.connect(engine.path) as raw:
        raw.execute(sql)


async def test_sequential_queries_reuse_one_connection(engine):
    Thing = table(engine)
    await Thing.insert(Thing(name="a", n=1))
    for _ in range(5):
        assert await Thing.count() == 1
    assert engine.connections_opened == 1
    assert engine.idle_connections == 1
    await engine.close_idle()
    assert engine.idle_connections == 0


async def test_a_reused_connection_sees_commits_made_elsewhere(engine):
    Thing = table(engine)
    assert await Thing.count() == 0
    write_outside(engine, "INSERT INTO thing (name, n) VALUES ('x', 1)")
    assert await Thing.count() == 1
    write_outside(engine, "UPDATE thing SET n = 2")
    assert await Thing.select(Thing.n).first() == {"n": 2}
    assert engine.connections_opened == 1


async def test_concurrent_queries_use_separate_connections(engine):
    Thing = table(engine)
    await asyncio.gather(*(Thing.raw(SLOW.replace("20000000", "200000")) for _ in range(3)))
    assert engine.connections_opened == 3
    assert engine.idle_connections == 3


async def test_a_cancelled_query_does_not_return_its_connection(engine):
    Thing = table(engine)
    assert await Thing.count() == 0
    task = asyncio.create_task(Thing.raw(SLOW).run())
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert engine.idle_connections == 0  # closed, not pooled
    write_outside(engine, "INSERT INTO thing (name, n) VALUES ('y', 1)")
    assert await Thing.count() == 1


async def test_a_failed_query_does_not_return_its_connection(engine):
    Thing = table(engine)
    with pytest.raises(sqlite3.OperationalError):
        await Thing.raw("SELECT nope FROM thing")
    assert engine.idle_connections == 0
    assert await Thing.count() == 0
    assert engine.idle_connections == 1


async def test_transactions_commit_and_roll_back_on_pooled_connections(engine):
    Thing = table(engine)
    async with engine.transaction(transaction_type=TransactionType.immediate):
        await Thing.insert(Thing(name="a", n=1))
        await Thing.insert(Thing(name="b", n=2))
    with pytest.raises(RuntimeError):
        async with engine.transaction(transaction_type=TransactionType.immediate):
            await Thing.insert(Thing(name="c", n=3))
            raise RuntimeError("abort")
    assert sorted(r["name"] for r in await Thing.select(Thing.name)) == ["a", "b"]
    # Both transactions gave their connection back clean: one connection served everything.
    assert engine.connections_opened == 1
    assert engine.idle_connections == 1
    async with engine.transaction():
        pooled = engine.current_transaction.get().connection
        assert pooled.in_transaction
    assert not pooled.in_transaction


async def test_a_cancelled_transaction_closes_its_connection(engine):
    Thing = table(engine)

    async def slow_transaction():
        async with engine.transaction():
            await Thing.raw(SLOW)

    task = asyncio.create_task(slow_transaction())
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert engine.idle_connections == 0
    write_outside(engine, "INSERT INTO thing (name, n) VALUES ('z', 1)")
    assert await Thing.count() == 1


async def test_the_pool_keeps_at_most_max_idle_connections(tmp_path):
    path = tmp_path / "small.sqlite"
    sqlite3.connect(path).close()
    engine = PooledSQLiteEngine(path=str(path), max_idle=2)

    class One(Table, db=engine):
        pass

    await asyncio.gather(*(One.raw(SLOW.replace("20000000", "100000")) for _ in range(5)))
    assert engine.idle_connections == 2
    await engine.close_idle()


async def test_a_task_left_over_from_a_transaction_cannot_use_its_connection(engine):
    Thing = table(engine)
    release = asyncio.Event()

    async def straggler():
        await release.wait()
        await Thing.insert(Thing(name="late", n=1))

    async with engine.transaction():
        task = asyncio.create_task(straggler())  # copies the context: it sees the transaction
    release.set()
    with pytest.raises(TransactionError):
        await task
    assert await Thing.count() == 0


async def test_a_transaction_cancelled_while_waiting_for_the_write_lock_lets_go_at_once(engine):
    Thing = table(engine)
    holder = sqlite3.connect(engine.path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process holds the write lock

    async def write():
        async with engine.transaction(transaction_type=TransactionType.immediate):
            await Thing.insert(Thing(name="w", n=1))

    started = time.monotonic()
    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(write(), 0.3)
    assert time.monotonic() - started < 2  # not the 5 s busy timeout
    assert engine.idle_connections == 0
    holder.execute("COMMIT")
    holder.close()
    # The abandoned BEGIN may take the lock for a moment; its queued close gives it back.
    async with engine.transaction(transaction_type=TransactionType.immediate):
        await Thing.insert(Thing(name="after", n=1))
    assert [r["name"] for r in await Thing.select(Thing.name)] == ["after"]


async def test_a_row_that_fails_to_build_leaves_no_statement_open(engine):
    with sqlite3.connect(engine.path) as raw:
        raw.execute("CREATE TABLE odd (id INTEGER PRIMARY KEY, ref UUID)")
        raw.execute("INSERT INTO odd (ref) VALUES ('not-a-uuid')")
    Thing = table(engine)
    async with engine.transaction():
        connection = engine.current_transaction.get().connection
        with pytest.raises(ValueError):
            await engine.run_querystring(QueryString("SELECT ref FROM odd"))
    assert engine.idle_connections == 1
    write_outside(engine, "INSERT INTO thing (name, n) VALUES ('seen', 1)")
    assert await Thing.count() == 1  # the pooled connection is not stuck on an old snapshot
    assert engine.current_transaction.get() is None and not connection.in_transaction


async def test_pragmas_outside_a_transaction_do_not_reach_pooled_connections(engine):
    Thing = table(engine)
    await Thing.count()
    await engine.run_ddl("PRAGMA foreign_keys = 0")
    rows = await Thing.raw("PRAGMA foreign_keys")
    assert rows == [{"foreign_keys": 1}]


async def test_write_transactions_of_one_process_take_turns_instead_of_busy_waiting(tmp_path):
    """A second write transaction waits for the first on the engine's lock, however long the
    first takes: with a busy timeout shorter than the first transaction, SQLite's own
    waiting would end in "database is locked"."""
    path = tmp_path / "turns.sqlite"
    with sqlite3.connect(path) as raw:
        raw.execute("PRAGMA journal_mode=WAL")
        raw.execute("CREATE TABLE thing (id INTEGER PRIMARY KEY, name VARCHAR(20), n INTEGER)")
    engine = PooledSQLiteEngine(path=str(path), timeout=0.05)
    Thing = table(engine)
    order = []

    async def write(name: str, hold: float) -> None:
        async with engine.transaction(transaction_type=TransactionType.immediate):
            order.append(f"{name} in")
            await Thing.insert(Thing(name=name, n=1))
            await asyncio.sleep(hold)
            order.append(f"{name} out")

    await asyncio.gather(write("first", 0.3), write("second", 0))
    assert order == ["first in", "first out", "second in", "second out"]
    assert await Thing.count() == 2
    # The lock is released after a failed transaction too.
    with pytest.raises(ZeroDivisionError):
        async with engine.transaction(transaction_type=TransactionType.immediate):
            1 / 0
    await asyncio.wait_for(write("third", 0), timeout=1)
    await engine.close_idle()
