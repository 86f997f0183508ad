from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.column_types import Timestamptz

from models.db.column_migrations import add_columns, column_params

ID = "2026-11-26T07:15:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "a token signing key revoked (signing_key.revoked_at): its tokens refused at once"


async def forwards():
    manager = MigrationManager(migration_id=ID, app_name="parametric", description=DESCRIPTION)
    # Keys made before: none revoked.
    add_columns(manager, "SigningKey", "signing_key", [("revoked_at", Timestamptz, column_params(None, null=True))])
    return manager
