"""The checked-in migrations go forwards, back past the policy counters, and forwards again
on a database of their own (a subprocess: the suite's database stays as it is): a SQLite
file, or on a PostgreSQL run a new database beside the suite's."""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
import textwrap
import uuid
from urllib.parse import urlsplit, urlunsplit

SCRIPT = textwrap.dedent(
    """
    import asyncio, datetime as dt, uuid
    from piccolo.apps.migrations.commands.backwards import BackwardsMigrationManager
    from models.db.core import migrate
    from models.db.tables import Policy, PolicyCount
    from piccolo.engine.finder import engine_finder

    def policy(tenant):
        now = dt.datetime.now(dt.timezone.utc)
        return Policy(id=uuid.uuid4(), tenant_id=tenant, quote_id=uuid.uuid4(), kind="TENANT", name="p",
                      status="CREATED", inception_date=dt.date(2027, 1, 1), expiry_date=dt.date(2027, 12, 31),
                      currency="INR", total_sum_insured_minor=1, gross_premium_minor=1, created_at=now, updated_at=now)

    async def main():
        tenant = uuid.uuid4()
        await migrate()
        await Policy.insert(policy(tenant))
        # Back to before the counters (the "policy counts" migration is undone too).
        result = await BackwardsMigrationManager(
            app_name="parametric", migration_id="2026-11-22T03:00:12:629540", auto_agree=True
        ).run()
        assert result.success, result.message
        # No trigger left pointing at a dropped table. (The columns of that schema only: later
        # migrations add some, which today's Policy class would try to write.)
        p = policy(tenant)
        columns = ["id", "tenant_id", "quote_id", "kind", "name", "status", "inception_date", "expiry_date",
                   "currency", "total_sum_insured_minor", "gross_premium_minor", "created_at", "updated_at"]
        placeholders = ", ".join("{}" for _ in columns)
        await Policy.raw(f"INSERT INTO policy ({', '.join(columns)}) VALUES ({placeholders})",
                         *[getattr(p, c) for c in columns])
        await migrate()  # forwards again: the backfill counts both policies
        rows = await PolicyCount.select(PolicyCount.n).where(PolicyCount.tenant_id == tenant)
        assert rows == [{"n": 2}], rows
        await Policy.insert(policy(tenant))
        rows = await PolicyCount.select(PolicyCount.n).where(PolicyCount.tenant_id == tenant)
        assert rows == [{"n": 3}], rows
        print("ok", engine_finder().engine_type)

    asyncio.run(main())
    """
)


@contextlib.contextmanager
def own_database():
    """The DATABASE_URL of a database for this test alone: unset (a SQLite file under the
    test's var dir) unless the suite runs on PostgreSQL (TEST_DATABASE_URL), where a new
    database is created beside the suite's and dropped afterwards."""
    suite_url = os.environ.get("TEST_DATABASE_URL")
    if not suite_url:
        yield None
        return
    import asyncpg

    name = f"migrations_{uuid.uuid4().hex[:12]}"

    def run(statement: str) -> None:  # a loop of its own, the session's current loop untouched
        async def execute() -> None:
            connection = await asyncpg.connect(suite_url)
            try:
                await connection.execute(statement)
            finally:
                await connection.close()

        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(execute())
        finally:
            loop.close()

    run(f'CREATE DATABASE "{name}"')
    try:
        yield urlunsplit(urlsplit(suite_url)._replace(path=f"/{name}"))
    finally:
        run(f'DROP DATABASE "{name}"')


def test_migrations_go_back_past_the_policy_counters_and_forwards_again(tmp_path):
    env = {**os.environ, "PARAMETRIC_VAR_DIR": str(tmp_path), "PICCOLO_CONF": "models.db.piccolo_conf"}
    env.pop("DATABASE_URL", None)
    with own_database() as url:
        if url:
            env["DATABASE_URL"] = url
        done = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=120)
    engine = "postgres" if url else "sqlite"
    assert done.returncode == 0 and done.stdout.strip().endswith(f"ok {engine}"), done.stdout[-2000:] + done.stderr[-2000:]


READERS_SCRIPT = textwrap.dedent(
    """
    import asyncio, datetime as dt, uuid
    from piccolo.apps.migrations.commands.backwards import BackwardsMigrationManager
    from models.db.core import migrate
    from models.db.tables import StoredFile, Tenant
    from piccolo.engine.finder import engine_finder

    async def main():
        await migrate()
        result = await BackwardsMigrationManager(
            app_name="parametric", migration_id="2026-11-29T08:00:00:000000", auto_agree=True
        ).run()
        assert result.success, result.message
        now = dt.datetime.now(dt.timezone.utc)
        platform, acme = uuid.uuid4(), uuid.uuid4()
        for tenant, name, kind in ((platform, "platform", "PLATFORM"), (acme, "acme", "TENANT")):
            await Tenant.raw("INSERT INTO tenant (id, name, created_at, kind) VALUES ({}, {}, {}, {})",
                             tenant, name, now, kind)
        files = {  # as stored before the readers were: (tenant, kind, filename) -> expected
            "published": ((None, "fact-sheet", "fact-sheet-c-v1.pdf"), ("CATALOGUE", "", None)),
            "published-report": ((None, "technical-pricing-report", "technical-pricing-report-c-v1.pdf"),
                                 ("CATALOGUE", "", None)),
            "candidate": ((None, "fact-sheet", "fact-sheet-c-v2-candidate.pdf"), ("STAFF", "actuary", None)),
            "candidate-report": ((None, "technical-pricing-report", "technical-pricing-report-c-v2-candidate.pdf"),
                                 ("STAFF", "actuary", None)),
            "whole-book": ((platform, "portfolio-risk-report", "portfolio-risk-report-whole-book-v1.pdf"),
                           ("STAFF", "operations", None)),
            "tenant-book": ((acme, "portfolio-risk-report", "portfolio-risk-report-acme-v1.pdf"),
                            ("OWNER", "operations", acme)),
            "schedule": ((acme, "policy-schedule", "policy-schedule-p.pdf"), ("OWNER", "", acme)),
            "unknown": ((None, "test", "a.txt"), ("OWNER", "", None)),
        }
        ids = {}
        for name, ((tenant, kind, filename), _) in files.items():
            ids[name] = uuid.uuid4()
            await StoredFile.raw(
                "INSERT INTO stored_file (id, tenant_id, kind, filename, media_type, size_bytes, sha256, content, "
                "created_at) VALUES ({}, {}, {}, {}, {}, {}, {}, {}, {})",
                ids[name], tenant, kind, filename, "application/pdf", 3, "0" * 64, b"pdf", now)
        await migrate()  # forwards again: the backfill gives each its readers
        for name, (_, (audience, roles, tenant)) in files.items():
            row = await StoredFile.select(StoredFile.audience, StoredFile.staff_roles, StoredFile.tenant_id).where(
                StoredFile.id == ids[name]).first()
            assert (row["audience"], row["staff_roles"], row["tenant_id"]) == (audience, roles, tenant), (name, row)
        print("ok", engine_finder().engine_type)

    asyncio.run(main())
    """
)


