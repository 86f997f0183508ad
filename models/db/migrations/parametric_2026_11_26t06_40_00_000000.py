from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.column_types import Integer

from models.db.column_migrations import add_columns, column_params

ID = "2026-11-26T06:40:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "webhook deliveries a payout hold stopped on their way (webhook_delivery.held_times)"


async def forwards():
    manager = MigrationManager(migration_id=ID, app_name="parametric", description=DESCRIPTION)
    # Deliveries made before: 0, their first run (`webhook:<id>`, the id they run under).
    add_columns(manager, "WebhookDelivery", "webhook_delivery", [("held_times", Integer, column_params(0))])
    return manager
