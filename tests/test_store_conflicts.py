"""Writes that race on a unique key settle in the database (INSERT … ON CONFLICT DO NOTHING):
the loser neither fails nor writes twice, on SQLite and PostgreSQL alike."""

from __future__ import annotations

import asyncio
import uuid
from decimal import Decimal

from api.idempotency import Idempotency
from api.problems import Conflict
from models.db import pricing as pricing_db
from models.db.files import file_id_for, store_file
from models.domain.file_access import Readers
from models.db.tables import IdempotencyRecord, PricingRun, StoredFile


async def test_concurrent_version_allocations_get_distinct_versions(database):
    coverage_id = uuid.uuid4()
    versions = await asyncio.gather(
        *(pricing_db.allocate_pricing_run(coverage_id, 1000, 1, Decimal("0.65"), "test", "INR") for _ in range(6))
    )
    assert sorted(versions) == [1, 2, 3, 4, 5, 6]
    assert await PricingRun.count().where(PricingRun.coverage_id == coverage_id) == 6


async def test_ensuring_a_pricing_run_twice_keeps_one(database):
    coverage_id = uuid.uuid4()
    await asyncio.gather(
        *(pricing_db.ensure_pricing_run(coverage_id, 1, 1000, 1, Decimal("0.65"), "test", "INR") for _ in range(3))
    )
    assert await PricingRun.count().where(PricingRun.coverage_id == coverage_id) == 1


async def test_a_file_stored_concurrently_is_stored_once(database):
    file_id = file_id_for("test", uuid.uuid4())
    metas = await asyncio.gather(*(store_file(file_id, Readers.staff("actuary"), "test", "a.txt", "text/plain", b"abc") for _ in range(4)))
    assert {m["id"] for m in metas} == {file_id}
    assert await StoredFile.count().where(StoredFile.id == file_id) == 1


async def test_concurrent_first_requests_with_one_key_let_exactly_one_through(database, tenant):
    key = f"race-{uuid.uuid4()}"
    outcomes = await asyncio.gather(
        *(Idempotency(tenant.id, key, b"{}").begin() for _ in range(4)), return_exceptions=True
    )
    assert sum(o is None for o in outcomes) == 1
    assert all(isinstance(o, Conflict) for o in outcomes if o is not None)
    assert await IdempotencyRecord.count().where(IdempotencyRecord.key == key) == 1

