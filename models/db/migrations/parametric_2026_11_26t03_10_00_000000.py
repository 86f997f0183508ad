from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.column_types import Timestamptz, Varchar
from piccolo.columns.indexes import IndexMethod

ID = "2026-11-26T03:10:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "webhook endpoints: secrets sealed at rest, rotation (previous secret and its expiry), deletion"

ENDPOINT = dict(table_class_name="WebhookEndpoint", tablename="webhook_endpoint", schema=None)


def _params(default, **changes) -> dict:
    return {
        "default": default,
        "null": False,
        "primary_key": False,
        "unique": False,
        "index": False,
        "index_method": IndexMethod.btree,
        "choices": None,
        "db_column_name": None,
        "secret": False,
        **changes,
    }


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
    manager.add_column(
        **ENDPOINT, column_name="previous_secret", db_column_name="previous_secret",
        column_class_name="Varchar", column_class=Varchar, params=_params("", length=100),
    )
    for name in ("previous_secret_expires_at", "secret_rotated_at"):
        manager.add_column(
            **ENDPOINT, column_name=name, db_column_name=name,
            column_class_name="Timestamptz", column_class=Timestamptz, params=_params(None, null=True),
        )
    return manager
