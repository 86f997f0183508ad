from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.column_types import BigInt
from piccolo.columns.column_types import UUID
from piccolo.columns.column_types import Varchar
from piccolo.columns.defaults.uuid import UUID4
from piccolo.columns.indexes import IndexMethod

ID = "2026-11-22T03:00:12:629540"
VERSION = "1.38.0"
DESCRIPTION = "policy counts"


async def forwards():
    manager = MigrationManager(
        migration_id=ID, app_name="parametric", description=DESCRIPTION
    )

    manager.add_table(
        class_name="PolicyCount",
        tablename="policy_count",
        schema=None,
        columns=None,
    )

    manager.add_column(
        table_class_name="PolicyCount",
        tablename="policy_count",
        column_name="tenant_id",
        db_column_name="tenant_id",
        column_class_name="UUID",
        column_class=UUID,
        params={
            "default": UUID4(),
            "null": False,
            "primary_key": False,
            "unique": False,
            "index": True,
            "index_method": IndexMethod.btree,
            "choices": None,
            "db_column_name": None,
            "secret": False,
        },
        schema=None,
    )

    manager.add_column(
        table_class_name="PolicyCount",
        tablename="policy_count",
        column_name="status",
        db_column_name="status",
        column_class_name="Varchar",
        column_class=Varchar,
        params={
            "length": 20,
            "default": "",
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

    manager.add_column(
        table_class_name="PolicyCount",
        tablename="policy_count",
        column_name="n",
        db_column_name="n",
        column_class_name="BigInt",
        column_class=BigInt,
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
