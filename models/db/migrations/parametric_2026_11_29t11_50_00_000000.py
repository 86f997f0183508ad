from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.column_types import (
    JSON,
    UUID,
    Date,
    Integer,
    Numeric,
    Text,
    Timestamptz,
    Varchar,
)

from models.db.column_migrations import add_columns, add_table, column_params

ID = "2026-11-29T11:50:00:000000"
VERSION = "1.38.0"
DESCRIPTION = (
    "settlement on a source ladder (issue 34): coverages' settlement basis, observations' failed quality check, "
    "events' and settlements' stage (INITIAL | FINAL), settlement snapshots and disputes"
)
RATE = (12, 8)  # models/db/tables.py RATE

async def forwards():
    manager = MigrationManager(migration_id=ID, app_name="parametric", description=DESCRIPTION)
    # Null: coverages created before the ladder settle on final values only.
    add_columns(manager, "Coverage", "coverage", [("settlement_basis", JSON, column_params(None, null=True))])
    add_columns(manager, "Observation", "observation", [("quality_check", Varchar, column_params("", length=200))])
    # Every event recorded before the ladder was paid on final values.
    add_columns(manager, "ParametricEvent", "parametric_event", [("stage", Varchar, column_params("FINAL", length=10))])
    # Settled before the ladder: FINAL (filled by the next migration, 2026-11-29T11:50:01).
    add_columns(manager, "Settlement", "settlement", [("stage", Varchar, column_params("", length=10))])
    add_table(manager, "SettlementSnapshot", "settlement_snapshot", [
        ("id", Varchar, column_params("", length=80, primary_key=True)),
        ("coverage_id", UUID, column_params(None, index=True)),
        ("revision", Integer, column_params(0)),
        ("stage", Varchar, column_params("", length=10)),
        ("sha256", Varchar, column_params("", length=64)),
        ("body", Text, column_params("")),
        ("index_value", Numeric, column_params(None, null=True, digits=RATE)),
        ("created_at", Timestamptz, column_params(None)),
    ])
    add_table(manager, "SettlementDispute", "settlement_dispute", [
        ("id", UUID, column_params(None, primary_key=True)),
        ("coverage_id", UUID, column_params(None, index=True)),
        ("monitoring_target_id", Varchar, column_params("", length=40)),
        ("period_start", Date, column_params(None)),
        ("period_end", Date, column_params(None)),
        ("state", Varchar, column_params("", length=20, index=True)),
        ("primary_index", Numeric, column_params(None, null=True, digits=RATE)),
        ("other_index", Numeric, column_params(None, null=True, digits=RATE)),
        ("other_source", Varchar, column_params("", length=40)),
        ("detail", Text, column_params("")),
        ("proposed_by", Varchar, column_params("", length=200)),
        ("proposal", Varchar, column_params("", length=20)),
        ("proposal_reason", Text, column_params("")),
        ("decided_by", Varchar, column_params("", length=200)),
        ("decision", Varchar, column_params("", length=20)),
        ("decided_at", Timestamptz, column_params(None, null=True)),
        ("created_at", Timestamptz, column_params(None)),
    ])
    return manager
