"""Piccolo's SQLite engine with reused connections.

Piccolo's `SQLiteEngine` opens a new aiosqlite connection (a new thread, a `connect`, a
PRAGMA) for every query outside a transaction and for every transaction: about 2.5 ms of
CPU, more than the query itself on the API's hot reads. This engine keeps a few idle
connections and runs a query in one hop to the connection's thread (execute + fetchall).

What makes reuse safe:
- connections are in autocommit mode (`isolation_level=None`, Piccolo's default) and every
  statement is stepped to the end and reset in the same hop, so an idle connection holds no
  read transaction and the next query sees the newest committed data (WAL);
- a connection goes back to the pool only after a clean finish with no open transaction
  (`in_transaction` is false); after an error or a cancellation it is interrupted (its
  thread may still be running the statement) and closed;
- a transaction (`engine.transaction()`, `write_transaction()`) holds its connection for its
  whole life and returns it only after COMMIT or ROLLBACK succeeded.

Idle connections' threads are daemons, so a process that forgets `close_idle()` still exits.
"""

from __future__ import annotations

import sqlite3
from collections import deque
from typing import Any, Optional

import aiosqlite
from piccolo.engine.sqlite import SQLiteEngine, SQLiteTransaction, TransactionType, dict_factory

MAX_IDLE = 8


class PooledSQLiteTransaction(SQLiteTransaction):
    async def get_connection(self):
        return await self.engine.acquire()

    async def __aexit__(self, exception_type, exception, traceback) -> bool:
        if self._parent:
            return exception is None
        clean = False
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
            self.engine.current_transaction.reset(self.context)
            await self.engine.release(self.connection, clean=clean)
        return exception is None


class PooledSQLiteEngine(SQLiteEngine):
    __slots__ = ("_idle", "_max_idle", "connections_opened")

    def __init__(self, path: str, max_idle: int = MAX_IDLE, **kwargs: Any) -> None:
        super().__init__(path=path, **kwargs)
        self._idle: deque[aiosqlite.Connection] = deque()
        self._max_idle = max_idle
        self.connections_opened = 0

    # --- the pool -------------------------------------------------------------------------

    async def get_connection(self) -> aiosqlite.Connection:
        """A new connection with Piccolo's settings (also used by `batch()`)."""
        self.connections_opened += 1
        connection = aiosqlite.connect(**self.connection_kwargs)
        connection._thread.daemon = True  # an idle pooled connection must not block exit
        await connection
        connection.row_factory = dict_factory  # type: ignore[assignment]
        await connection.execute("PRAGMA foreign_keys = 1")
        return connection

    async def acquire(self) -> aiosqlite.Connection:
        while self._idle:
            connection = self._idle.pop()
            if connection._running and connection._connection is not None:
                return connection
        return await self.get_connection()

    async def release(self, connection: aiosqlite.Connection, clean: bool) -> None:
        if clean and len(self._idle) < self._max_idle and not _in_transaction(connection):
            self._idle.append(connection)
            return
        if connection._connection is None:
            return
        if not clean:
            connection._connection.interrupt()  # thread-safe: stops a statement still running
        try:
            await connection.close()
        except Exception:  # closing a broken connection: nothing left to save
            pass

    async def close_idle(self) -> None:
        while self._idle:
            await self._idle.pop().close()

    @property
    def idle_connections(self) -> int:
        return len(self._idle)

    # --- Piccolo's query paths ------------------------------------------------------------

    async def _run_in_new_connection(
        self, query: str, args: Optional[list[Any]] = None, query_type: str = "generic", table=None
    ):
        if query_type == "insert" and self.get_version_sync() < 3.35:  # no RETURNING
            return await super()._run_in_new_connection(query, args, query_type, table)
        connection = await self.acquire()
        clean = False
        try:
            rows = await connection.execute_fetchall(query, args or [])
            clean = True
            return list(rows)
        finally:
            await self.release(connection, clean)

    async def _run_in_existing_connection(
        self, connection, query: str, args: Optional[list[Any]] = None, query_type: str = "generic", table=None
    ):
        if query_type == "insert" and self.get_version_sync() < 3.35:
            return await super()._run_in_existing_connection(connection, query, args, query_type, table)
        # The connection came from get_connection(): foreign keys are already on.
        return list(await connection.execute_fetchall(query, args or []))

    def transaction(
        self, transaction_type: TransactionType = TransactionType.deferred, allow_nested: bool = True
    ) -> PooledSQLiteTransaction:
        return PooledSQLiteTransaction(engine=self, transaction_type=transaction_type, allow_nested=allow_nested)


def _in_transaction(connection: aiosqlite.Connection) -> bool:
    try:
        return connection.in_transaction
    except (ValueError, sqlite3.ProgrammingError):  # closed
        return True
