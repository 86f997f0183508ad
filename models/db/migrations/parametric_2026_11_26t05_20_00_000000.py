from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.column_types import Varchar

from models.db.column_migrations import add_columns, column_params

ID = "2026-11-26T05:20:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "coverage: the data set each cover settles on"


async def forwards():
    manager = MigrationManager(migration_id=ID, app_name="parametric", description=DESCRIPTION)
    # Every coverage so far was priced before pricing-2026.4.0: null, which the code reads as
    # the data set its index settled on then (models/domain/observations.py, settles_on:
    # heat and wind on the reanalysis, REAN-SFC-HOURLY). New coverages name theirs.
    add_columns(manager, "Coverage", "coverage", [("data_set", Varchar, column_params(None, null=True, length=40))])
    return manager
