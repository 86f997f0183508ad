from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.engine.finder import engine_finder

ID = "2026-11-26T06:30:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "payout holds: one HELD hold per policy, enforced by a partial unique index"

# One HELD hold per policy (models/db/payout_holds.py): a check-then-insert let two holds
# asked for at once through on PostgreSQL; the database now refuses the second. Both
# engines support a partial unique index; Piccolo's table classes cannot say it.
ONE_HOLD_INDEX = "payout_hold_one_held_per_policy"
MERGED = "a second hold of a policy already held (merged by migration 2026-11-26T06:30)"


async def one_hold_per_policy():
    engine = engine_finder()
    # Holds placed twice by that race: the oldest stays; the others are closed as released
    # when they were placed (they held nothing the oldest does not hold).
    await engine.run_ddl(
        "UPDATE payout_hold SET state = 'RELEASED', released_by = 'system', released_at = held_at, "
        f"release_reason = '{MERGED}' WHERE state = 'HELD' AND EXISTS (SELECT 1 FROM payout_hold older "
        "WHERE older.policy_id = payout_hold.policy_id AND older.state = 'HELD' "
        "AND (older.held_at < payout_hold.held_at OR (older.held_at = payout_hold.held_at AND older.id < payout_hold.id)))"
    )
    await engine.run_ddl(
        f"CREATE UNIQUE INDEX IF NOT EXISTS {ONE_HOLD_INDEX} ON payout_hold (policy_id) WHERE state = 'HELD'"
    )


async def drop_one_hold_index():
    await engine_finder().run_ddl(f"DROP INDEX IF EXISTS {ONE_HOLD_INDEX}")


async def forwards():
    manager = MigrationManager(migration_id=ID, app_name="parametric", description=DESCRIPTION)
    manager.add_raw(one_hold_per_policy)
    manager.add_raw_backwards(drop_one_hold_index)
    return manager
