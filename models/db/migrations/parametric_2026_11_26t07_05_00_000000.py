from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.column_types import Integer, Timestamptz, Varchar

from models.db.column_migrations import add_table, column_params

ID = "2026-11-26T07:05:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "the fingerprints of the secrets keys that sealed in this database (sealing_key)"


async def forwards():
    manager = MigrationManager(migration_id=ID, app_name="parametric", description=DESCRIPTION)
    # Empty: the first process to check its key records it (models/db/sealing_keys.py).
    add_table(manager, "SealingKey", "sealing_key", [
        ("fingerprint", Varchar, column_params("", length=64, primary_key=True)),
        ("ordinal", Integer, column_params(0, unique=True)),
        ("recorded_at", Timestamptz, column_params()),
    ])
    return manager
