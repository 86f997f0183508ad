from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.column_types import Bytea, Integer, Varchar

from models.db.column_migrations import add_table, column_params

ID = "2026-11-26T09:10:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "a whole-book portfolio run's losses per path by target (portfolio_paths): a quote's capital against the book"


async def forwards():
    manager = MigrationManager(migration_id=ID, app_name="parametric", description=DESCRIPTION)
    # Empty: the next whole-book PortfolioWorkflow run writes them (models/db/portfolio.py).
    add_table(manager, "PortfolioPaths", "portfolio_paths", [
        ("id", Varchar, column_params("", length=120, primary_key=True)),
        ("scope", Varchar, column_params("", length=40, index=True)),
        ("version", Integer, column_params(0)),
        ("monitoring_target_id", Varchar, column_params("", length=40)),
        ("paths", Integer, column_params(0)),
        ("losses", Bytea, column_params(b"")),
    ])

    return manager
