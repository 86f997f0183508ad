"""Hand-written migrations that add columns and tables: the column parameters Piccolo's
migration manager records, written once (`column_params`), and the calls that add them."""

from __future__ import annotations

from typing import Any

from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.indexes import IndexMethod
from piccolo.engine.finder import engine_finder

Column = tuple[str, type, dict[str, Any]]  # (name, column class, column_params(...))


def column_params(default: Any = None, **changes: Any) -> dict[str, Any]:
    """Piccolo's parameters of a column: not null, no index, `default`, then `changes`
    (e.g. `null=True`, `length=200`, `index=True`, `primary_key=True`)."""
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


def add_columns(manager: MigrationManager, class_name: str, tablename: str, columns: list[Column]) -> None:
    """Add `columns` to the table `tablename` (its Piccolo class `class_name`). Going
    backwards, an indexed column's index is dropped before the column: SQLite refuses to
    drop a column an index still names (PostgreSQL drops it along)."""
    for name, column_class, params in columns:
        manager.add_column(
            table_class_name=class_name, tablename=tablename, column_name=name, db_column_name=name,
            column_class_name=column_class.__name__, column_class=column_class, params=params, schema=None,
        )
    indexed = [f"{tablename}_{name}" for name, _, params in columns if params.get("index")]
    if indexed:

        async def drop_indexes() -> None:
            for index in indexed:
                await engine_finder().run_ddl(f"DROP INDEX IF EXISTS {index}")

        manager.add_raw_backwards(drop_indexes)


def add_table(manager: MigrationManager, class_name: str, tablename: str, columns: list[Column]) -> None:
    """A new table with `columns`."""
    manager.add_table(class_name=class_name, tablename=tablename, schema=None, columns=None)
    add_columns(manager, class_name, tablename, columns)
