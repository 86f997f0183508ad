from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.engine.finder import engine_finder
from piccolo.columns.column_types import Numeric

ID = "2026-11-25T11:18:42:699841"
VERSION = "1.38.0"
DESCRIPTION = "quantity digits (20, 8): a travel line item holds max_payout units"


async def forwards():
    manager = MigrationManager(
        migration_id=ID, app_name="parametric", description=DESCRIPTION
    )

    # NUMERIC(12, 8) held at most 9,999.99999999 units: a travel line item holds max_payout
    # units (INR a night, up to 1,000,000). PostgreSQL enforces the size and is altered;
    # SQLite's NUMERIC has no size (and no ALTER COLUMN): nothing to do there.
    if engine_finder().engine_type == "postgres":
        manager.alter_column(
            table_class_name="LineItem",
            tablename="line_item",
            column_name="quantity",
            db_column_name="quantity",
            params={"digits": (20, 8)},
            old_params={"digits": (12, 8)},
            column_class=Numeric,
            old_column_class=Numeric,
            schema=None,
        )

        manager.alter_column(
            table_class_name="PolicyItem",
            tablename="policy_item",
            column_name="quantity",
            db_column_name="quantity",
            params={"digits": (20, 8)},
            old_params={"digits": (12, 8)},
            column_class=Numeric,
            old_column_class=Numeric,
            schema=None,
        )

    return manager
