from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.column_types import JSON

from models.db.column_migrations import add_columns, column_params

ID = "2026-11-26T05:30:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "travel_coverage: the stay's parameter band (nights paid per bootstrap replicate)"


async def forwards():
    manager = MigrationManager(migration_id=ID, app_name="parametric", description=DESCRIPTION)
    # Stays priced before pricing-2026.4.0 have no band: null, which the quote reads as no
    # uncertainty load (docs/travel.md, "Price"). New stays store one distribution of nights
    # paid per bootstrap replicate of the target's model.
    add_columns(
        manager, "TravelCoverage", "travel_coverage", [("replicate_counts", JSON, column_params(None, null=True))]
    )
    return manager
