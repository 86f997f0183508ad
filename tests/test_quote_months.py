"""A tenant quote covers the months that have a viable cover (issue 33, 1): a month with two
viable covers keeps its two-cover line item, a month with one gets a line item with that one
cover (the same sum insured, quantity, minimum payout and premium rule), a month with none
gets no line item and is listed, with why, in the quote's uncovered months; a period with no
viable cover at all is refused naming monitoringTargetId. Pure domain (models/domain/quotes.py)
and the package price on a one-cover line item (models/domain/packages.py)."""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import ROUND_HALF_EVEN, Decimal

import pytest

from models.domain.packages import (
    PackageCoverPrice,
    PackagePrice,
    apply_package_price,
    canonical_lines,
)
from models.domain.quotes import (
    HELD_FOR_REVIEW,
    NO_VIABLE_COVER,
    CoverSnapshot,
    QuoteError,
    build_quote,
    month_segments,
    split_sum_insured,
)
from models.domain.terms import CoverageSlot

START, END = dt.date(2027, 1, 1), dt.date(2027, 12, 31)
S = 10_000_000  # ₹100,000 a month, in paise


def cover(code: str, start: dt.date, end: dt.date, pct: str = "0.0731") -> CoverSnapshot:
    return CoverSnapshot(
        coverage_id=uuid.uuid5(uuid.NAMESPACE_URL, f"{code}:{start}"),
        index_code=code,
        index_definition_id=uuid.uuid5(uuid.NAMESPACE_URL, code),
        start=start, end=end,
        direction="ABOVE" if code != "RAINFALL_DEFICIT" else "BELOW",
        trigger=Decimal("12.5"), exit=None, currency="INR",
        limit_minor=10_000_000, min_payout_minor=1_000_000, payout_per_unit_minor=33_333,
        gross_premium_pct=Decimal(pct), risk_premium_pct=Decimal("0.0333"), pricing_version=1,
    )


def dry_year() -> dict[CoverageSlot, CoverSnapshot]:
    """Monsoon months (Jun-Sep) with excess and deficit rain, Oct-Nov and Mar-May with
    excess rain only (one cover), Dec-Feb with nothing viable."""
    covers = {}
    for start, end in month_segments(START, END):
        codes = {6: 2, 7: 2, 8: 2, 9: 2, 3: 1, 4: 1, 5: 1, 10: 1, 11: 1}.get(start.month, 0)
        for code in ("RAINFALL_MONTHLY_TOTAL", "RAINFALL_DEFICIT")[:codes]:
            covers[CoverageSlot(code, start, end)] = cover(code, start, end)
    return covers


def quote(covers, start=START, end=END, held=None, sum_minor=S):
    qid = uuid.uuid4()
    return build_quote(
        quote_id=qid, line_item_ids=[uuid.uuid5(qid, str(i)) for i in range(12)], tenant_id="t",
        monitoring_target_id="IN-x", start=start, end=end, currency="INR", sum_insured_minor=sum_minor,
        external_ref=None, covers_by_slot=covers, today=dt.date(2026, 11, 29), held=held,
    )


def test_a_dry_year_is_quoted_with_one_cover_months_and_says_which_months_are_uncovered():
    draft = quote(dry_year())
    months = [i.start.month for i in draft.line_items]
    assert months == [3, 4, 5, 6, 7, 8, 9, 10, 11]
    assert [i.position for i in draft.line_items] == list(range(9))
    assert [len(i.covers) for i in draft.line_items] == [1, 1, 1, 2, 2, 2, 2, 1, 1]
    one, two = draft.line_items[0], draft.line_items[3]
    # A one-cover line item: the same rule as two covers, exact to the paisa.
    assert one.sum_insured_minor == one.total_sum_insured_minor == two.sum_insured_minor == S
    assert one.quantity == two.quantity == Decimal(1)
    assert one.min_payout_minor == two.min_payout_minor == 1_000_000
    assert one.payout_per_unit_minor == 33_333
    assert one.premium_minor == 731_000 and two.premium_minor == 1_462_000
    assert draft.total_sum_insured_minor == 9 * S
    assert draft.gross_premium_minor == 5 * 731_000 + 4 * 1_462_000
    assert draft.risk_premium_minor == int((Decimal("0.0333") * 13 * S).quantize(Decimal(1), ROUND_HALF_EVEN))
    assert [(m.start, m.end, m.reason) for m in draft.uncovered_months] == [
        (dt.date(2027, 1, 1), dt.date(2027, 1, 31), NO_VIABLE_COVER),
        (dt.date(2027, 2, 1), dt.date(2027, 2, 28), NO_VIABLE_COVER),
        (dt.date(2027, 12, 1), dt.date(2027, 12, 31), NO_VIABLE_COVER),
    ]
    assert "meaningful trigger" in draft.uncovered_months[0].detail
    # a one-cover line item's policy item holds the whole sum insured
    assert split_sum_insured(one.sum_insured_minor, len(one.covers)) == [S]


