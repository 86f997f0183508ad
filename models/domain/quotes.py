"""Pure construction of a tenant-surface quote from the priced catalogue (no I/O).

- One line item per calendar month of the risk period; a partial first or last month is
  its own line item over just those days (docs/quotes-and-policies.md).
- Up to two covers per line item: excess and deficit rainfall; where the model finds one of
  them meaningless (rain too rare in that month), the next index in COVER_PREFERENCE takes its
  place (maximum temperature, then wind). A month with only one viable cover gets a line item
  with that one cover (the same sum insured, quantity, minimum payout and premium rule); a
  month with none gets no line item and is listed in the quote's `uncovered_months` with why
  (`UncoveredMonth`). A period with no viable cover in any month is refused (QuoteError).
- A line item of sum insured S holds quantity = S / unit limit units of each cover and pays
  at most S in all: its covers' payouts summed and capped at S (``line_item_payout``; the
  heat fallback beside excess rainfall can pay in the same month, excess and deficit never
  both pay); premium = Σ covers' gross premium rate × S, rounded half-even to the
  minor unit per line item; the quote's totals are exact sums of the line items'.
- The rates built here are the covers' stand-alone catalogue prices; the quote's workflow
  prices the package jointly, with the caps, and writes each cover's part of the package's
  premium in their place (models/domain/packages.py), as a fast quote's job does.
"""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import ROUND_HALF_EVEN, Decimal

import msgspec

from models.domain.cover_overlaps import CoverKey, days, overlaps
from models.domain.data_sets import settles_on
from models.domain.settlement_basis import SettlementBasis
from models.domain.index_catalog import BY_CODE
from models.domain.money import from_minor
from models.domain.statuses import CoverageStatus
from models.domain.terms import CoverageSlot, CoverTerms

COVER_PREFERENCE = ["RAINFALL_MONTHLY_TOTAL", "RAINFALL_DEFICIT", "TEMPERATURE_MAX", "WIND_MAX_SPEED"]
COVERS_PER_LINE_ITEM = 2
QUOTE_VALIDITY_DAYS = 30


class CoverSnapshot(msgspec.Struct, frozen=True):
    """A cover as sold: the coverage's terms and price frozen at quote time."""

    coverage_id: uuid.UUID
    index_code: str
    index_definition_id: uuid.UUID
    start: dt.date
    end: dt.date
    direction: str
    trigger: Decimal
    exit: Decimal | None
    currency: str
    limit_minor: int  # one unit of cover
    min_payout_minor: int
    payout_per_unit_minor: int  # per index unit, one unit of cover
    gross_premium_pct: Decimal  # fraction of the sum insured
    risk_premium_pct: Decimal
    pricing_version: int
    # The data set the cover settles on (the coverage's, models/domain/observations.py);
    # None in snapshots frozen before pricing-2026.4.0: their index's data set of then.
    data_set: str | None = None
    # The settlement basis frozen at sale (issue 34: source ladder, calculation deadline,
    # true-up window; models/domain/settlement_basis.py); None: sold before the ladder, or on
    # a data set without one: settles on final values only.
    settlement_basis: SettlementBasis | None = None

    @property
    def terms(self) -> CoverTerms:
        return CoverTerms(
            index_code=self.index_code,
            start=self.start,
            end=self.end,
            direction=self.direction,
            trigger=self.trigger,
            exit=self.exit,
            limit=from_minor(self.limit_minor, self.currency),
            min_payout=from_minor(self.min_payout_minor, self.currency),
            payout_per_unit=from_minor(self.payout_per_unit_minor, self.currency),
            currency=self.currency,
            data_set=settles_on(self.index_code, self.data_set),
        )


class LineItemDraft(msgspec.Struct, frozen=True):
    id: uuid.UUID
    position: int
    start: dt.date
    end: dt.date
    currency: str
    quantity: Decimal
    sum_insured_minor: int
    total_sum_insured_minor: int
    min_payout_minor: int
    payout_per_unit_minor: int
    premium_minor: int
    covers: list[CoverSnapshot]


class UncoveredMonth(msgspec.Struct, frozen=True):
    """A month (or the partial first or last month) of a quote's risk period that has no line
    item, and why: `reason` is NO_VIABLE_COVER (no index has a cover with a meaningful trigger
    at the target that month) or HELD_FOR_REVIEW (a cover exists but its price is held for an
    actuary, docs/catalogue.md); `detail` says it in words."""

    start: dt.date
    end: dt.date
    reason: str
    detail: str


