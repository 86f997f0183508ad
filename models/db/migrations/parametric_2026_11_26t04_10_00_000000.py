from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.column_types import JSON, UUID, Integer, Timestamptz, Varchar
from piccolo.columns.defaults.timestamptz import TimestamptzNow
from piccolo.columns.defaults.uuid import UUID4
from piccolo.engine.finder import engine_finder

from models.db.column_migrations import add_columns, add_table, column_params

ID = "2026-11-26T04:10:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "sweeps instead of dual writes: settlement notices, and when a webhook delivery's workflow started"

# Dispatch looks for PENDING deliveries not started, oldest first: the PENDING ones are few
# (the rest are DELIVERED or FAILED), so a partial index over them serves it. (The raw
# statement runs before the column is added, and names none of the new columns.)
PENDING_INDEX = "webhook_delivery_pending"


async def create_pending_index():
    await engine_finder().run_ddl(
        f"CREATE INDEX IF NOT EXISTS {PENDING_INDEX} ON webhook_delivery (created_at) WHERE status = 'PENDING'"
    )


async def drop_pending_index():
    await engine_finder().run_ddl(f"DROP INDEX IF EXISTS {PENDING_INDEX}")


async def forwards():
    manager = MigrationManager(migration_id=ID, app_name="parametric", description=DESCRIPTION)
    # Observations stored before notices told their settlements at once (or the signal was
    # lost): there is nothing to sweep for them.
    add_table(manager, "SettlementNotice", "settlement_notice", [
        ("id", UUID, column_params(UUID4(), primary_key=True)),
        ("monitoring_target_id", Varchar, column_params("", length=40)),
        ("days", JSON, column_params("[]")),
        ("created_at", Timestamptz, column_params(TimestamptzNow())),
        ("notified_at", Timestamptz, column_params(None, null=True, index=True)),
        ("settlements", Integer, column_params(0)),
    ])
    # Deliveries made before: null, as if not started. Dispatch starts a PENDING one (its
    # workflow id is the delivery's, USE_EXISTING): one whose workflow runs is found running,
    # one lost between its commit and its start (the defect) is started at last. DELIVERED
    # and FAILED ones are never started again.
    add_columns(manager, "WebhookDelivery", "webhook_delivery",
                [("started_at", Timestamptz, column_params(None, null=True))])
    manager.add_raw(create_pending_index)
    manager.add_raw_backwards(drop_pending_index)
    return manager
