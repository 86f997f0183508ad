from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.column_types import JSON, UUID, Integer, Text, Timestamptz, Varchar
from piccolo.columns.defaults.timestamptz import TimestamptzNow
from piccolo.columns.defaults.uuid import UUID4
from piccolo.columns.indexes import IndexMethod

ID = "2026-11-26T03:20:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "observations: provenance (submitted_by, reason, approved_by) and held revisions"


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


OBSERVATION = dict(table_class_name="Observation", tablename="observation", schema=None)
REVISION = dict(table_class_name="ObservationRevision", tablename="observation_revision", schema=None)


def _column(manager: MigrationManager, table: dict, name: str, column_class, params: dict) -> None:
    manager.add_column(
        **table, column_name=name, db_column_name=name, column_class_name=column_class.__name__,
        column_class=column_class, params=params,
    )


async def forwards():
    manager = MigrationManager(migration_id=ID, app_name="parametric", description=DESCRIPTION)
    # Every value stored so far came before provenance was recorded: it says so.
    _column(manager, OBSERVATION, "submitted_by", Varchar, _params("unknown (before provenance)", length=200))
    _column(manager, OBSERVATION, "reason", Text, _params(""))
    _column(manager, OBSERVATION, "approved_by", Varchar, _params("", length=200))

    manager.add_table(class_name="ObservationRevision", tablename="observation_revision", schema=None, columns=None)
    _column(manager, REVISION, "id", UUID, _params(UUID4(), primary_key=True))
    _column(manager, REVISION, "state", Varchar, _params("", length=20, index=True))
    _column(manager, REVISION, "submitted_by", Varchar, _params("", length=200))
    _column(manager, REVISION, "reason", Text, _params(""))
    _column(manager, REVISION, "rows", JSON, _params("{}"))
    _column(manager, REVISION, "row_count", Integer, _params(0))
    _column(manager, REVISION, "settlements", JSON, _params("{}"))
    _column(manager, REVISION, "fingerprint", Varchar, _params("", length=64, index=True))
    _column(manager, REVISION, "created_at", Timestamptz, _params(TimestamptzNow()))
    _column(manager, REVISION, "decided_by", Varchar, _params("", length=200))
    _column(manager, REVISION, "decided_at", Timestamptz, _params(None, null=True))
    _column(manager, REVISION, "decision_reason", Text, _params(""))
    return manager
