"""Counters the API processes share: rate-limit buckets and pricing admissions
(api/ratelimit.py, api/admission.py; docs/api-decisions.md, "Limits").

Tables `rate_bucket`, `rate_process` and `pricing_admission` (migration 2026-11-26T04:30):
plain tables on SQLite, UNLOGGED on PostgreSQL (a crash empties them, which only forgets
how much of a budget was spent). Written by raw statements: a process syncs its buckets a
few times a second in one transaction, and the statements differ by engine only in their
placeholders and in LEAST/GREATEST (PostgreSQL) against min/max (SQLite). Times are epoch
seconds (floats) from the writing process's clock.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from piccolo.engine.finder import engine_finder

from models.db.core import write_transaction

CHUNK = 500  # keys per IN (...) list

_UPSERT = {
    "sqlite": """
INSERT INTO rate_bucket (bucket, tokens, stamp, rate, burst, owner, shared_until)
VALUES (:bucket, :burst - :spent, :now, :rate, :burst, :owner, 0)
ON CONFLICT (bucket) DO UPDATE SET
  tokens = min(:burst, rate_bucket.tokens + max(0, :now - rate_bucket.stamp) * :rate) - :spent,
  stamp = max(rate_bucket.stamp, :now),
  rate = :rate,
  burst = :burst,
  shared_until = CASE WHEN rate_bucket.owner <> :owner THEN :now + :shared_for ELSE rate_bucket.shared_until END,
  owner = :owner
""",
    "postgres": """
INSERT INTO rate_bucket (bucket, tokens, stamp, rate, burst, owner, shared_until)
VALUES ($1, $5::float8 - $2::float8, $3::float8, $4::float8, $5::float8, $6, 0)
ON CONFLICT (bucket) DO UPDATE SET
  tokens = LEAST($5::float8, rate_bucket.tokens + GREATEST(0, $3::float8 - rate_bucket.stamp) * $4::float8) - $2::float8,
  stamp = GREATEST(rate_bucket.stamp, $3::float8),
  rate = $4::float8,
  burst = $5::float8,
  shared_until = CASE WHEN rate_bucket.owner <> $6 THEN $3::float8 + $7::float8 ELSE rate_bucket.shared_until END,
  owner = $6
""",
}


@dataclass(frozen=True, slots=True)
class Spent:
    """What one process took from a bucket since it last said so."""

    bucket: str
    spent: float
    rate: float  # tokens a second
    burst: float


class _Connection:
    """The open transaction's connection, spoken to in its engine's dialect."""

    def __init__(self) -> None:
        engine = engine_finder()
        self.postgres = engine.engine_type == "postgres"
        transaction = engine.current_transaction.get()
        if transaction is None:
            raise RuntimeError("inside write_transaction() only")
        self.raw = transaction.connection

    def marks(self, n: int, first: int = 1) -> str:
        return ", ".join(f"${first + i}" for i in range(n)) if self.postgres else ", ".join("?" for _ in range(n))

    async def fetch(self, sql: str, *args: Any) -> list[dict]:
        if self.postgres:
            return [dict(r) for r in await self.raw.fetch(sql, *args)]
        cursor = await self.raw.execute(sql, args)
        try:
            return list(await cursor.fetchall())
        finally:
            await cursor.close()

    async def execute(self, sql: str, *args: Any) -> None:
        if self.postgres:
            await self.raw.execute(sql, *args)
        else:
            await (await self.raw.execute(sql, args)).close()


async def sync_buckets(
    process: str, scope: str, spent: list[Spent], now: float, shared_for: float, alive_for: float
) -> tuple[dict[str, tuple[float, float]], int]:
    """Add each bucket's spending (refilling it to `now` first), say that `process` is alive,
    and read back each bucket's tokens and until when it is shared (another process wrote
    it within `shared_for` seconds), and how many processes whose id starts with `scope`
    were alive in the last `alive_for` seconds. One transaction; on SQLite it runs whole in
    one hop to a connection's thread (models/db/sqlite_engine.py: `write_in_one_hop`), so
    this background write never holds the file's write lock across event-loop turns."""
    engine = engine_finder()
    if engine.engine_type == "sqlite":
        return await engine.write_in_one_hop(lambda raw: _sync_sqlite(raw, process, scope, spent, now, shared_for, alive_for))
    async with write_transaction():
        db = _Connection()
        if spent:
            rows = [(s.bucket, s.spent, now, s.rate, s.burst, process, shared_for) for s in spent]
            await db.raw.executemany(_UPSERT["postgres"], rows)
        await db.execute(
            "INSERT INTO rate_process (id, seen_at) VALUES ($1, $2::float8) ON CONFLICT (id) DO UPDATE SET seen_at = $2::float8",
            process, now,
        )
        alive = await db.fetch(
            "SELECT count(*) AS n FROM rate_process WHERE seen_at > $1 AND left(id, $2) = $3", now - alive_for, len(scope), scope
        )
        found: dict[str, tuple[float, float]] = {}
        if spent:
            for row in await db.fetch(
                "SELECT bucket, tokens, shared_until FROM rate_bucket WHERE bucket = ANY($1::varchar[])",
                [s.bucket for s in spent],
            ):
                found[row["bucket"]] = (float(row["tokens"]), float(row["shared_until"]))
    return found, int(alive[0]["n"])