NO_VIABLE_COVER = "NO_VIABLE_COVER"
HELD_FOR_REVIEW = "HELD_FOR_REVIEW"


class QuoteDraft(msgspec.Struct, frozen=True):
    id: uuid.UUID
    tenant_id: str
    kind: str  # TENANT | FAST | TRAVEL
    name: str
    monitoring_target_id: str
    risk_period_from: dt.date
    risk_period_to: dt.date
    currency: str
    sum_insured_minor: int
    total_sum_insured_minor: int
    gross_premium_minor: int
    risk_premium_minor: int
    external_ref: str | None
    valid_until: dt.date
    line_items: list[LineItemDraft]
    customer_id: uuid.UUID | None = None  # a fast quote's policy holder (a business partner)
    # a tenant quote's pricing as kept with it: its capital from the book (`bookCapital`,
    # activities/book_capital.py), shown as the internal view's pricingReport
    pricing_report: dict | None = None
    # the months of the risk period without a line item, in order (tenant quotes; empty for
    # quotes built before one-cover months were sold, which always covered every month)
    uncovered_months: list[UncoveredMonth] = []


class QuoteError(ValueError):
    """The request cannot be quoted (message says why, for a 4xx); `field`: the request field
    the 4xx names, when one does."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


def offered(status: str, pricing_version: int) -> bool:
    """A catalogue coverage quotes may sell: priced and ACTIVE. One whose catalogue pricing is
    held for an actuary (REVIEW, docs/catalogue.md) is skipped like a slot with no viable
    cover until an actuary publishes its price."""
    return pricing_version > 0 and status == CoverageStatus.ACTIVE


def pricing_settled(status: str, pricing_version: int) -> bool:
    """Nothing to wait for: the coverage is priced, or its pricing is held for an actuary."""
    return pricing_version > 0 or status == CoverageStatus.REVIEW


def check_period(start: dt.date, end: dt.date, today: dt.date) -> str | None:
    """Why the risk period cannot be quoted, or None."""
    if start <= today:
        return "riskPeriodFrom must be after today: cover is never sold once its risk period has started"
    if start > today + dt.timedelta(days=2 * 366):
        return "riskPeriodFrom may be at most two years ahead"
    if (end - start).days >= 366:
        return "the risk period may be at most one year (366 days)"
    return None


def month_segments(start: dt.date, end: dt.date) -> list[tuple[dt.date, dt.date]]:
    """Calendar-month pieces of [start, end] (both inclusive)."""
    segments = []
    cursor = start
    while cursor <= end:
        next_month = dt.date(cursor.year + (cursor.month == 12), cursor.month % 12 + 1, 1)
        segments.append((cursor, min(end, next_month - dt.timedelta(days=1))))
        cursor = next_month
    return segments


def slots_for(start: dt.date, end: dt.date, codes: list[str] | None = None) -> list[CoverageSlot]:
    """The slots of the period's line items for `codes` (default: the two preferred covers)."""
    codes = codes or COVER_PREFERENCE[:COVERS_PER_LINE_ITEM]
    return [CoverageSlot(index_code=code, start=s, end=e) for s, e in month_segments(start, end) for code in codes]


def fallback_slots(wanted: list[CoverageSlot], viable: set[CoverageSlot]) -> list[CoverageSlot]:
    """For each month short of covers among `wanted` (the slots asked for so far), the slots
    of the next fallback indices (after the two preferred) not asked for yet, as many as it is
    short (a month's preferred slots asked for in part count only those): called again with
    the fallbacks added to `wanted`, it gives the index after a fallback that was not viable
    either (heat not viable or held: wind), and nothing once every index was asked for."""
    by_month: dict[tuple[dt.date, dt.date], int] = {}
    asked: set[CoverageSlot] = set(wanted)
    for slot in wanted:
        by_month.setdefault((slot.start, slot.end), 0)
        if slot in viable:
            by_month[(slot.start, slot.end)] += 1
    extra = []
    for (start, end), count in by_month.items():
        untried = [
            s for code in COVER_PREFERENCE[COVERS_PER_LINE_ITEM:]
            if (s := CoverageSlot(index_code=code, start=start, end=end)) not in asked
        ]
        extra.extend(untried[: max(0, COVERS_PER_LINE_ITEM - count)])
    return extra


