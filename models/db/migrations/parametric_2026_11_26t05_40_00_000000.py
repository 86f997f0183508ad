from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.column_types import Text, Timestamptz, Varchar
from piccolo.columns.defaults.timestamptz import TimestamptzNow

from models.db.column_migrations import add_table, column_params

ID = "2026-11-26T05:40:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "package_price: packages priced per unit of sum insured, keyed by their content (issue 26)"


async def forwards():
    manager = MigrationManager(migration_id=ID, app_name="parametric", description=DESCRIPTION)
    add_table(
        manager,
        "PackagePriceRow",
        "package_price",
        [
            ("key", Varchar, column_params("", length=64, primary_key=True)),
            ("model_version", Varchar, column_params("", length=80)),
            ("price", Text, column_params("")),
            ("created_at", Timestamptz, column_params(TimestamptzNow())),
        ],
    )
    return manager
