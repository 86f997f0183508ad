"""The claims reserve, pure (issue 34; docs/portfolio.md, "Owed but not yet paid"): per data
set and month, what the book still owes on covers whose period has ended but which are not
settled FINAL, beside what it has paid on them.

A cover of a line item is **open** when its period has ended (before `as_of`) and its
coverage's settlement state is not SETTLED (WAITING, no settlement yet, INITIAL, FLAGGED or
DISPUTED). Its expected payout:

* with a settlement snapshot (an INITIAL payment, or a later one): the payout at the snapshot's
  **un-reduced** index (`result.indexValue`, not the INITIAL `paidIndex`), quantity × the
  per-unit payout, rounded half-even to the minor unit as settlement rounds;
* without an index yet: the cover's priced expected loss for its units, `risk_premium_pct` ×
  unit limit × quantity (the price's EL is its risk premium, docs/pricing-model.md), rounded
  half-even.

What it still owes = its expected payout − what it was paid so far (net of adjustments), never
below 0 (a negative true-up is waived, docs/settlement.md) and within the line item's cap less
what its covers were paid (`line_item_payout`; covers taken in their order on the line item,
as `settle_line_item` does). Money: integer minor units throughout.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal

from models.domain.money import from_minor, to_minor
from models.domain.payout import round_payout
from models.domain.quotes import CoverSnapshot
from models.domain.settlement import cover_payout_per_unit

SETTLED = "SETTLED"
OPEN_STATES = ("WAITING", "INITIAL", "FLAGGED", "DISPUTED")


@dataclass(frozen=True, slots=True)
class HeldCover:
    """One cover of one line item as the reserve reads it."""

    cover: CoverSnapshot
    data_set: str  # what it settles on
    state: str  # the coverage's settlement state; "" when it has no settlement yet (WAITING)
    paid_minor: int  # paid so far on this policy's cover, net of adjustments
    index_value: Decimal | None  # the latest snapshot's un-reduced index; None: no index yet


@dataclass(frozen=True, slots=True)
class HeldItem:
    """A line item of the scope's book whose covers' periods have ended."""

    quantity: Decimal
    sum_insured_minor: int  # the cap of all its covers together
    currency: str
    covers: tuple[HeldCover, ...]


@dataclass(slots=True)
class ReserveRow:
    """The open covers of one data set and month (the covers' period start, YYYY-MM)."""

    data_set: str
    month: str
    owed_minor: int = 0  # expected payout still owed on the open covers
    paid_minor: int = 0  # paid so far on every ended cover of the data set and month (FINAL ones too)
    open_covers: int = 0  # (line item, cover) pairs still open
    by_state: dict[str, int] = field(default_factory=dict)  # open covers by settlement state


def expected_minor(held: HeldCover, quantity: Decimal, currency: str) -> int:
    """The cover's expected payout for `quantity` units (module docstring), in minor units."""
    c = held.cover
    if held.index_value is not None:
        per_unit = cover_payout_per_unit(c, held.index_value)
    else:
        per_unit = c.risk_premium_pct * from_minor(c.limit_minor, c.currency)
    return to_minor(round_payout(per_unit * quantity, currency), currency)


def owed_of_item(item: HeldItem, as_of: dt.date) -> list[tuple[HeldCover, int]]:
    """(cover, still owed in minor units) for each open cover of the line item."""
    room = max(item.sum_insured_minor - sum(h.paid_minor for h in item.covers), 0)
    out = []
    for held in item.covers:
        if not is_unsettled(held, as_of):
            continue
        owed = min(max(expected_minor(held, item.quantity, item.currency) - held.paid_minor, 0), room)
        room -= owed
        out.append((held, owed))
    return out


def is_unsettled(held: HeldCover, as_of: dt.date) -> bool:
    return held.cover.end < as_of and held.state != SETTLED


def reserve_rows(items: list[HeldItem], as_of: dt.date) -> list[ReserveRow]:
    """The reserve per (data set, month) that has an open cover, sorted; `paid_minor` counts
    every ended cover of that data set and month."""
    rows: dict[tuple[str, str], ReserveRow] = {}
    paid: dict[tuple[str, str], int] = {}
    for item in items:
        for held in item.covers:
            if held.cover.end < as_of:
                key = (held.data_set, held.cover.start.strftime("%Y-%m"))
                paid[key] = paid.get(key, 0) + held.paid_minor
        for held, owed in owed_of_item(item, as_of):
            key = (held.data_set, held.cover.start.strftime("%Y-%m"))
            row = rows.setdefault(key, ReserveRow(*key))
            row.owed_minor += owed
            row.open_covers += 1
            state = held.state or "WAITING"
            row.by_state[state] = row.by_state.get(state, 0) + 1
    for key, row in rows.items():
        row.paid_minor = paid.get(key, 0)
    return [rows[k] for k in sorted(rows)]
