from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.column_types import Timestamptz, Varchar
from piccolo.columns.indexes import IndexMethod

ID = "2026-11-26T03:30:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "pricing runs: who published them, and when (four eyes on reruns)"


def _nullable(**extra) -> dict:
    return {
        "default": None,
        "null": True,
        "primary_key": False,
        "unique": False,
        "index": False,
        "index_method": IndexMethod.btree,
        "choices": None,
        "db_column_name": None,
        "secret": False,
        **extra,
    }


async def forwards():
    manager = MigrationManager(migration_id=ID, app_name="parametric", description=DESCRIPTION)
    # Runs completed so far keep null: each was published at completion by its requester
    # (api/pricing/responses.py shows it so). New runs record the publisher.
    manager.add_column(
        table_class_name="PricingRun", tablename="pricing_run", column_name="published_by",
        db_column_name="published_by", column_class_name="Varchar", column_class=Varchar,
        params=_nullable(length=200), schema=None,
    )
    manager.add_column(
        table_class_name="PricingRun", tablename="pricing_run", column_name="published_at",
        db_column_name="published_at", column_class_name="Timestamptz", column_class=Timestamptz,
        params=_nullable(), schema=None,
    )
    return manager
