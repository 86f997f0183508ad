"""The revision windows of the settlements settled before the window was kept in the
database: a period every coverage of which is SETTLED closes its window 90 days after the
run that settled its last coverage first (its earliest index record: `settlement_index`,
written by that run), as its workflow counted (workflows/settlement.py, REVISION_WINDOW)."""

import datetime as dt

from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.column_types import UUID, Date, Timestamptz, Varchar
from piccolo.table import create_table_class

ID = "2026-11-29T07:51:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "the revision windows of the settlements settled before (settlement.revisions_until)"

WINDOW = dt.timedelta(days=90)  # workflows/settlement.py REVISION_WINDOW when this was written

_Settlement = create_table_class("SettlementWindowBackfill", class_kwargs={"tablename": "settlement"}, class_members={
    "coverage_id": UUID(primary_key=True), "monitoring_target_id": Varchar(length=40), "period_start": Date(),
    "period_end": Date(), "state": Varchar(length=20), "updated_at": Timestamptz(),
    "revisions_until": Timestamptz(null=True, default=None),
})
_Index = create_table_class("SettlementIndexBackfill", class_kwargs={"tablename": "settlement_index"}, class_members={
    "id": Varchar(length=80, primary_key=True), "coverage_id": UUID(), "computed_at": Timestamptz(),
})


async def windows() -> None:
    rows = await _Settlement.select(
        _Settlement.coverage_id, _Settlement.monitoring_target_id, _Settlement.period_start, _Settlement.period_end,
        _Settlement.state, _Settlement.updated_at,
    ).where(_Settlement.revisions_until.is_null())
    first: dict = {}
    for r in await _Index.select(_Index.coverage_id, _Index.computed_at):
        have = first.get(r["coverage_id"])
        first[r["coverage_id"]] = r["computed_at"] if have is None else min(have, r["computed_at"])
    periods: dict = {}
    for r in rows:
        periods.setdefault((r["monitoring_target_id"], r["period_start"], r["period_end"]), []).append(r)
    for (target, start, end), members in periods.items():
        if any(m["state"] != "SETTLED" for m in members):
            continue  # still waiting for data: its window opens when it settles
        settled_at = max(first.get(m["coverage_id"]) or m["updated_at"] for m in members)
        await _Settlement.update({_Settlement.revisions_until: settled_at + WINDOW}).where(
            (_Settlement.monitoring_target_id == target) & (_Settlement.period_start == start)
            & (_Settlement.period_end == end) & _Settlement.revisions_until.is_null()
        )


async def forwards():
    manager = MigrationManager(migration_id=ID, app_name="parametric", description=DESCRIPTION)
    manager.add_raw(windows)
    return manager
