from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.column_types import JSON

from models.db.column_migrations import add_columns, column_params

ID = "2026-11-29T07:49:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "a tenant quote's months without a line item, and why (quote.uncovered_months)"


async def forwards():
    manager = MigrationManager(migration_id=ID, app_name="parametric", description=DESCRIPTION)
    # Null on quotes written before: they covered every month of their period (or were refused).
    add_columns(manager, "Quote", "quote", [("uncovered_months", JSON, column_params(None, null=True))])

    return manager
