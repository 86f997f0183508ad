from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.column_types import UUID, Varchar
from piccolo.table import create_table_class

from models.db.core import write_transaction

ID = "2026-11-29T11:50:01:000000"
VERSION = "1.38.0"
DESCRIPTION = "coverages settled before the source ladder were settled on final values: settlement.stage FINAL"

_Settlement = create_table_class("SettlementStage", class_kwargs={"tablename": "settlement"}, class_members={
    "coverage_id": UUID(primary_key=True), "state": Varchar(length=20), "stage": Varchar(length=10, default=""),
})


async def settled_are_final() -> None:
    """Coverages settled before the ladder were settled on final values only: FINAL."""
    async with write_transaction():
        await _Settlement.update({_Settlement.stage: "FINAL"}).where(_Settlement.state == "SETTLED")



async def forwards():
    manager = MigrationManager(migration_id=ID, app_name="parametric", description=DESCRIPTION)
    manager.add_raw(settled_are_final)
    return manager
