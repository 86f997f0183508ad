from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.column_types import UUID, Integer, Text, Timestamptz, Varchar

from models.db.column_migrations import add_table, column_params

ID = "2026-11-26T07:30:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "monthly risk and claims bordereaux as produced (bordereau)"


async def forwards():
    manager = MigrationManager(migration_id=ID, app_name="parametric", description=DESCRIPTION)
    # Empty: the BordereauxWorkflow writes each month's files (models/db/bordereaux.py).
    add_table(manager, "Bordereau", "bordereau", [
        ("id", Varchar, column_params("", length=80, primary_key=True)),
        ("month", Varchar, column_params("", length=7, index=True)),
        ("kind", Varchar, column_params("", length=10)),
        ("tenant_id", UUID, column_params(None, null=True)),
        ("content", Text, column_params("")),
        ("sha256", Varchar, column_params("", length=64)),
        ("row_count", Integer, column_params(0)),
        ("totals", Text, column_params("")),
        ("produced_at", Timestamptz, column_params()),
        ("produced_by", Varchar, column_params("", length=200)),
        ("runs", Integer, column_params(1)),
    ])
    return manager
