from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.column_types import Timestamptz
from piccolo.columns.indexes import IndexMethod

ID = "2026-11-26T03:40:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "idempotency keys: the lease of an in-flight claim"


async def forwards():
    manager = MigrationManager(migration_id=ID, app_name="parametric", description=DESCRIPTION)
    # Rows written before leases have none: an IN_FLIGHT one among them counts as expired
    # (api/idempotency.py), so a key a killed process left behind is freed.
    manager.add_column(
        table_class_name="IdempotencyRecord", tablename="idempotency_record", column_name="lease_until",
        db_column_name="lease_until", column_class_name="Timestamptz", column_class=Timestamptz,
        params={
            "default": None, "null": True, "primary_key": False, "unique": False, "index": False,
            "index_method": IndexMethod.btree, "choices": None, "db_column_name": None, "secret": False,
        },
        schema=None,
    )
    return manager
