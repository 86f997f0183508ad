"""Wire shapes of events, claim explanations and settlements from their rows."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from models.db.core import json_value
from models.domain.index_catalog import BY_CODE
from models.domain.money import Money, from_minor
from models.domain.settlement import plain
from models.temporal.ids import settlement_workflow_id
from models.wire.settlement import ClaimExplanation, ParametricEventView, SettlementView, SignedAmount
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
    )


def _text(spec, a: dict, period: tuple[dt.date, dt.date], currency: str, unit: str) -> str:
    what = {"SUM": "Total", "MAX": "Maximum", "DAILY_COUNT": "Days counted of"}[spec.aggregation]
    word = "at or above" if a["direction"] == "ABOVE" else "at or below"
    lines = [f"{what} {spec.name.lower()} over {period[0]}..{period[1]}: {a['indexValue']} "
             f"{'day(s)' if spec.aggregation == 'DAILY_COUNT' else unit}; trigger {word} {a['trigger']} {unit}"
             + (f", exit {a['exit']} {unit}" if a.get("exit") else "") + "."]
    if spec.aggregation == "DAILY_COUNT":
        lines.append(f"Per unit of cover: {a['payoutPerUnitPerIndexUnit']} {currency} per counted day, at most "
                     f"{a['limitPerUnit']} {currency}: {a['payoutPerUnit']} {currency}.")
    else:
        lines.append(f"Per unit of cover: minimum {a['minPayoutPerUnit']} {currency} at the trigger plus "
                     f"{a['payoutPerUnitPerIndexUnit']} {currency} per {unit} beyond it, at most {a['limitPerUnit']} "
                     f"{currency} (the exit pays the limit): {a['payoutPerUnit']} {currency}.")
    lines.append(f"× {a['quantity']} units = {a['coverPayout']} {currency}. The line item pays at most "
                 f"{a['lineItemSumInsured']} {currency}; its other covers were paid {a['paidByOtherCoversOfLineItem']} "
                 f"{currency}: this cover is paid {a['paid']} {currency}"
                 + (f" (before this revision {a['previouslyPaid']} {currency})." if a["previouslyPaid"] != "0.00" else "."))
    return " ".join(lines)


def arithmetic_of(row: dict, item) -> dict:
    """The payout arithmetic of an event: its own figures (stored with it) beside the terms,
    quantity and sum insured of its line item (frozen at sale)."""
    own = json_value(row["explanation"]) or {}
    cover = next(c for c in item.covers if c.coverage_id == row["coverage_id"])
    currency = item.currency
    money = lambda minor: str(from_minor(minor, currency))  # noqa: E731
    paid_total = own["coverPayoutMinor"] if "coverPayoutMinor" in own else None
    return {
        "indexCode": cover.index_code,
        "indexValue": plain(Decimal(row["index_value"])),
        "countedDays": own.get("countedDays"),
        "direction": cover.direction,
        "trigger": plain(cover.trigger),
        "exit": None if cover.exit is None else plain(cover.exit),
        "minPayoutPerUnit": money(cover.min_payout_minor),
        "payoutPerUnitPerIndexUnit": money(cover.payout_per_unit_minor),
        "limitPerUnit": money(cover.limit_minor),
        "quantity": plain(item.quantity),
        "payoutPerUnit": own.get("payoutPerUnit"),
        "coverPayout": None if paid_total is None else money(paid_total),
        "lineItemSumInsured": money(item.sum_insured_minor),
        "paidByOtherCoversOfLineItem": money(own.get("paidByOtherCoversMinor", 0)),
        "paid": money(own.get("previouslyPaidMinor", 0) + row["payout_minor"]),
        "previouslyPaid": money(own.get("previouslyPaidMinor", 0)),
        "decisiveMoment": dt.datetime.combine(
            cover.end + dt.timedelta(days=1), dt.time(0), tzinfo=dt.timezone.utc
        ).isoformat(),
    }


def explanation(row: dict, index_row: dict | None, item) -> ClaimExplanation:
    a = arithmetic_of(row, item)
    code = a["indexCode"]
    spec = BY_CODE[code]
    cover = next(c for c in item.covers if c.coverage_id == row["coverage_id"])
    path = json_value(index_row["path"]) if index_row else []
    counted = set(a.get("countedDays") or [])
    if counted:
        path = [{**p, "counted": p["day"] in counted} for p in path]
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
        text=_text(spec, a, (cover.start, cover.end), row["currency"], spec.unit),
    )


def settlement_view(row: dict, currency: str = "INR") -> SettlementView:
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
            )
            for r in rows
        ]
    )