def _sync_sqlite(raw, process: str, scope: str, spent: list[Spent], now: float, shared_for: float, alive_for: float):
    """sync_buckets' statements, in the connection's thread (inside its transaction)."""
    if spent:
        raw.executemany(_UPSERT["sqlite"], [
            {"bucket": s.bucket, "spent": s.spent, "now": now, "rate": s.rate, "burst": s.burst, "owner": process,
             "shared_for": shared_for}
            for s in spent
        ])
    raw.execute(
        "INSERT INTO rate_process (id, seen_at) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET seen_at = excluded.seen_at",
        (process, now),
    )
    alive = raw.execute(
        "SELECT count(*) AS n FROM rate_process WHERE seen_at > ? AND substr(id, 1, ?) = ?", (now - alive_for, len(scope), scope)
    ).fetchall()
    found: dict[str, tuple[float, float]] = {}
    names = [s.bucket for s in spent]
    for i in range(0, len(names), CHUNK):
        part = names[i : i + CHUNK]
        marks = ", ".join("?" for _ in part)
        for row in raw.execute(f"SELECT bucket, tokens, shared_until FROM rate_bucket WHERE bucket IN ({marks})", part):
            found[row["bucket"]] = (float(row["tokens"]), float(row["shared_until"]))
    return found, int(alive[0]["n"])


_FORGET = (
    "DELETE FROM rate_bucket WHERE rate > 0 AND stamp + (burst - tokens) / rate < {}",
    "DELETE FROM rate_process WHERE seen_at < {}",
)


async def forget_idle(now: float) -> None:
    """Buckets that have filled up again since they were last written say nothing a missing
    row does not: deleted (a minute later, to be sure); processes not seen for an hour too."""
    limits = (now - 60, now - 3600)
    engine = engine_finder()
    if engine.engine_type == "sqlite":

        def forget(raw) -> None:
            for sql, limit in zip(_FORGET, limits):
                raw.execute(sql.format("?"), (limit,))

        await engine.write_in_one_hop(forget)
        return
    async with write_transaction():
        db = _Connection()
        for sql, limit in zip(_FORGET, limits):
            await db.execute(sql.format("$1"), limit)


@dataclass(frozen=True, slots=True)
class Admitted:
    ticket: str  # what `end_admission` takes
    in_flight_before: int  # the tenant's admitted starts still in flight before this one


@dataclass(frozen=True, slots=True)
class NotAdmitted:
    reason: str  # "in-flight" | "per-minute"
    wait: float  # seconds until the per-minute quota has room (in-flight: unknown, 0)


async def begin_admission(
    tenant: str, max_in_flight: int, max_per_window: int, window: float, lease: float, now: float
) -> Admitted | NotAdmitted:
    """Admit one more start for `tenant` unless `max_in_flight` of its admitted starts are in
    flight (not ended, and within their `lease` of seconds: a process that died with them
    frees them then) or `max_per_window` started in the last `window` seconds (0 turns a
    limit off). The tenant's admissions are serialised (PostgreSQL: an advisory lock on
    the tenant for the transaction; SQLite: its single writer)."""
    async with write_transaction():
        db = _Connection()
        if db.postgres:
            await db.execute("SELECT pg_advisory_xact_lock(hashtext($1))", f"pricing_admission:{tenant}")
        rows = await db.fetch(
            f"SELECT started_at, lease_until, ended_at FROM pricing_admission WHERE tenant = {db.marks(1)} "
            f"AND (started_at > {db.marks(1, 2)} OR (ended_at IS NULL AND lease_until > {db.marks(1, 3)}))",
            tenant, now - window, now,
        )
        in_flight = sum(1 for r in rows if r["ended_at"] is None and float(r["lease_until"]) > now)
        starts = sorted(float(r["started_at"]) for r in rows if float(r["started_at"]) > now - window)
        if max_in_flight and in_flight >= max_in_flight:
            return NotAdmitted("in-flight", 0.0)
        if max_per_window and len(starts) >= max_per_window:
            return NotAdmitted("per-minute", starts[len(starts) - max_per_window] + window - now)
        ticket = uuid.uuid4().hex
        await db.execute(
            f"INSERT INTO pricing_admission (id, tenant, started_at, lease_until, ended_at) VALUES ({db.marks(4)}, NULL)",
            ticket, tenant, now, now + lease,
        )
        return Admitted(ticket, in_flight)


async def end_admission(ticket: str, now: float, window: float) -> None:
    """The admitted start is over; admissions that no quota counts any more are deleted."""
    async with write_transaction():
        db = _Connection()
        await db.execute(f"UPDATE pricing_admission SET ended_at = {db.marks(1)} WHERE id = {db.marks(1, 2)}", now, ticket)
        await db.execute(
            f"DELETE FROM pricing_admission WHERE started_at < {db.marks(1)} AND (ended_at IS NOT NULL OR lease_until < {db.marks(1, 2)})",
            now - window, now,
        )
