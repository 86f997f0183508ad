"""The migration that gives a partial period's coverages their dates (issue 33): rows a tenant
quote made for 1-28 Dec were labelled "… · Dec 2026" like the month's cover. Whole months and
rows already dated are left as they are. Runs the migration's statements on the suite's
database (SQLite, or PostgreSQL on a PostgreSQL run)."""

from __future__ import annotations

import datetime as dt
import importlib
import uuid
from decimal import Decimal

from models.clock import utcnow
from models.db.catalogue import _coverage_row
from models.db.tables import Coverage
from models.domain.terms import CoverTerms, SiteRef

MIGRATION = importlib.import_module("models.db.migrations.parametric_2026_11_29t08_30_00_000000")
SITE = SiteRef(target_id="IN-12.875N-077.625E", target_name="Bengaluru GPO (560001)", district="Bengaluru Urban",
               state="Karnataka", latitude=12.875, longitude=77.625)


def row(index_code: str, start: dt.date, end: dt.date, label: str) -> Coverage:
    terms = CoverTerms(index_code=index_code, start=start, end=end, direction="ABOVE", trigger=Decimal("100"),
                       exit=Decimal("200"), limit=Decimal("100000"), min_payout=Decimal("0"),
                       payout_per_unit=Decimal("1000"), currency="INR")
    r = _coverage_row(SITE, terms, "test carrier", "test", utcnow(),
                      status="ACTIVE", ui_state="active", expected_loss_ratio=Decimal("0.65"), simulations=0,
                      pricing_version=0)
    r.id = uuid.uuid4()
    r.label = label
    return r


async def test_partial_periods_get_their_dates_and_months_stay(database):
    start = dt.date(2031, 3, 1)
    partial = row("TEMPERATURE_MAX", start, dt.date(2031, 3, 28), "Maximum temperature · Bengaluru GPO · Mar 2031")
    whole = row("RAINFALL_DEFICIT", start, dt.date(2031, 3, 31), "Rainfall deficit · Bengaluru GPO · Mar 2031")
    await Coverage.insert(partial, whole)
    try:
        manager = await MIGRATION.forwards()
        await manager.run()
        labels = {r["id"]: r["label"] for r in await Coverage.select(Coverage.id, Coverage.label).where(
            Coverage.id.is_in([partial.id, whole.id]))}
        assert labels[partial.id] == "Maximum temperature · Bengaluru GPO · 01 Mar 2031 - 28 Mar 2031"
        assert labels[whole.id] == "Rainfall deficit · Bengaluru GPO · Mar 2031"
    finally:
        await Coverage.delete().where(Coverage.id.is_in([partial.id, whole.id]))
