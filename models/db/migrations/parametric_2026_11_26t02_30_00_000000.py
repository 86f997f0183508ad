from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.column_types import Varchar
from piccolo.columns.indexes import IndexMethod

ID = "2026-11-26T02:30:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "staff: the platform tenant and staff clients' roles"


def _varchar(length: int, default: str) -> dict:
    return {
        "length": length,
        "default": default,
        "null": False,
        "primary_key": False,
        "unique": False,
        "index": False,
        "index_method": IndexMethod.btree,
        "choices": None,
        "db_column_name": None,
        "secret": False,
    }


async def forwards():
    manager = MigrationManager(migration_id=ID, app_name="parametric", description=DESCRIPTION)
    # Every tenant so far is an insurer or distributor: TENANT.
    manager.add_column(
        table_class_name="Tenant", tablename="tenant", column_name="kind", db_column_name="kind",
        column_class_name="Varchar", column_class=Varchar, params=_varchar(20, "TENANT"), schema=None,
    )
    # Every client so far is a tenant's: no staff roles.
    manager.add_column(
        table_class_name="ApiClient", tablename="api_client", column_name="roles", db_column_name="roles",
        column_class_name="Varchar", column_class=Varchar, params=_varchar(200, ""), schema=None,
    )
    return manager
