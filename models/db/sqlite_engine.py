"""Piccolo's SQLite engine with reused connections.

Piccolo's `SQLiteEngine` opens a new aiosqlite connection (a new thread, a `connect`, a
PRAGMA) for every query outside a transaction and for every transaction: about 2.5 ms of
CPU, more than the query itself on the API's hot reads. This engine keeps a few idle
connections and runs a query in one hop to the connection's thread.

What makes reuse safe:
- connections are in autocommit mode (`isolation_level=None`, forced) and a query's
  statement is stepped to the end and its cursor closed in that same hop, even when
  building a row fails, so an idle connection holds no read transaction and the next query
  sees the newest committed data (WAL);
- a connection goes back to the pool only after a clean finish with no open transaction
  (`in_transaction` is false). After an error or a cancellation it is interrupted and its
  close is queued behind whatever its thread is still running, without waiting for it (a
  busy wait on another process's lock would otherwise delay the cancellation);
- a transaction (`engine.transaction()`, `write_transaction()`) holds its connection from
  BEGIN to COMMIT/ROLLBACK and forgets it afterwards: a task left over from inside the
  transaction cannot reach the connection once it is back in the pool;
- DDL and PRAGMAs (`run_ddl`) outside a transaction run on a fresh connection that is
  closed afterwards, so connection settings never leak into the pool.

Write (IMMEDIATE) transactions of one process take turns on an asyncio lock before BEGIN:
SQLite lets one writer in at a time, and a second BEGIN IMMEDIATE would otherwise wait in
the driver's busy handler, which sleeps in steps of up to 100 ms (20 settlements and a
webhook dispatch writing at once in one worker ran 2x slower). Other processes still meet
at SQLite's lock and its busy timeout.

Short background writes (the rate-limit sync, api/ratelimit.py) use `write_in_one_hop`: the
whole transaction, BEGIN IMMEDIATE to COMMIT, runs in one hop to a connection's thread, so
SQLite's write lock is never held across turns of the event loop; a loop that stalls (a
test blocked in a subprocess the CLI writes from) cannot keep it taken.

Idle connections' threads are daemons, so a process that forgets `close_idle()` still exits.
The aiosqlite internals used here (`_execute`, `_tx`, `_thread`) are those of the pinned
aiosqlite version (tests/test_sqlite_engine.py covers them).
"""

from __future__ import annotations

import sqlite3
import asyncio
import weakref
from collections import deque
from collections.abc import Callable
from typing import Any, Optional, TypeVar

import aiosqlite
from aiosqlite.core import _STOP_RUNNING_SENTINEL
from piccolo.engine.exceptions import TransactionError
from piccolo.engine.sqlite import (
    SQLiteEngine,
    SQLiteTransaction,
    TransactionType,
    dict_factory,
)

MAX_IDLE = 8
T = TypeVar("T")


def _fetch_all(connection: sqlite3.Connection, sql: str, args: list) -> list:
    """Runs in the connection's thread: the cursor is closed (its statement reset) whatever
    happens while the rows are built."""
    cursor = connection.execute(sql, args)
    try:
        return cursor.fetchall()
    finally:
        cursor.close()


def _transaction_hop(connection: sqlite3.Connection, work: Callable[[sqlite3.Connection], T]) -> T:
    """Runs in the connection's thread: `work` inside BEGIN IMMEDIATE ... COMMIT, rolled back
    if it raises."""
    connection.execute("BEGIN IMMEDIATE")
    try:
        result = work(connection)
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")
    return result


async def _query(connection: aiosqlite.Connection, sql: str, args: Optional[list]) -> list:
    return await connection._execute(_fetch_all, connection._conn, sql, args or [])


def _discard(connection: aiosqlite.Connection) -> None:
    """Interrupt a running statement and queue the close behind it, without waiting."""
    raw = connection._connection
    if raw is None or not connection._running:
        return
    raw.interrupt()  # thread-safe; ends a running statement (not a busy wait)
    connection._running = False

    def close() -> object:
        if connection._connection is not None:
            connection._connection.close()
            connection._connection = None
        return _STOP_RUNNING_SENTINEL

    connection._tx.put_nowait((None, close))


class PooledSQLiteTransaction(SQLiteTransaction):
    async def get_connection(self):
        return await self.engine.acquire()

    async def __aenter__(self) -> SQLiteTransaction:
        if self._parent is not None:
            return self._parent
        self._writer = self.engine.writer_lock() if self.transaction_type == TransactionType.immediate else None
        if self._writer is not None:
            await self._writer.acquire()
        try:
            self.connection = await self.get_connection()
            try:
                await self.begin()
            except BaseException:  # e.g. cancelled while BEGIN IMMEDIATE waits for the lock
                _discard(self.connection)
                self.connection = None
                raise
        except BaseException:
            self._release_writer()
            raise
        self.context = self.engine.current_transaction.set(self)
        return self

    def _release_writer(self) -> None:
        writer, self._writer = getattr(self, "_writer", None), None
        if writer is not None:
            writer.release()

    async def __aexit__(self, exception_type, exception, traceback) -> bool:
        if self._parent:
            return exception is None
        connection, clean = self.connection, False
        try:
            if exception is not None and not isinstance(exception, Exception):
                pass  # cancelled: a statement may still be running; closing rolls back
            elif exception is not None:
                if not self._rolled_back:
                    await self.rollback()
                clean = True
            else:
                if not self._committed and not self._rolled_back:
                    await self.commit()
                clean = True
        finally:
            self.connection = None  # leftover tasks holding this context get an error, not the pool's connection
            try:
                self.engine.current_transaction.reset(self.context)
            finally:
                self.engine.release(connection, clean=clean)
                self._release_writer()
        return exception is None


