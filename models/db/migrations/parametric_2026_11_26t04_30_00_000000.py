from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.column_types import Integer, Text, Timestamptz, Varchar
from piccolo.columns.indexes import IndexMethod
from piccolo.engine.finder import engine_finder

ID = "2026-11-26T04:30:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "state shared by API processes: token signing keys, rate-limit buckets, pricing admissions"


def _params(**extra) -> dict:
    params = {
        "default": None, "null": False, "primary_key": False, "unique": False, "index": False,
        "index_method": IndexMethod.btree, "choices": None, "db_column_name": None, "secret": False,
    }
    params.update(extra)
    return params


SIGNING_KEY = [
    ("kid", Varchar, _params(length=64, default="", primary_key=True)),
    ("generation", Integer, _params(null=True, unique=True)),
    ("public_jwk", Text, _params(default="")),
    ("private_key", Text, _params(default="")),
    ("created_at", Timestamptz, _params()),
    ("retired_at", Timestamptz, _params(null=True)),
]

# Counters the API processes share (api/ratelimit.py, api/admission.py, models/db/rate_limits.py).
# Not Piccolo tables: written by raw statements a few times a second, and on PostgreSQL
# UNLOGGED (no WAL: a crash empties them, which only forgets how much of a budget was spent).
COUNTER_TABLES = {
    "rate_bucket": (
        "bucket VARCHAR(400) PRIMARY KEY, tokens {real} NOT NULL, stamp {real} NOT NULL, rate {real} NOT NULL, "
        "burst {real} NOT NULL, owner VARCHAR(40) NOT NULL, shared_until {real} NOT NULL DEFAULT 0"
    ),
    "rate_process": "id VARCHAR(40) PRIMARY KEY, seen_at {real} NOT NULL",
    "pricing_admission": (
        "id VARCHAR(40) PRIMARY KEY, tenant VARCHAR(100) NOT NULL, started_at {real} NOT NULL, "
        "lease_until {real} NOT NULL, ended_at {real}"
    ),
}


async def forwards():
    manager = MigrationManager(migration_id=ID, app_name="parametric", description=DESCRIPTION)
    manager.add_table(class_name="SigningKey", tablename="signing_key", schema=None, columns=None)
    for name, column_class, params in SIGNING_KEY:
        manager.add_column(
            table_class_name="SigningKey", tablename="signing_key", column_name=name, db_column_name=name,
            column_class_name=column_class.__name__, column_class=column_class, params=params, schema=None,
        )

    async def counter_tables():
        engine = engine_finder()
        postgres = engine.engine_type == "postgres"
        for table, columns in COUNTER_TABLES.items():
            unlogged = "UNLOGGED " if postgres else ""
            real = "DOUBLE PRECISION" if postgres else "REAL"
            await engine.run_ddl(f"CREATE {unlogged}TABLE IF NOT EXISTS {table} ({columns.format(real=real)})")
        await engine.run_ddl(
            "CREATE INDEX IF NOT EXISTS pricing_admission_tenant ON pricing_admission (tenant, started_at)"
        )

    async def drop_counter_tables():
        engine = engine_finder()
        for table in COUNTER_TABLES:
            await engine.run_ddl(f"DROP TABLE IF EXISTS {table}")

    manager.add_raw(counter_tables)
    manager.add_raw_backwards(drop_counter_tables)
    return manager
