"""A package's content key and its prices in a quote (models/domain/packages.py, issue 26):
the same covers in the same line items are the same key whatever the order, surface or sum
insured; what moves a price moves the key; the quote's totals are exact sums."""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal

import msgspec
import pytest

from models.domain.packages import (
    PackageCoverPrice,
    PackagePrice,
    apply_package_price,
    canonical_lines,
    package_key,
)
from models.domain.quotes import CoverSnapshot, QuoteError, build_fast_quote, build_quote, month_segments, split_sum_insured
from models.domain.terms import CoverageSlot

START = dt.date(2027, 6, 1)
END = dt.date(2027, 8, 31)
LOADS = {"expense_ratio": "0.2", "capital_cost_rate": "0.06"}


def cover(code: str, start: dt.date, end: dt.date, version: int = 1) -> CoverSnapshot:
    return CoverSnapshot(
        coverage_id=uuid.uuid5(uuid.NAMESPACE_URL, f"{code}:{start}"),
        index_code=code,
        index_definition_id=uuid.uuid5(uuid.NAMESPACE_URL, code),
        start=start,
        end=end,
        direction="ABOVE" if code == "RAINFALL_MONTHLY_TOTAL" else "BELOW",
        trigger=Decimal("300.5"),
        exit=None,
        currency="INR",
        limit_minor=10_000_000,
        min_payout_minor=1_000_000,
        payout_per_unit_minor=50_000,
        gross_premium_pct=Decimal("0.15"),
        risk_premium_pct=Decimal("0.055"),
        pricing_version=version,
    )


COVERS = {
    CoverageSlot(code, s, e): cover(code, s, e)
    for s, e in month_segments(START, END)
    for code in ("RAINFALL_MONTHLY_TOTAL", "RAINFALL_DEFICIT")
}


def tenant(sum_minor: int = 25_000_000):
    qid = uuid.uuid4()
    return build_quote(
        quote_id=qid, line_item_ids=[uuid.uuid4() for _ in range(3)], tenant_id="t", monitoring_target_id="IN-x",
        start=START, end=END, currency="INR", sum_insured_minor=sum_minor, external_ref=None, covers_by_slot=COVERS,
        today=dt.date(2027, 1, 1),
    )


def fast(covers: list[CoverSnapshot], sum_minor: int = 25_000_000):
    return build_fast_quote(
        quote_id=uuid.uuid4(), line_item_ids=[uuid.uuid4() for _ in covers], tenant_id="t", name="n",
        customer_id=uuid.uuid4(), monitoring_target_id="IN-x", covers=covers, sum_insured_minor=sum_minor,
        today=dt.date(2027, 1, 1),
    )


def key(items) -> str:
    return package_key(canonical_lines(items), simulations=131072, seed=1, model_version="m", loads=LOADS)


def test_a_fast_quote_groups_a_months_covers_into_one_line_item_like_a_tenant_quote():
    chosen = list(COVERS.values())
    quote = fast(list(reversed(chosen)))  # chosen in any order
    assert len(quote.line_items) == 3 and all(len(i.covers) == 2 for i in quote.line_items)
    assert quote.total_sum_insured_minor == 3 * 25_000_000 == tenant().total_sum_insured_minor
    # the same package, whichever surface, order or sum insured
    assert key(quote.line_items) == key(tenant().line_items) == key(tenant(10_000_000).line_items)


def test_what_moves_a_price_moves_the_key():
    base = key(tenant().line_items)
    repriced = dict(COVERS)
    slot = next(iter(COVERS))
    repriced[slot] = msgspec.structs.replace(COVERS[slot], pricing_version=2)
    other = build_quote(
        quote_id=uuid.uuid4(), line_item_ids=[uuid.uuid4() for _ in range(3)], tenant_id="t", monitoring_target_id="IN-x",
        start=START, end=END, currency="INR", sum_insured_minor=25_000_000, external_ref=None, covers_by_slot=repriced,
        today=dt.date(2027, 1, 1),
    )
    assert key(other.line_items) != base
    lines = canonical_lines(tenant().line_items)
    assert package_key(lines, simulations=131072, seed=1, model_version="other", loads=LOADS) != base
    assert package_key(lines, simulations=131072, seed=2, model_version="m", loads=LOADS) != base
    assert package_key(lines, simulations=131072, seed=1, model_version="m", loads={**LOADS, "expense_ratio": "0.25"}) != base
    # the same covers grouped otherwise (each its own line item) are another package
    assert key(fast([COVERS[s] for s in COVERS if s.index_code == "RAINFALL_DEFICIT"]).line_items) != base


def test_a_package_with_two_sums_insured_is_refused():
    items = tenant().line_items
    mixed = [items[0], msgspec.structs.replace(items[1], sum_insured_minor=1)]
    with pytest.raises(QuoteError):
        canonical_lines(mixed)


def test_the_package_price_makes_the_quotes_totals():
    draft = tenant()
    rates = {c.coverage_id: (Decimal("0.0812345678901"), Decimal("0.0400000000001")) for c in COVERS.values()}
    price = PackagePrice(
        key="k", model_version="m", report={},
        covers=[PackageCoverPrice(coverage_id=i, gross_premium_pct=g, risk_premium_pct=r) for i, (g, r) in rates.items()],
    )
    priced = apply_package_price(draft, price)
    for item in priced.line_items:
        assert item.premium_minor == int((2 * Decimal("0.0812345678901") * 25_000_000).quantize(Decimal(1)))
        assert [c.gross_premium_pct for c in item.covers] == [Decimal("0.0812345678901")] * 2
    assert priced.gross_premium_minor == sum(i.premium_minor for i in priced.line_items)
    assert priced.risk_premium_minor == int((6 * Decimal("0.0400000000001") * 25_000_000).quantize(Decimal(1)))
    assert priced.total_sum_insured_minor == 3 * 25_000_000


def test_a_line_items_sum_insured_is_shared_by_its_covers_to_the_minor_unit():
    assert split_sum_insured(25_000_000, 2) == [12_500_000, 12_500_000]
    assert split_sum_insured(10, 3) == [4, 3, 3]
    assert sum(split_sum_insured(999_999_999, 7)) == 999_999_999


def test_a_package_the_price_cannot_describe_fails_its_activities_at_once():
    """Line items of two sums insured are no package: the package's activities fail without
    retries (the same items would be refused again), so the quote fails at once (503) instead
    of after the local activity's retries."""
    from temporalio.exceptions import ApplicationError

    from activities.packages import _key
    from activities.pricing_runs import load_parameters
    from models.temporal.quotes import PackagePricingInput

    items = tenant().line_items
    mixed = [items[0], msgspec.structs.replace(items[1], sum_insured_minor=1)]
    request = PackagePricingInput(monitoring_target_id="IN-12.875N-077.625E", line_items=mixed, simulations=1024, seed=1)
    with pytest.raises(ApplicationError) as err:
        _key(request, load_parameters())
    assert err.value.non_retryable and err.value.type == "NotAPackage"
