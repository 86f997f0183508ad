from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.column_types import UUID, Date, Varchar
from piccolo.table import create_table_class

from models.db.core import write_transaction
from models.domain.periods import dated_label

ID = "2026-11-29T08:30:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "partial-period coverages labelled with their dates, not their month's words (issue 33)"

_Coverage = create_table_class("CoverageRelabel", class_kwargs={"tablename": "coverage"}, class_members={
    "id": UUID(primary_key=True), "label": Varchar(length=200, null=True, default=None),
    "risk_period_start": Date(), "risk_period_end": Date(),
})


async def relabel() -> None:
    """Rows a tenant quote made for part of a month were labelled like the month's cover
    ("Maximum temperature · New Delhi, Delhi · Dec 2026" for 1-28 Dec): give them their dates
    (models/domain/periods.py dated_label). Whole months are left as they are. One write
    transaction (the write lock taken at BEGIN: on SQLite it waits its turn behind the
    process's other writers instead of failing with "database is locked")."""
    rows = await _Coverage.select(_Coverage.id, _Coverage.label, _Coverage.risk_period_start, _Coverage.risk_period_end)
    changes = [
        (row["id"], label)
        for row in rows
        if row["label"]
        and (label := dated_label(row["label"], row["risk_period_start"], row["risk_period_end"])) is not None
    ]
    if not changes:
        return
    async with write_transaction():
        for coverage_id, label in changes:
            await _Coverage.update({_Coverage.label: label}).where(_Coverage.id == coverage_id)


async def forwards():
    manager = MigrationManager(migration_id=ID, app_name="parametric", description=DESCRIPTION)
    manager.add_raw(relabel)
    return manager
