"""Migrations that add indexes Piccolo's table classes do not declare (composite ones, or
ones only settlement's raw SQL needs): `CREATE INDEX IF NOT EXISTS` forwards, `DROP INDEX
IF EXISTS` backwards, the same statements on SQLite and PostgreSQL."""

from __future__ import annotations

from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.engine.finder import engine_finder


def index_migration(migration_id: str, description: str, indexes: dict[str, str]) -> MigrationManager:
    """`indexes`: index name → `table ("column", ...)`."""
    manager = MigrationManager(migration_id=migration_id, app_name="parametric", description=description)

    async def create_indexes():
        for name, on in indexes.items():
            await engine_finder().run_ddl(f"CREATE INDEX IF NOT EXISTS {name} ON {on}")

    async def drop_indexes():
        for name in indexes:
            await engine_finder().run_ddl(f"DROP INDEX IF EXISTS {name}")

    manager.add_raw(create_indexes)
    manager.add_raw_backwards(drop_indexes)
    return manager
