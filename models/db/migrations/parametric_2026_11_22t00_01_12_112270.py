"""One Idempotency-Key per tenant (the unique key settles concurrent first requests)."""

from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.engine.finder import engine_finder

ID = "2026-11-22T00:01:12:112270"
VERSION = "1.38.0"
DESCRIPTION = "idempotency key unique"


async def forwards():
    manager = MigrationManager(migration_id=ID, app_name="parametric", description=DESCRIPTION)

    async def create_index():
        await engine_finder().run_ddl(
            "CREATE UNIQUE INDEX IF NOT EXISTS idempotency_record_tenant_key ON idempotency_record (tenant_id, key)"
        )

    manager.add_raw(create_index)
    return manager
