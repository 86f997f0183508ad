from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.column_types import Timestamptz

from models.db.column_migrations import add_columns, column_params

ID = "2026-11-26T03:40:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "idempotency keys: the lease of an in-flight claim"


async def forwards():
    manager = MigrationManager(migration_id=ID, app_name="parametric", description=DESCRIPTION)
    # Rows written before leases have none: an IN_FLIGHT one among them counts as expired
    # (api/idempotency.py), so a key a killed process left behind is freed.
    add_columns(manager, "IdempotencyRecord", "idempotency_record",
                [("lease_until", Timestamptz, column_params(None, null=True))])
    return manager