def split_sum_insured(sum_insured_minor: int, covers: int) -> list[int]:
    """A line item's sum insured shared by its covers (minor units, the odd units to the first
    covers), so that per-cover figures add up to the line item's: its covers pay at most its
    sum insured together (a policy's items, docs/internal-quotes.md)."""
    if covers < 1:
        raise ValueError("covers must be >= 1")
    share, odd = divmod(sum_insured_minor, covers)
    return [share + (1 if i < odd else 0) for i in range(covers)]


def _round(value: Decimal) -> int:
    return int(value.quantize(Decimal(1), rounding=ROUND_HALF_EVEN))


def month_covers(
    covers_by_slot: dict[CoverageSlot, CoverSnapshot], start: dt.date, end: dt.date
) -> list[CoverSnapshot]:
    """The covers of the month [start, end]: the viable ones in COVER_PREFERENCE order, at
    most COVERS_PER_LINE_ITEM (possibly one, possibly none)."""
    return [
        covers_by_slot[slot]
        for code in COVER_PREFERENCE
        if (slot := CoverageSlot(index_code=code, start=start, end=end)) in covers_by_slot
    ][:COVERS_PER_LINE_ITEM]


def uncovered_month(start: dt.date, end: dt.date, held: set[CoverageSlot]) -> UncoveredMonth:
    """Why the month [start, end] has no line item: some index's cover is held for an actuary,
    or no index has a viable cover there."""
    held_codes = [code for code in COVER_PREFERENCE if CoverageSlot(index_code=code, start=start, end=end) in held]
    if held_codes:
        return UncoveredMonth(
            start=start, end=end, reason=HELD_FOR_REVIEW,
            detail=f"{' and '.join(BY_CODE[c].name.lower() for c in held_codes)}: "
            f"{'its price is' if len(held_codes) == 1 else 'their prices are'} held for an actuary's review "
            "(docs/catalogue.md), and no other index has a viable cover at this target that month",
        )
    return UncoveredMonth(
        start=start, end=end, reason=NO_VIABLE_COVER,
        detail=f"no index ({', '.join(BY_CODE[c].name.lower() for c in COVER_PREFERENCE)}) has a cover with a "
        "meaningful trigger at this target that month (docs/payout-structures.md, \"Triggers with meaning\")",
    )


def build_quote(
    *,
    quote_id: uuid.UUID,
    line_item_ids: list[uuid.UUID],
    tenant_id: str,
    monitoring_target_id: str,
    start: dt.date,
    end: dt.date,
    currency: str,
    sum_insured_minor: int,
    external_ref: str | None,
    covers_by_slot: dict[CoverageSlot, CoverSnapshot],
    today: dt.date,
    held: set[CoverageSlot] | None = None,
) -> QuoteDraft:
    """`covers_by_slot` holds the priced catalogue cover of every viable slot of the period;
    `held`, the slots whose coverage exists but is held for an actuary (only the reason of an
    uncovered month depends on it). One line item per month with at least one cover (module
    docstring), positions 0, 1, … over the covered months; QuoteError (naming
    monitoringTargetId) when no month has one."""
    segments = month_segments(start, end)
    if len(line_item_ids) < len(segments):
        raise ValueError("one line item id per month is needed")
    items: list[LineItemDraft] = []
    uncovered: list[UncoveredMonth] = []
    for seg_start, seg_end in segments:
        covers = month_covers(covers_by_slot, seg_start, seg_end)
        if not covers:
            # a dry month may have no cover with meaning at all (no deficit cover, no
            # near-zero excess trigger: docs/payout-structures.md, "Triggers with meaning")
            uncovered.append(uncovered_month(seg_start, seg_end, held or set()))
            continue
        unit = covers[0]
        quantity = Decimal(sum_insured_minor) / Decimal(unit.limit_minor)
        premium = _round(sum(c.gross_premium_pct for c in covers) * sum_insured_minor)
        position = len(items)
        items.append(
            LineItemDraft(
                id=line_item_ids[position],
                position=position,
                start=seg_start,
                end=seg_end,
                currency=currency,
                quantity=quantity,
                sum_insured_minor=sum_insured_minor,
                total_sum_insured_minor=sum_insured_minor,
                min_payout_minor=_round(quantity * unit.min_payout_minor),
                payout_per_unit_minor=_round(quantity * unit.payout_per_unit_minor),
                premium_minor=premium,
                covers=covers,
            )
        )
    if not items:
        why = uncovered[0].detail if len({u.reason for u in uncovered}) == 1 else "see each month"
        raise QuoteError(
            f"no viable covers at this target for {start:%d-%m-%Y} - {end:%d-%m-%Y}: no month of the period "
            f"has a cover to sell ({why}); choose another period or target",
            field="monitoringTargetId",
        )
    risk_premium = _round(sum(c.risk_premium_pct for item in items for c in item.covers) * sum_insured_minor)
    return QuoteDraft(
        id=quote_id,
        tenant_id=tenant_id,
        kind="TENANT",
        name=f"{start:%d-%m-%Y} - {end:%d-%m-%Y}",
        monitoring_target_id=monitoring_target_id,
        risk_period_from=start,
        risk_period_to=end,
        currency=currency,
        sum_insured_minor=sum_insured_minor,
        total_sum_insured_minor=sum(i.total_sum_insured_minor for i in items),
        gross_premium_minor=sum(i.premium_minor for i in items),
        risk_premium_minor=risk_premium,
        external_ref=external_ref,
        valid_until=today + dt.timedelta(days=QUOTE_VALIDITY_DAYS),
        line_items=items,
        uncovered_months=uncovered,
    )