class PooledSQLiteEngine(SQLiteEngine):
    __slots__ = ("_idle", "_max_idle", "connections_opened", "_writers")

    def __init__(self, path: str, max_idle: int = MAX_IDLE, **kwargs: Any) -> None:
        super().__init__(path=path, **kwargs)
        # Autocommit: a write outside a transaction is committed by the statement itself.
        self.connection_kwargs["isolation_level"] = None
        self._idle: deque[aiosqlite.Connection] = deque()
        self._max_idle = max_idle
        self.connections_opened = 0
        self._writers: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def writer_lock(self) -> asyncio.Lock:
        """This event loop's turn-taking lock for write transactions (a lock belongs to
        one loop; tests run several)."""
        loop = asyncio.get_running_loop()
        lock = self._writers.get(loop)
        if lock is None:
            lock = self._writers[loop] = asyncio.Lock()
        return lock

    # --- the pool -------------------------------------------------------------------------

    async def get_connection(self) -> aiosqlite.Connection:
        """A new connection with Piccolo's settings (also used by `batch()`)."""
        self.connections_opened += 1
        connection = aiosqlite.connect(**self.connection_kwargs)
        connection._thread.daemon = True  # an idle pooled connection must not block exit
        await connection
        try:
            connection.row_factory = dict_factory  # type: ignore[assignment]
            await _query(connection, "PRAGMA foreign_keys = 1", [])
        except BaseException:
            _discard(connection)
            raise
        return connection

    async def acquire(self) -> aiosqlite.Connection:
        while True:
            try:
                connection = self._idle.pop()
            except IndexError:
                return await self.get_connection()
            if connection._running and connection._connection is not None:
                return connection

    def release(self, connection: aiosqlite.Connection | None, clean: bool) -> None:
        if connection is None:
            return
        if clean and len(self._idle) < self._max_idle and not _in_transaction(connection):
            self._idle.append(connection)
        else:
            _discard(connection)

    async def close_idle(self) -> None:
        while self._idle:
            await self._idle.pop().close()

    @property
    def idle_connections(self) -> int:
        return len(self._idle)

    async def write_in_one_hop(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """`work(connection)` in a write transaction that runs whole in one hop to a pooled
        connection's thread (module docstring): for short background writes. Rows come as
        dicts; `work` must not touch the event loop."""
        connection = await self.acquire()
        clean = False
        try:
            result = await connection._execute(_transaction_hop, connection._conn, work)
            clean = True
            return result
        finally:
            self.release(connection, clean)

    # --- Piccolo's query paths ------------------------------------------------------------

    async def _run_in_new_connection(
        self, query: str, args: Optional[list[Any]] = None, query_type: str = "generic", table=None
    ):
        if query_type == "insert" and self.get_version_sync() < 3.35:  # no RETURNING
            return await super()._run_in_new_connection(query, args, query_type, table)
        connection = await self.acquire()
        clean = False
        try:
            rows = await _query(connection, query, args)
            clean = True
            return rows
        finally:
            self.release(connection, clean)

    async def _run_in_existing_connection(
        self, connection, query: str, args: Optional[list[Any]] = None, query_type: str = "generic", table=None
    ):
        if connection is None:
            raise TransactionError("the transaction has already ended")
        if query_type == "insert" and self.get_version_sync() < 3.35:
            return await super()._run_in_existing_connection(connection, query, args, query_type, table)
        # The connection came from get_connection(): foreign keys are already on.
        return await _query(connection, query, args)

    async def run_ddl(self, ddl: str, in_pool: bool = False):
        """DDL and PRAGMAs outside a transaction get a connection of their own (closed
        afterwards): connection-level settings must not leak into the pool."""
        if self.current_transaction.get() is not None:
            return await super().run_ddl(ddl, in_pool)
        connection = await self.get_connection()
        try:
            return await _query(connection, ddl, [])
        finally:
            await connection.close()

    def transaction(
        self, transaction_type: TransactionType = TransactionType.deferred, allow_nested: bool = True
    ) -> PooledSQLiteTransaction:
        return PooledSQLiteTransaction(engine=self, transaction_type=transaction_type, allow_nested=allow_nested)


def _in_transaction(connection: aiosqlite.Connection) -> bool:
    try:
        return connection.in_transaction
    except (ValueError, sqlite3.ProgrammingError):  # closed
        return True
