"""Composite unique keys as unique indexes (docs/library-choices.md: Piccolo's `Unique`
constraint would need ALTER TABLE ... ADD CONSTRAINT on existing tables, which SQLite lacks;
`INSERT ... ON CONFLICT` resolves against these indexes on both databases).

- one pricing run per (coverage, version): versions are allocated by inserting the row;
- one catalogue coverage per (target, index definition, risk period): creating the
  catalogue twice, or concurrently, cannot duplicate it.
"""

from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.engine.finder import engine_finder

ID = "2026-11-21T23:53:17:649606"
VERSION = "1.38.0"
DESCRIPTION = "composite unique keys"


async def forwards():
    manager = MigrationManager(migration_id=ID, app_name="parametric", description=DESCRIPTION)

    async def create_indexes():
        engine = engine_finder()
        await engine.run_ddl(
            "CREATE UNIQUE INDEX IF NOT EXISTS pricing_run_coverage_version ON pricing_run (coverage_id, version)"
        )
        await engine.run_ddl(
            "CREATE UNIQUE INDEX IF NOT EXISTS coverage_target_index_period ON coverage "
            "(monitoring_target_id, index_definition_id, risk_period_start, risk_period_end)"
        )

    manager.add_raw(create_indexes)
    return manager
