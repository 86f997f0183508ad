"""Wire shapes of events, claim explanations and settlements from their rows."""

from __future__ import annotations


from decimal import Decimal

from models.db.core import json_value
from models.domain.index_catalog import BY_CODE
from models.domain.money import Money, from_minor
from models.domain.claims import claim_arithmetic, claim_text, index_path
from models.temporal.ids import settlement_workflow_id
from models.wire.settlement import (
    ClaimExplanation,
    ParametricEventView,
    SettlementDisputeView,
    SettlementView,
    SignedAmount,
)
from models.wire.travel import ValidatedEvent, ValidatedEvents


def event_view(row: dict) -> ParametricEventView:
    return ParametricEventView(
        id=row["id"],
        policy_id=row["policy_id"],
        coverage_id=row["coverage_id"],
        line_item_id=row["line_item_id"],
        kind=row["kind"],
        event_type=row["event_type"],
        validated_day=row["validated_day"],
        index_value=Decimal(row["index_value"]),
        payout=SignedAmount(amount=from_minor(row["payout_minor"], row["currency"]), currency=row["currency"]),
        data_set=row["data_set"],
        revision=row["revision"],
        simulated=bool(row["simulated"]),
        stage=row.get("stage") or "FINAL",
    )


def explanation(row: dict, index_row: dict | None, item, snapshot: dict | None = None) -> ClaimExplanation:
    """`snapshot`: the event's settlement snapshot row (its coverage and revision), if kept."""
    a = claim_arithmetic(row, item, snapshot)
    code = a["indexCode"]
    spec = BY_CODE[code]
    cover = next(c for c in item.covers if c.coverage_id == row["coverage_id"])
    path = index_path(json_value(index_row["path"]) if index_row else [], a.get("countedDays"), row["data_set"], snapshot)
    return ClaimExplanation(
        event=event_view(row),
        index_code=code,
        index_name=spec.name,
        unit=spec.unit,
        aggregation=spec.aggregation,
        period_start=cover.start,
        period_end=cover.end,
        trigger=cover.trigger,
        exit=cover.exit,
        direction=cover.direction,
        index_path=path,
        arithmetic=a,
        text=claim_text(spec, a, (cover.start, cover.end), row["currency"]),
        snapshot_sha256=None if snapshot is None else snapshot["sha256"],
    )


def settlement_view(row: dict, currency: str = "INR", dispute: SettlementDisputeView | None = None) -> SettlementView:
    return SettlementView(
        coverage_id=row["coverage_id"],
        monitoring_target_id=row["monitoring_target_id"],
        period_start=row["period_start"],
        period_end=row["period_end"],
        state=row["state"],
        revision=row["revision"],
        index_value=None if row["index_value"] is None else Decimal(row["index_value"]),
        detail=row["detail"],
        policies=row["policies"],
        paid=Money.of_minor(row["paid_minor"], currency),
        workflow_id=settlement_workflow_id(row["monitoring_target_id"], row["period_start"], row["period_end"]),
        updated_at=row["updated_at"],
        dispute=dispute,
    )




def validated_events(rows: list[dict]) -> ValidatedEvents:
    """The travel surface's by-day shape, used by every surface's by-day list."""
    return ValidatedEvents(
        validated_events=[
            ValidatedEvent(
                policy_id=str(r["policy_id"]),
                event_type=r["event_type"],
                validated_day=r["validated_day"],
                validated_amount=from_minor(r["payout_minor"], r["currency"]),
                event_id=str(r["id"]),
                kind=r["kind"],
                adjustment_of=str(r["adjustment_of"]) if r.get("adjustment_of") else None,
                stage=r.get("stage") or "FINAL",
            )
            for r in rows
        ]
    )
