from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.column_types import UUID, Text, Timestamptz, Varchar
from piccolo.columns.indexes import IndexMethod

ID = "2026-11-26T03:50:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "payout holds: the hold table and the policy a payout message pays"


def _params(**extra) -> dict:
    params = {
        "default": None, "null": False, "primary_key": False, "unique": False, "index": False,
        "index_method": IndexMethod.btree, "choices": None, "db_column_name": None, "secret": False,
    }
    params.update(extra)
    return params


COLUMNS = [
    ("id", UUID, _params(primary_key=True)),
    ("tenant_id", UUID, _params(index=True)),
    ("policy_id", UUID, _params(index=True)),
    ("state", Varchar, _params(length=20, default="", index=True)),
    ("reason", Text, _params(default="")),
    ("held_by", Varchar, _params(length=200, default="")),
    ("held_at", Timestamptz, _params()),
    ("released_by", Varchar, _params(length=200, default="")),
    ("released_at", Timestamptz, _params(null=True)),
    ("release_reason", Text, _params(default="")),
]


async def forwards():
    manager = MigrationManager(migration_id=ID, app_name="parametric", description=DESCRIPTION)
    manager.add_table(class_name="PayoutHold", tablename="payout_hold", schema=None, columns=None)
    for name, column_class, params in COLUMNS:
        manager.add_column(
            table_class_name="PayoutHold", tablename="payout_hold", column_name=name, db_column_name=name,
            column_class_name=column_class.__name__, column_class=column_class, params=params, schema=None,
        )
    # Messages written before holds name no policy: they are never held (they were sent, or
    # are sent at the next dispatch, as before).
    manager.add_column(
        table_class_name="WebhookMessage", tablename="webhook_message", column_name="policy_id",
        db_column_name="policy_id", column_class_name="UUID", column_class=UUID,
        params=_params(null=True, index=True), schema=None,
    )
    return manager
