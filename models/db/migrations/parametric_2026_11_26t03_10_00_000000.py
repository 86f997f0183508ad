from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.column_types import Timestamptz, Varchar

from models.db.column_migrations import add_columns, column_params

ID = "2026-11-26T03:10:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "webhook endpoints: secrets sealed at rest, rotation (previous secret and its expiry), deletion"


async def seal_secrets():
    # Secrets written in the clear so far are sealed (models/db/webhook_secrets.py); the
    # code still reads a clear one, should an older process write one meanwhile.
    from models.db.webhooks import seal_plain_secrets

    await seal_plain_secrets()


async def unseal_secrets():
    # Back to the clear form the code of before reads (the previous secret goes with its column).
    from models.db.webhooks import unseal_all_secrets

    await unseal_all_secrets()


async def forwards():
    manager = MigrationManager(migration_id=ID, app_name="parametric", description=DESCRIPTION)
    manager.add_raw(seal_secrets)  # runs before the columns below are added: reads id and secret only
    manager.add_raw_backwards(unseal_secrets)
    add_columns(manager, "WebhookEndpoint", "webhook_endpoint", [
        ("previous_secret", Varchar, column_params("", length=100)),
        ("previous_secret_expires_at", Timestamptz, column_params(None, null=True)),
        ("secret_rotated_at", Timestamptz, column_params(None, null=True)),
    ])
    return manager
