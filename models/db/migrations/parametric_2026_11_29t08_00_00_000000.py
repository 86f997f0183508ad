from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.column_types import Varchar

from models.db.column_migrations import add_columns, column_params

ID = "2026-11-29T08:00:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "who may read a stored file (stored_file.audience, stored_file.staff_roles)"


async def forwards():
    manager = MigrationManager(migration_id=ID, app_name="parametric", description=DESCRIPTION)
    # Files stored before: OWNER of their tenant until the next migration gives each kind its
    # readers (a file of no tenant reads as nobody's meanwhile).
    add_columns(manager, "StoredFile", "stored_file", [
        ("audience", Varchar, column_params("OWNER", length=20)),
        ("staff_roles", Varchar, column_params("", length=100)),
    ])
    return manager
