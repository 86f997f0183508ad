from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.column_types import Timestamptz, Varchar

from models.db.column_migrations import add_columns, column_params

ID = "2026-11-26T03:30:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "pricing runs: who published them, and when (four eyes on reruns)"


async def forwards():
    manager = MigrationManager(migration_id=ID, app_name="parametric", description=DESCRIPTION)
    # Runs completed so far keep null: each was published at completion by its requester
    # (api/pricing/responses.py shows it so). New runs record the publisher.
    add_columns(manager, "PricingRun", "pricing_run", [
        ("published_by", Varchar, column_params(None, null=True, length=200)),
        ("published_at", Timestamptz, column_params(None, null=True)),
    ])
    return manager
