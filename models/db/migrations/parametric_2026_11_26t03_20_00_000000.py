from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.column_types import JSON, UUID, Integer, Text, Timestamptz, Varchar
from piccolo.columns.defaults.timestamptz import TimestamptzNow
from piccolo.columns.defaults.uuid import UUID4

from models.db.column_migrations import add_columns, add_table, column_params

ID = "2026-11-26T03:20:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "observations: provenance (submitted_by, reason, approved_by) and held revisions"


async def forwards():
    manager = MigrationManager(migration_id=ID, app_name="parametric", description=DESCRIPTION)
    # Every value stored so far came before provenance was recorded: it says so.
    add_columns(manager, "Observation", "observation", [
        ("submitted_by", Varchar, column_params("unknown (before provenance)", length=200)),
        ("reason", Text, column_params("")),
        ("approved_by", Varchar, column_params("", length=200)),
    ])
    add_table(manager, "ObservationRevision", "observation_revision", [
        ("id", UUID, column_params(UUID4(), primary_key=True)),
        ("state", Varchar, column_params("", length=20, index=True)),
        ("submitted_by", Varchar, column_params("", length=200)),
        ("reason", Text, column_params("")),
        ("rows", JSON, column_params("{}")),
        ("row_count", Integer, column_params(0)),
        ("settlements", JSON, column_params("{}")),
        ("fingerprint", Varchar, column_params("", length=64, index=True)),
        ("created_at", Timestamptz, column_params(TimestamptzNow())),
        ("decided_by", Varchar, column_params("", length=200)),
        ("decided_at", Timestamptz, column_params(None, null=True)),
        ("decision_reason", Text, column_params("")),
    ])
    return manager
