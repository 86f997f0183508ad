from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.column_types import Varchar

from models.db.column_migrations import add_columns, column_params

ID = "2026-11-26T02:30:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "staff: the platform tenant and staff clients' roles"


async def forwards():
    manager = MigrationManager(migration_id=ID, app_name="parametric", description=DESCRIPTION)
    # Every tenant so far is an insurer or distributor: TENANT.
    add_columns(manager, "Tenant", "tenant", [("kind", Varchar, column_params("TENANT", length=20))])
    # Every client so far is a tenant's: no staff roles.
    add_columns(manager, "ApiClient", "api_client", [("roles", Varchar, column_params("", length=200))])
    return manager
