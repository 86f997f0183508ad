"""Database lifecycle: migrations, connection pool, and the tenant-scoping rule.

Every query on a tenant-owned table goes through the `scoped_*` helpers, so a missing
tenant filter is impossible to write by accident in handlers and activities alike."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import uuid
from collections.abc import Awaitable, Callable
from enum import Enum
from typing import Any, Sequence, TypeVar

import msgspec
from piccolo.apps.migrations.commands.forwards import ForwardsMigrationManager
from piccolo.columns.column_types import JSON, JSONB
from piccolo.engine.finder import engine_finder
from piccolo.query import Objects, Select
from piccolo.table import Table
from piccolo.utils.encoding import dump_json

from models.db.group_commit import stop_expecting


async def migrate(quiet: bool = True) -> None:
    """Apply the checked-in migrations (idempotent)."""
    engine = engine_finder()
    if engine.engine_type == "sqlite":
        # WAL lets readers and one writer work at once: API, worker and CLI share the file.
        await engine.run_ddl("PRAGMA journal_mode=WAL;")
    out = io.StringIO()
    with contextlib.redirect_stdout(out) if quiet else contextlib.nullcontext():
        result = await ForwardsMigrationManager(app_name="parametric").run()
    if not result.success:
        raise RuntimeError(f"migrations failed: {result.message}\n{out.getvalue()}")


_pool_users = 0
_pool_loop: asyncio.AbstractEventLoop | None = None  # the loop the open pool's connections belong to


def is_sqlite() -> bool:
    """Whether the database is SQLite: one writer at a time, which the SQLite-only machinery
    works around (the writer lock of models/db/sqlite_engine.py, models/db/group_commit.py,
    settlement's read turns). PostgreSQL needs none of it."""
    return engine_finder().engine_type == "sqlite"


async def open_pool() -> None:
    """Open the PostgreSQL pool (SQLite connections are pooled as they are used); nested
    users share one pool."""
    global _pool_users, _pool_loop
    engine = engine_finder()
    if engine.engine_type == "postgres" and _pool_users == 0:
        await engine.start_connection_pool()
    if _pool_users == 0:
        _pool_loop = asyncio.get_running_loop()
    _pool_users += 1


async def close_pool() -> None:
    """The last user closes the pool (on SQLite: the idle pooled connections)."""
    global _pool_users
    if _pool_users == 0:
        return
    _pool_users -= 1
    if _pool_users == 0:
        global _pool_loop
        _pool_loop = None
        engine = engine_finder()
        if engine.engine_type == "postgres":
            await engine.close_connection_pool()
        elif hasattr(engine, "close_idle"):
            await engine.close_idle()


def run_sync(work: Callable[[], Awaitable[T]]) -> T:
    """Database work from synchronous code (a sync activity): on the event loop that opened
    this process's pool when there is one running (its pooled connections belong to that
    loop: the pricing worker's thread executor), else on a loop of its own (a process of the
    pricing pool: on PostgreSQL a connection per query, no pool; the loop's idle SQLite
    connections are closed before it ends). Never from that event loop's own thread."""
    loop = _pool_loop
    if loop is not None and loop.is_running():
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            raise RuntimeError("run_sync blocks: call it from a thread or a process, not from the event loop")
        return asyncio.run_coroutine_threadsafe(work(), loop).result()

    async def own_loop() -> T:
        try:
            return await work()
        finally:
            engine = engine_finder()
            if hasattr(engine, "close_idle"):
                await engine.close_idle()

    return asyncio.run(own_loop())


async def ping() -> None:
    engine = engine_finder()
    await engine.run_ddl("SELECT 1;")


def json_value(value: Any) -> Any:
    """A JSON column's value: Piccolo returns the text on SQLite and the parsed value on PostgreSQL."""
    return json.loads(value) if isinstance(value, str) else value


def _tenant_column(table: type[Table]):
    column = getattr(table, "tenant_id", None)
    if column is None:
        raise TypeError(f"{table.__name__} is not tenant-owned")
    return column


def _tenant(tenant_id: str | uuid.UUID) -> uuid.UUID:
    return tenant_id if isinstance(tenant_id, uuid.UUID) else uuid.UUID(str(tenant_id))


def scoped_select(table: type[TableT], tenant_id: str | uuid.UUID, *columns) -> Select:
    return table.select(*columns).where(_tenant_column(table) == _tenant(tenant_id))


def scoped_objects(table: type[TableT], tenant_id: str | uuid.UUID) -> Objects:
    return table.objects().where(_tenant_column(table) == _tenant(tenant_id))


def scoped_count(table: type[TableT], tenant_id: str | uuid.UUID):
    return table.count().where(_tenant_column(table) == _tenant(tenant_id))


def scoped_update(table: type[TableT], tenant_id: str | uuid.UUID, values: dict):
    return table.update(values).where(_tenant_column(table) == _tenant(tenant_id))


async def insert_rows(rows: Sequence[Table], on_conflict_nothing: bool = False, without: tuple[str, ...] = ()) -> None:
    """Insert rows of one table with a single multi-row INSERT (`without`: columns the
    database fills, e.g. a serial id; `on_conflict_nothing`: rows that would break a unique
    constraint are skipped, as an idempotent retry needs).

    Piccolo's `Table.insert(*rows)` builds a query object per value: about 0.3 ms per row,
    most of a policy conversion's database time for its dozens of line items and covers.
    Here the values are converted as `convert_to_sql_value` converts plain values (JSON
    columns dumped, enums by value), so either engine receives what `Table.insert` sends."""
    if not rows:
        return
    table = type(rows[0])
    columns = [c for c in table._meta.columns if c._meta.name not in without]
    names = ", ".join(f'"{column._meta.db_column_name}"' for column in columns)
    one_row = "(" + ", ".join("{}" for _ in columns) + ")"
    plan = [(column._meta.name, isinstance(column, (JSON, JSONB))) for column in columns]
    values = [_sql_value(getattr(row, name), is_json) for row in rows for name, is_json in plan]
    conflict = " ON CONFLICT DO NOTHING" if on_conflict_nothing else ""
    await table.raw(
        f'INSERT INTO "{table._meta.tablename}" ({names}) VALUES {", ".join([one_row] * len(rows))}{conflict}', *values
    )


async def bulk_insert(table: type[Table], rows: Sequence[dict], on_conflict_nothing: bool = False) -> None:
    """Many rows of one table with one prepared statement executed for each (executemany):
    no Piccolo row objects and no query text per row, for the set-based writes of
    settlement. Values as the driver takes them (JSON columns as text or dumped here);
    columns a row lacks get the column's default. Must run inside `write_transaction()`."""
    if not rows:
        return
    engine = engine_finder()
    transaction = engine.current_transaction.get()
    if transaction is None:
        raise RuntimeError("bulk_insert runs inside write_transaction()")
    columns = table._meta.columns
    names = ", ".join(f'"{c._meta.db_column_name}"' for c in columns)
    json_columns = {c._meta.name for c in columns if isinstance(c, (JSON, JSONB))}
    plan = [(c._meta.name, c._meta.name in json_columns, c.get_default_value()) for c in columns]
    values = []
    for row in rows:
        out = []
        for name, is_json, default in plan:
            v = row.get(name, default)
            if is_json and v is not None and not isinstance(v, str):
                v = msgspec.json.encode(v).decode()  # a fifth of json.dumps's time per row
            out.append(v.value if isinstance(v, Enum) else v)
        values.append(tuple(out))
    conflict = " ON CONFLICT DO NOTHING" if on_conflict_nothing else ""
    if engine.engine_type == "sqlite":
        marks = ", ".join("?" for _ in columns)
        await transaction.connection.executemany(
            f'INSERT INTO "{table._meta.tablename}" ({names}) VALUES ({marks}){conflict}', values
        )
    else:
        marks = ", ".join(f"${i + 1}" for i in range(len(columns)))
        await transaction.connection.executemany(
            f'INSERT INTO "{table._meta.tablename}" ({names}) VALUES ({marks}){conflict}', values
        )


def _sql_value(value: Any, is_json: bool) -> Any:
    if isinstance(value, Table):
        raise TypeError("insert_rows takes plain column values, not related rows")
    if is_json and value is not None and not isinstance(value, str):
        return dump_json(value)
    return value.value if isinstance(value, Enum) else value


def write_transaction():
    """A transaction that takes the write lock when it begins: on SQLite an IMMEDIATE
    transaction waits for other writers (busy timeout) instead of failing with "database is
    locked" when it upgrades from reading to writing. PostgreSQL: a plain transaction.

    The lock itself is SQLite's: on SQLite, write transactions of one process also take
    turns on the engine's writer lock (models/db/sqlite_engine.py); on PostgreSQL nothing
    in this process serialises them (row locks and constraints do what is needed).

    A task that said a group-commit job of it is coming stops saying so here: the group's
    lingering writer holds the write lock this transaction waits for (SQLite only: on
    PostgreSQL nobody waits for an expected job)."""
    stop_expecting()
    engine = engine_finder()
    if engine.engine_type == "sqlite":
        from piccolo.engine.sqlite import TransactionType

        return engine.transaction(transaction_type=TransactionType.immediate)
    return engine.transaction()


TableT = TypeVar("TableT", bound=Table)
T = TypeVar("T")
