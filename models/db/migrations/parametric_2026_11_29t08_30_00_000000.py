import datetime as dt

from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.engine.finder import engine_finder

from models.domain.periods import dated_label

ID = "2026-11-29T08:30:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "partial-period coverages labelled with their dates, not their month's words (issue 33)"


def _day(value) -> dt.date:
    return value if isinstance(value, dt.date) else dt.date.fromisoformat(str(value)[:10])


async def forwards():
    manager = MigrationManager(migration_id=ID, app_name="parametric", description=DESCRIPTION)

    async def relabel():
        # Rows a tenant quote made for part of a month were labelled like the month's cover
        # ("Maximum temperature · New Delhi, Delhi · Dec 2026" for 1-28 Dec): give them their
        # dates (models/domain/periods.py dated_label). Whole months are left as they are.
        engine = engine_finder()
        rows = await engine.run_ddl("SELECT id, label, risk_period_start, risk_period_end FROM coverage")
        for row in rows or []:
            if not row["label"]:
                continue
            label = dated_label(row["label"], _day(row["risk_period_start"]), _day(row["risk_period_end"]))
            if label is not None:
                quoted = label.replace("'", "''")
                await engine.run_ddl(f"UPDATE coverage SET label = '{quoted}' WHERE id = '{row['id']}'")

    manager.add_raw(relabel)
    return manager
