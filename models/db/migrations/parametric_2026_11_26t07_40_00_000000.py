from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.column_types import Date, Integer, Text, Timestamptz, Varchar

from models.db.column_migrations import add_table, column_params

ID = "2026-11-26T07:40:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "the book's computed risk, versioned per scope (portfolio_result)"


async def forwards():
    manager = MigrationManager(migration_id=ID, app_name="parametric", description=DESCRIPTION)
    # Empty: the PortfolioWorkflow writes each run's result (models/db/portfolio.py).
    add_table(manager, "PortfolioResult", "portfolio_result", [
        ("id", Varchar, column_params("", length=80, primary_key=True)),  # <scope>:<version>: one row per version
        ("scope", Varchar, column_params("", length=40, index=True)),
        ("version", Integer, column_params(0)),
        ("book_hash", Varchar, column_params("", length=64)),
        ("as_of", Date, column_params()),
        ("result", Text, column_params("")),
        ("workflow_id", Varchar, column_params("", length=200)),
        ("computed_at", Timestamptz, column_params()),
    ])

    return manager