def test_files_stored_before_their_readers_get_the_most_restrictive_their_kind_allows(tmp_path):
    """Issue 33: files of no tenant were served to every tenant. The migration that stores each
    file's readers gives the files stored before it theirs (docs/documents.md, "Who reads what")."""
    env = {**os.environ, "PARAMETRIC_VAR_DIR": str(tmp_path), "PICCOLO_CONF": "models.db.piccolo_conf"}
    env.pop("DATABASE_URL", None)
    with own_database() as url:
        if url:
            env["DATABASE_URL"] = url
        done = subprocess.run([sys.executable, "-c", READERS_SCRIPT], env=env, capture_output=True, text=True,
                              timeout=120)
    engine = "postgres" if url else "sqlite"
    assert done.returncode == 0 and done.stdout.strip().endswith(f"ok {engine}"), done.stdout[-2000:] + done.stderr[-2000:]


TWINS_SCRIPT = textwrap.dedent(
    """
    import asyncio, datetime as dt, uuid
    from piccolo.apps.migrations.commands.backwards import BackwardsMigrationManager
    from piccolo.engine.finder import engine_finder
    from models.db.core import migrate
    from models.db.tables import ApiClient, Tenant

    async def main():
        await migrate()
        result = await BackwardsMigrationManager(
            app_name="parametric", migration_id="2026-11-29T08:02:00:000000", auto_agree=True
        ).run()
        assert result.success, result.message
        platform = uuid.uuid4()
        start = dt.datetime(2026, 11, 1, tzinfo=dt.timezone.utc)
        await Tenant.raw("INSERT INTO tenant (id, name, created_at, kind) VALUES ({}, {}, {}, {})",
                         platform, "platform", start, "PLATFORM")
        ids = {}
        # Staff as the database held them before issue 33: a name, its case variant and its
        # Cyrillic look-alike made later, and another person.
        for i, name in enumerate(["rt-act1", "RT-ACT1", "rt-\u0430ct1", "bea"]):
            ids[name] = uuid.uuid4()
            await ApiClient.raw(
                "INSERT INTO api_client (id, tenant_id, name, secret_hash, api_key_sha256, internal, disabled, "
                "created_at, roles) VALUES ({}, {}, {}, {}, {}, {}, {}, {}, {})",
                ids[name], platform, name, "sha256$x", uuid.uuid4().hex, False, False,
                start + dt.timedelta(minutes=i), "actuary",
            )
        await migrate()
        rows = {r["name"]: r for r in await ApiClient.select(
            ApiClient.name, ApiClient.disabled, ApiClient.name_key, ApiClient.email).where(ApiClient.tenant_id == platform)}
        assert (rows["rt-act1"]["disabled"], rows["bea"]["disabled"]) == (False, False), rows
        assert rows["rt-act1"]["name_key"] and rows["bea"]["name_key"] and rows["bea"]["email"] is None, rows
        for twin in ("RT-ACT1", "rt-\u0430ct1"):
            assert rows[twin]["disabled"] and rows[twin]["name_key"] is None, rows
        # The index holds: a second row with the first one's key is refused by the database.
        try:
            await ApiClient.update({ApiClient.name_key: rows["rt-act1"]["name_key"]}).where(ApiClient.id == ids["bea"])
        except Exception as exc:
            assert "unique" in str(exc).lower(), exc
        else:
            raise AssertionError("two staff members with one name key")
        print("ok", engine_finder().engine_type)

    asyncio.run(main())
    """
)


def test_the_staff_identity_migration_disables_later_twins_and_makes_the_keys_unique(tmp_path):
    """Issue 33: staff made before the identity keys, a case variant and a Cyrillic look-alike
    among them. Migrating keeps the first, disables the later twins (no key), keys the rest,
    and the unique index then refuses a second row with one key; on both engines."""
    env = {**os.environ, "PARAMETRIC_VAR_DIR": str(tmp_path), "PICCOLO_CONF": "models.db.piccolo_conf"}
    env.pop("DATABASE_URL", None)
    with own_database() as url:
        if url:
            env["DATABASE_URL"] = url
        done = subprocess.run([sys.executable, "-c", TWINS_SCRIPT], env=env, capture_output=True, text=True, timeout=120)
    engine = "postgres" if url else "sqlite"
    assert done.returncode == 0 and done.stdout.strip().endswith(f"ok {engine}"), done.stdout[-2000:] + done.stderr[-2000:]
