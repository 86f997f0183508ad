from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.column_types import UUID, BigInt, Timestamptz, Varchar
from piccolo.columns.defaults.uuid import UUID4

from models.db.column_migrations import add_table, column_params

ID = "2026-11-26T07:20:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "capacity limits on the most the book may pay (capacity_limit), with what is used of each"


async def forwards():
    manager = MigrationManager(migration_id=ID, app_name="parametric", description=DESCRIPTION)
    # Empty: operations staff set the limits; each new one counts the policies bound before it
    # (models/db/capacity.py).
    add_table(manager, "CapacityLimit", "capacity_limit", [
        ("id", UUID, column_params(UUID4(), primary_key=True)),
        ("key", Varchar, column_params("", length=120, unique=True)),
        ("monitoring_target_id", Varchar, column_params(None, length=40, null=True)),
        ("month", Varchar, column_params(None, length=7, null=True)),
        ("tenant_id", UUID, column_params(None, null=True)),
        ("currency", Varchar, column_params("", length=3)),
        ("limit_minor", BigInt, column_params(0)),
        ("used_minor", BigInt, column_params(0)),
        ("created_by", Varchar, column_params("", length=200)),
        ("created_at", Timestamptz, column_params()),
        ("updated_at", Timestamptz, column_params()),
    ])
    return manager
