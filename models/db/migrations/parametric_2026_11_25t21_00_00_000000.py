from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.engine.finder import engine_finder

ID = "2026-11-25T21:00:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "line items of a policy by period"

# Settlement finds the line items over one period of the policies holding a coverage (the
# classification pass and the set-based events of uniform line items,
# models/db/settlement_sql.py). By `line_item_policy_id` alone each look-up read every line
# item of the policy (a 12-month policy: twelve rows of about 1.3 kB, covers included) to
# keep one; with the period in the index only that one is read. The 20 event statements of
# a month end (10,000 policies, captured and replayed on SQLite): 275 ms to 249 ms.
INDEXES = {
    "line_item_policy_period": 'line_item ("policy_id", "period_start", "period_end")',
}


async def forwards():
    manager = MigrationManager(migration_id=ID, app_name="parametric", description=DESCRIPTION)

    async def create_indexes():
        for name, on in INDEXES.items():
            await engine_finder().run_ddl(f"CREATE INDEX IF NOT EXISTS {name} ON {on}")

    async def drop_indexes():
        for name in INDEXES:
            await engine_finder().run_ddl(f"DROP INDEX IF EXISTS {name}")

    manager.add_raw(create_indexes)
    manager.add_raw_backwards(drop_indexes)
    return manager
