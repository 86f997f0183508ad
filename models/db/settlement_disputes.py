"""Disputes settlement opens when sources disagree (issue 34; docs/settlement.md, "Sources
that disagree"): one `settlement_dispute` row per disagreement, OPEN until two data staff
members decide it (models/db/dispute_decisions.py); nothing is paid on the coverage meanwhile.

Decisions: PRIMARY | FALLBACK (the primary's index against the calibrated fallback's, at
the INITIAL settlement), FINAL | PROVISIONAL (the final index against the INITIAL one, at
the true-up).
"""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal

from models.clock import utcnow
from models.db.core import insert_rows, write_transaction
from models.db.tables import SettlementDispute

OPEN_STATES = ("OPEN", "PROPOSED")
INITIAL_DECISIONS = ("PRIMARY", "FALLBACK")
TRUE_UP_DECISIONS = ("FINAL", "PROVISIONAL")


async def open_dispute(
    coverage_id: uuid.UUID, target_id: str, start: dt.date, end: dt.date, *, primary_index: Decimal,
    other_index: Decimal, other_source: str, detail: str,
) -> bool:
    """Open a dispute on the coverage (OPEN) unless one is open or proposed already; True if
    this call opened it. Idempotent: a retried settlement finds its own and opens none."""
    async with write_transaction():
        if await open_dispute_of(coverage_id) is not None:
            return False
        await insert_rows([
            SettlementDispute(
                id=uuid.uuid4(), coverage_id=coverage_id, monitoring_target_id=target_id, period_start=start,
                period_end=end, state="OPEN", primary_index=primary_index, other_index=other_index,
                other_source=other_source, detail=detail, created_at=utcnow(),
            )
        ])
    return True


async def open_dispute_of(coverage_id: uuid.UUID) -> dict | None:
    """The coverage's dispute not decided yet (OPEN or PROPOSED), if any."""
    return await SettlementDispute.select().where(
        (SettlementDispute.coverage_id == coverage_id) & SettlementDispute.state.is_in(list(OPEN_STATES))
    ).first()


async def decided_source(coverage_id: uuid.UUID) -> str | None:
    """The decision of the coverage's latest DECIDED dispute (PRIMARY | FALLBACK | FINAL |
    PROVISIONAL), or None when none is decided."""
    row = await SettlementDispute.select(SettlementDispute.decision).where(
        (SettlementDispute.coverage_id == coverage_id) & (SettlementDispute.state == "DECIDED")
    ).order_by(SettlementDispute.decided_at, ascending=False).first()
    return None if row is None else row["decision"]
