from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.column_types import UUID, Text, Timestamptz, Varchar

from models.db.column_migrations import add_columns, add_table, column_params

ID = "2026-11-26T03:50:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "payout holds: the hold table and the policy a payout message pays"


async def forwards():
    manager = MigrationManager(migration_id=ID, app_name="parametric", description=DESCRIPTION)
    add_table(manager, "PayoutHold", "payout_hold", [
        ("id", UUID, column_params(primary_key=True)),
        ("tenant_id", UUID, column_params(index=True)),
        ("policy_id", UUID, column_params(index=True)),
        ("state", Varchar, column_params("", length=20, index=True)),
        ("reason", Text, column_params("")),
        ("held_by", Varchar, column_params("", length=200)),
        ("held_at", Timestamptz, column_params()),
        ("released_by", Varchar, column_params("", length=200)),
        ("released_at", Timestamptz, column_params(None, null=True)),
        ("release_reason", Text, column_params("")),
    ])
    # Messages written before holds name no policy: they are never held (they were sent, or
    # are sent at the next dispatch, as before).
    add_columns(manager, "WebhookMessage", "webhook_message",
                [("policy_id", UUID, column_params(None, null=True, index=True))])
    return manager
