from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.column_types import Text, Varchar

from models.db.column_migrations import add_columns, column_params

ID = "2026-11-29T12:40:00:000000"
VERSION = "1.38.0"
DESCRIPTION = (
    "settlement disputes' four eyes (issue 34): the proposer's stable staff id (the same person under another "
    "name cannot confirm) and the confirmer's reason"
)


async def forwards():
    manager = MigrationManager(migration_id=ID, app_name="parametric", description=DESCRIPTION)
    add_columns(manager, "SettlementDispute", "settlement_dispute", [
        ("proposed_by_id", Varchar, column_params("", length=64)),
        ("decision_reason", Text, column_params("")),
    ])
    return manager