def test_odd_amounts_round_per_line_item_as_for_two_covers():
    covers = {s: cover(s.index_code, s.start, s.end, "0.0123456789") for s in dry_year()}
    draft = quote(covers, sum_minor=12_345_678)  # ₹123,456.78
    one = draft.line_items[0]
    assert one.quantity == Decimal(12_345_678) / Decimal(10_000_000)
    assert one.min_payout_minor == 1_234_568  # round half-even of 1,234,567.8
    assert one.payout_per_unit_minor == 41_152  # 33,333 × 1.2345678 = 41,151.83
    assert one.premium_minor == 152_416  # 0.0123456789 × 12,345,678 = 152,415.75
    assert draft.gross_premium_minor == sum(i.premium_minor for i in draft.line_items)


def test_a_month_whose_cover_is_held_says_so():
    covers = dry_year()
    january = (dt.date(2027, 1, 1), dt.date(2027, 1, 31))
    draft = quote(covers, held={CoverageSlot("RAINFALL_MONTHLY_TOTAL", *january)})
    first = draft.uncovered_months[0]
    assert (first.start, first.reason) == (january[0], HELD_FOR_REVIEW)
    assert first.detail.startswith("monthly total rainfall: its price is held for an actuary's review")
    assert draft.uncovered_months[1].reason == NO_VIABLE_COVER


def test_a_partial_month_is_uncovered_by_its_own_days():
    start, end = dt.date(2027, 1, 15), dt.date(2027, 3, 10)
    march = CoverageSlot("RAINFALL_MONTHLY_TOTAL", dt.date(2027, 3, 1), end)
    draft = quote({march: cover(march.index_code, march.start, march.end)}, start=start, end=end)
    assert [(i.start, i.end, len(i.covers)) for i in draft.line_items] == [(march.start, end, 1)]
    assert [(m.start, m.end) for m in draft.uncovered_months] == [
        (start, dt.date(2027, 1, 31)), (dt.date(2027, 2, 1), dt.date(2027, 2, 28)),
    ]


def test_a_period_without_any_viable_cover_is_refused_naming_the_target():
    with pytest.raises(QuoteError) as refused:
        quote(dry_year(), start=dt.date(2027, 12, 1), end=dt.date(2028, 2, 29))
    assert refused.value.field == "monitoringTargetId"
    assert "no viable covers" in str(refused.value) and "meaningful trigger" in str(refused.value)


def test_every_month_with_two_covers_is_as_before():
    covers = {
        CoverageSlot(code, s, e): cover(code, s, e)
        for s, e in month_segments(START, END) for code in ("RAINFALL_MONTHLY_TOTAL", "RAINFALL_DEFICIT")
    }
    draft = quote(covers)
    assert len(draft.line_items) == 12 and all(len(i.covers) == 2 for i in draft.line_items)
    assert draft.uncovered_months == []


def test_a_package_price_applies_to_one_cover_line_items():
    draft = quote(dry_year())
    lines = canonical_lines(draft.line_items)
    assert sorted(len(line) for line in lines) == [1] * 5 + [2] * 4
    price = PackagePrice(
        key="k", model_version="m", report={},
        covers=[
            PackageCoverPrice(coverage_id=c.coverage_id, gross_premium_pct=Decimal("0.05"), risk_premium_pct=Decimal("0.02"))
            for item in draft.line_items for c in item.covers
        ],
    )
    priced = apply_package_price(draft, price)
    assert [i.premium_minor for i in priced.line_items] == [500_000 * len(i.covers) for i in draft.line_items]
    assert priced.gross_premium_minor == 13 * 500_000
    assert priced.uncovered_months == draft.uncovered_months


