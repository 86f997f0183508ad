from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.column_types import Integer
from piccolo.columns.indexes import IndexMethod

ID = "2026-11-23T21:44:22:666490"
VERSION = "1.38.0"
DESCRIPTION = "idempotency generations"


async def forwards():
    manager = MigrationManager(
        migration_id=ID, app_name="parametric", description=DESCRIPTION
    )

    manager.add_column(
        table_class_name="IdempotencyRecord",
        tablename="idempotency_record",
        column_name="generation",
        db_column_name="generation",
        column_class_name="Integer",
        column_class=Integer,
        params={
            "default": 0,
            "null": False,
            "primary_key": False,
            "unique": False,
            "index": False,
            "index_method": IndexMethod.btree,
            "choices": None,
            "db_column_name": None,
            "secret": False,
        },
        schema=None,
    )

    return manager
