from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.engine.finder import engine_finder

ID = "2026-11-25T04:54:01:000000"
VERSION = "1.38.0"
DESCRIPTION = "observation revisions unique"


async def forwards():
    manager = MigrationManager(migration_id=ID, app_name="parametric", description=DESCRIPTION)

    async def unique_observation_revisions():
        # One row per observation key and revision: a replayed batch cannot add a row twice.
        await engine_finder().run_ddl(
            "CREATE UNIQUE INDEX IF NOT EXISTS observation_key_revision ON observation (obs_key, revision)"
        )

    async def drop_unique_observation_revisions():
        await engine_finder().run_ddl("DROP INDEX IF EXISTS observation_key_revision")

    manager.add_raw(unique_observation_revisions)
    manager.add_raw_backwards(drop_unique_observation_revisions)
    return manager
