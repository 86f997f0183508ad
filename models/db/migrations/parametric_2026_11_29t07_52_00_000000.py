from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.column_types import JSON

from models.db.column_migrations import add_columns, column_params

ID = "2026-11-29T07:52:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "a rerun's workflow input kept with its QUEUED pricing run (pricing_run.workflow_input): the start sweep"


async def forwards():
    manager = MigrationManager(migration_id=ID, app_name="parametric", description=DESCRIPTION)
    # Runs written before: none (the sweep leaves them; docs/runbook.md, "Lost workflow starts").
    add_columns(manager, "PricingRun", "pricing_run", [("workflow_input", JSON, column_params(None, null=True))])
    return manager
