from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.column_types import JSON
from piccolo.columns.indexes import IndexMethod

ID = "2026-11-25T00:30:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "fast quote pricing report"


async def forwards():
    manager = MigrationManager(migration_id=ID, app_name="parametric", description=DESCRIPTION)

    manager.add_column(
        table_class_name="Quote",
        tablename="quote",
        column_name="pricing_report",
        db_column_name="pricing_report",
        column_class_name="JSON",
        column_class=JSON,
        params={
            "default": None,
            "null": True,
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