def fast_quote_groups(covers: list[CoverSnapshot]) -> list[list[CoverSnapshot]]:
    """A fast quote's line items: the chosen covers of one risk period and one unit limit
    form one line item (in the order their first cover was chosen; covers in the order
    chosen), as a tenant line item holds a month's covers."""
    groups: dict[tuple[dt.date, dt.date, int], list[CoverSnapshot]] = {}
    for cover in covers:
        groups.setdefault((cover.start, cover.end, cover.limit_minor), []).append(cover)
    return list(groups.values())


def build_fast_quote(
    *,
    quote_id: uuid.UUID,
    line_item_ids: list[uuid.UUID],
    tenant_id: str,
    name: str,
    customer_id: uuid.UUID,
    monitoring_target_id: str,
    covers: list[CoverSnapshot],
    sum_insured_minor: int,
    today: dt.date,
) -> QuoteDraft:
    """A fast quote (internal surface): the chosen covers of one risk period form one line
    item of sum insured S (`fast_quote_groups`), holding quantity = S / unit limit units of
    each and paying at most S in all, as on the tenant surface; the total sum insured is the
    number of line items × S, the most the quote can pay. Premiums here are the covers'
    stand-alone catalogue prices; the quote's job replaces them with the package's
    (models/domain/packages.py, docs/internal-quotes.md)."""
    if not covers:
        raise QuoteError("a fast quote needs at least one coverage")
    if len({c.currency for c in covers}) != 1:
        raise QuoteError("the coverages must share one currency")
    twice = overlaps([CoverKey(c.index_definition_id, monitoring_target_id, c.start, c.end) for c in covers])
    if twice:  # the API names them first (api/internal_quotes/service.py); never built
        o = twice[0]
        raise QuoteError(f"coverages {covers[o.first].coverage_id} and {covers[o.second].coverage_id} cover one index on {days(o)}")
    groups = fast_quote_groups(covers)
    if len(line_item_ids) < len(groups):
        raise ValueError("one line item id per line item is needed")
    currency = covers[0].currency
    items = []
    for position, group in enumerate(groups):
        unit = group[0]
        quantity = Decimal(sum_insured_minor) / Decimal(unit.limit_minor)
        items.append(
            LineItemDraft(
                id=line_item_ids[position],
                position=position,
                start=unit.start,
                end=unit.end,
                currency=currency,
                quantity=quantity,
                sum_insured_minor=sum_insured_minor,
                total_sum_insured_minor=sum_insured_minor,
                min_payout_minor=_round(quantity * unit.min_payout_minor),
                payout_per_unit_minor=_round(quantity * unit.payout_per_unit_minor),
                premium_minor=_round(sum(c.gross_premium_pct for c in group) * sum_insured_minor),
                covers=group,
            )
        )
    return QuoteDraft(
        id=quote_id,
        tenant_id=tenant_id,
        kind="FAST",
        name=name,
        monitoring_target_id=monitoring_target_id,
        risk_period_from=min(c.start for c in covers),
        risk_period_to=max(c.end for c in covers),
        currency=currency,
        sum_insured_minor=sum_insured_minor,
        total_sum_insured_minor=sum(i.total_sum_insured_minor for i in items),
        gross_premium_minor=sum(i.premium_minor for i in items),
        risk_premium_minor=_round(sum(c.risk_premium_pct for c in covers) * sum_insured_minor),
        external_ref=None,
        valid_until=today + dt.timedelta(days=QUOTE_VALIDITY_DAYS),
        line_items=items,
        customer_id=customer_id,
    )
