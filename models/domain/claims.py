"""What a claim explanation says: an event's payout arithmetic from its own figures and its
line item's frozen terms, in numbers and in words, and the daily values it used with the rung
and source of each (the API's explanation and the claim report PDF both use it). `row`: the
event's columns; `item`: its line item (covers, quantity, sum insured, currency); `snapshot`:
its settlement snapshot row (models/db/settlement_snapshots.py) when one was kept."""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal

from models.domain.money import from_minor
from models.domain.settlement import plain


def plain_money(amount: str | Decimal, currency: str) -> str:
    """"250,000.00 INR": an amount of the arithmetic (a decimal string) with separators."""
    return f"{Decimal(amount):,.2f} {currency}"


def claim_text(spec, a: dict, period: tuple[dt.date, dt.date], currency: str, money=None) -> str:
    """The payout arithmetic of an event in words. `money(amount, currency)` formats each
    amount (the arithmetic's decimal strings): `plain_money` by default (the API), the
    documents' own format in the claim report, so a document says every figure one way."""
    fmt = money or plain_money
    money = lambda amount, cur: "n/a" if amount is None else fmt(amount, cur)  # noqa: E731 - older events lack some figures
    unit = spec.unit
    word = "at or above" if a["direction"] == "ABOVE" else "at or below"
    # the index's name says what it aggregates ("Monthly total rainfall"); a count says so
    what = f"Days counted of {spec.name.lower()}" if spec.aggregation == "DAILY_COUNT" else spec.name
    span = f"{period[0].day} {period[0]:%b %Y} – {period[1].day} {period[1]:%b %Y}"
    lines = [f"{what} over {span}: {a['indexValue']} "
             f"{'day(s)' if spec.aggregation == 'DAILY_COUNT' else unit}; trigger {word} {a['trigger']} {unit}"
             + (f", exit {a['exit']} {unit}" if a.get("exit") else "") + "."]
    if spec.aggregation == "DAILY_COUNT":
        lines.append(f"Per unit of cover: {money(a['payoutPerUnitPerIndexUnit'], currency)} per counted day, at most "
                     f"{money(a['limitPerUnit'], currency)}: {money(a['payoutPerUnit'], currency)}.")
    else:
        lines.append(f"Per unit of cover: minimum {money(a['minPayoutPerUnit'], currency)} at the trigger plus "
                     f"{money(a['payoutPerUnitPerIndexUnit'], currency)} per {unit} beyond it, at most "
                     f"{money(a['limitPerUnit'], currency)} (the exit pays the limit): {money(a['payoutPerUnit'], currency)}.")
    if a.get("stage") == "INITIAL" and a.get("paidIndex") is not None:
        lines.append(f"First payment (INITIAL), on values not all final: the index on them is {a['ladderIndexValue']} "
                     f"with a stated error of {a['indexError']}; it is paid on {a['paidIndex']} (less "
                     f"{a.get('initialErrorShare') or 1} × the error: what is certain now), and the true-up (FINAL) "
                     f"follows on final values.")
    if a.get("waived"):
        lines.append(f"The final values give {money(a['waived'], currency)} less than the INITIAL payment paid: "
                     f"waived ({a['waivedReason']}).")
    lines.append(f"× {a['quantity']} units = {money(a['coverPayout'], currency)}. The line item pays at most "
                 f"{money(a['lineItemSumInsured'], currency)}; its other covers were paid "
                 f"{money(a['paidByOtherCoversOfLineItem'], currency)}: this cover is paid {money(a['paid'], currency)}"
                 + (f" (before this revision {money(a['previouslyPaid'], currency)})." if a["previouslyPaid"] != "0.00" else "."))
    return " ".join(lines)


def index_path(path: list[dict], counted_days: list[str] | None, data_set: str, snapshot: dict | None = None) -> list[dict]:
    """The daily values an event used, as the explanation shows them: {day, value, revision,
    rung, dataSet, source, error, counted}. `path` is the settlement index's: a cover on a
    source ladder has each day's rung, data set, source and error there; a final-only cover's
    days take them from the event's snapshot (`snapshot`: its row, every day FINAL), and a
    path settled before snapshots were kept gets rung FINAL, error 0 and source null (its
    values were the data set's final values; their source was not recorded then). With
    `counted_days` (a daily count), `counted` is whether the day counted for this event."""
    counted = set(counted_days or [])
    kept = {v["day"]: v for v in snapshot["snapshot"]["values"]} if snapshot else {}
    out = []
    for p in path:
        where = p if "rung" in p else kept.get(p["day"], {})
        day = {**p, "rung": where.get("rung") or "FINAL", "dataSet": where.get("dataSet") or data_set,
               "source": where.get("source"), "error": where.get("error") or "0"}
        if counted:
            day["counted"] = p["day"] in counted
        out.append(day)
    return out


def claim_arithmetic(row: dict, item, snapshot: dict | None = None) -> dict:
    """The payout arithmetic of an event: its own figures (stored with it) beside the terms,
    quantity and sum insured of its line item (frozen at sale), and, from its settlement
    snapshot, the stage and the index the stage paid on (INITIAL: the index less its error)."""
    own = row["explanation"]
    own = (json.loads(own) if isinstance(own, str) else own) or {}
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
        "stage": row.get("stage") or "FINAL",
        **_ladder_figures(own, snapshot, money),
    }


def _ladder_figures(own: dict, snapshot: dict | None, money) -> dict:
    """A ladder cover's event (issue 34): the index on its values, its stated error and the
    index the stage paid on (from the event's own explanation, else its snapshot), the
    snapshot it was settled on, and what a true-up waived. None of these for other events."""
    out = {}
    result = snapshot["snapshot"]["result"] if snapshot else {}
    for key, own_key, snap_key in (("ladderIndexValue", "indexValue", "indexValue"), ("indexError", "indexError", "indexError"),
                                   ("paidIndex", "paidIndex", "paidIndex")):
        value = own.get(own_key, result.get(snap_key))
        if value is not None:
            out[key] = value
    if snapshot is not None:
        out |= {"snapshotRevision": snapshot["revision"], "snapshotSha256": snapshot["sha256"],
                "initialErrorShare": snapshot["snapshot"]["initialErrorShare"]}
    if own.get("waivedMinor"):
        out |= {"waived": money(own["waivedMinor"]), "waivedReason": own.get("waived", "")}
    return out
