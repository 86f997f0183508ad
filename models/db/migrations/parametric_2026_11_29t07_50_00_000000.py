from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.column_types import Timestamptz

from models.db.column_migrations import add_columns, column_params

ID = "2026-11-29T07:50:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "a settlement's revision window kept in the database (settlement.revisions_until)"


async def forwards():
    manager = MigrationManager(migration_id=ID, app_name="parametric", description=DESCRIPTION)
    # The settlements settled before: filled by the next migration (2026-11-29T07:51).
    add_columns(manager, "Settlement", "settlement", [("revisions_until", Timestamptz, column_params(None, null=True))])
    return manager