def test_a_month_whose_heat_fallback_is_not_viable_asks_for_wind_next():
    """docs/quotes-and-policies.md: where a rain cover is not viable (or held), heat stands in,
    then wind. A month with one rain cover whose heat slot was asked for and is not viable (or
    is held for an actuary) gets wind asked for next, not heat again (the old `fallback_slots`
    answered heat again, so the month was sold with one cover though wind could be its second);
    the first round is as before, and a month with every index asked for asks for nothing."""
    from models.domain.quotes import fallback_slots, slots_for

    start, end = dt.date(2027, 5, 1), dt.date(2027, 5, 31)
    slot = {code: CoverageSlot(code, start, end) for code in
            ("RAINFALL_MONTHLY_TOTAL", "RAINFALL_DEFICIT", "TEMPERATURE_MAX", "WIND_MAX_SPEED")}
    preferred = slots_for(start, end)
    # first round: one rain cover -> heat; none -> heat and wind; the deficit asked alone -> both
    assert fallback_slots(preferred, {slot["RAINFALL_MONTHLY_TOTAL"]}) == [slot["TEMPERATURE_MAX"]]
    assert fallback_slots(preferred, set()) == [slot["TEMPERATURE_MAX"], slot["WIND_MAX_SPEED"]]
    assert fallback_slots([slot["RAINFALL_DEFICIT"]], set()) == [slot["TEMPERATURE_MAX"], slot["WIND_MAX_SPEED"]]
    # second round: heat was asked for and is not viable -> wind
    asked = preferred + [slot["TEMPERATURE_MAX"]]
    assert fallback_slots(asked, {slot["RAINFALL_MONTHLY_TOTAL"]}) == [slot["WIND_MAX_SPEED"]]
    assert fallback_slots(asked, {slot["RAINFALL_MONTHLY_TOTAL"], slot["TEMPERATURE_MAX"]}) == []
    # every index asked for: nothing more to ask
    everything = asked + [slot["WIND_MAX_SPEED"]]
    assert fallback_slots(everything, {slot["RAINFALL_MONTHLY_TOTAL"]}) == []
    assert fallback_slots(everything, set()) == []
    # and the month is then sold with rain and wind
    covers = {s: cover(s.index_code, start, end) for s in (slot["RAINFALL_MONTHLY_TOTAL"], slot["WIND_MAX_SPEED"])}
    (item,) = quote(covers, start, end).line_items
    assert [c.index_code for c in item.covers] == ["RAINFALL_MONTHLY_TOTAL", "WIND_MAX_SPEED"]


def test_a_one_cover_year_is_the_same_package_as_a_fast_quote_of_its_covers():
    """One package, one price: a fast quote of the same covers (chosen in any order) at the
    same sum groups them into the same line items (a one-cover month: a one-cover line item),
    so both surfaces look up the same package key and charge the same to the paisa."""
    import random

    from models.domain.packages import package_key, priced_line_items
    from models.domain.quotes import build_fast_quote

    tenant = quote(dry_year())
    chosen = [c for item in tenant.line_items for c in item.covers]
    random.Random(33).shuffle(chosen)
    fast = build_fast_quote(
        quote_id=uuid.uuid4(), line_item_ids=[uuid.uuid4() for _ in chosen], tenant_id="t", name="f",
        customer_id=uuid.uuid4(), monitoring_target_id="IN-x", covers=chosen, sum_insured_minor=S,
        today=dt.date(2026, 11, 29),
    )

    def key(items):
        return package_key(canonical_lines(items), simulations=1000, seed=1, model_version="m", loads={})

    assert canonical_lines(fast.line_items) == canonical_lines(tenant.line_items)
    assert key(fast.line_items) == key(tenant.line_items)
    price = PackagePrice(key="k", model_version="m", report={}, covers=[
        PackageCoverPrice(coverage_id=c.coverage_id, gross_premium_pct=Decimal("0.0412345678901"),
                          risk_premium_pct=Decimal("0.02")) for c in chosen
    ])
    assert sum(i.premium_minor for i in priced_line_items(fast.line_items, price)) == apply_package_price(
        tenant, price).gross_premium_minor
    # and a one-cover month's line item has the same terms on both surfaces
    by_period = {(i.start, i.end): i for i in fast.line_items}
    for item in tenant.line_items:
        other = by_period[(item.start, item.end)]
        assert (other.sum_insured_minor, other.quantity, other.min_payout_minor, other.payout_per_unit_minor) == (
            item.sum_insured_minor, item.quantity, item.min_payout_minor, item.payout_per_unit_minor)
