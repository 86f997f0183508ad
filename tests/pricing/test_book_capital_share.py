"""A package's price with its capital from the book (activities/book_capital.py
`with_capital_share`): the capital the package charges is its own Euler-allocated capital
times the book's capital share, and its premium is loaded again exactly as the engine loads
it. A share of 1 leaves the engine's price bit for bit; a share of 0 leaves no capital load
and the minimum rate on line still holds."""

from __future__ import annotations

import uuid
from decimal import Decimal

import pytest

from activities.book_capital import with_capital_share
from activities.pricing.loading import LoadParameters, package_premium
from models.domain.packages import PackageCoverPrice, PackagePrice, rate

PARAMS = LoadParameters()
# per unit of S: two covers' adjusted EL, uncertainty load and capital (Euler parts)
COVERS = [(0.040, 0.012, 0.300), (0.025, 0.008, -0.020)]


def engine_price(total_sum_insured: float = 1.0) -> PackagePrice:
    """A package price as activities/packages.py builds it from the engine's figures."""
    total, parts = package_premium([c[0] for c in COVERS], [c[1] for c in COVERS], [c[2] for c in COVERS],
                                   total_sum_insured, PARAMS, "TVaR99")
    ids = [uuid.uuid5(uuid.NAMESPACE_URL, f"cover-{i}") for i in range(len(COVERS))]
    report = {
        "totalSumInsured": total_sum_insured,
        "capitalMeasure": "TVaR99",
        "premium": {"grossPremium": total.gross_premium},
        "covers": [
            {"coverageId": str(i), "adjustedExpectedLoss": a, "uncertaintyLoad": u, "capital": c,
             "grossPremium": p.gross_premium}
            for i, (a, u, c), p in zip(ids, COVERS, parts)
        ],
    }
    covers = [PackageCoverPrice(coverage_id=i, gross_premium_pct=rate(p.gross_premium),
                                risk_premium_pct=rate(p.adjusted_expected_loss)) for i, p in zip(ids, parts)]
    return PackagePrice(key="k", model_version="test", covers=covers, report=report)


def test_a_share_of_one_leaves_the_engines_price_bit_for_bit():
    price = engine_price()
    same = with_capital_share(price, 1.0, PARAMS, {"bookVersion": 3}, key="k2")
    assert same.covers == price.covers
    assert same.report["premium"]["grossPremium"] == price.report["premium"]["grossPremium"]
    assert same.report["bookCapital"]["capitalShare"] == 1.0 and same.report["bookCapital"]["bookVersion"] == 3
    assert same.key == "k2"


def test_the_capital_load_scales_with_the_share_and_the_covers_add_up():
    price = engine_price()
    half = with_capital_share(price, 0.5, PARAMS, {}, key="k")
    premium = half.report["premium"]
    assert premium["capital"] == pytest.approx(0.5 * 0.28)
    assert premium["capitalLoad"] == pytest.approx(PARAMS.capital_cost_rate * 0.5 * 0.28)
    expected_gross = (0.065 + 0.020 + PARAMS.capital_cost_rate * 0.14) / (1 - PARAMS.expense_ratio)
    assert premium["grossPremium"] == pytest.approx(expected_gross)
    assert sum(c["grossPremium"] for c in half.report["covers"]) == pytest.approx(expected_gross)
    assert sum(c.gross_premium_pct for c in half.covers) == pytest.approx(Decimal(repr(expected_gross)), abs=Decimal("1e-11"))
    # risk premiums (the covers' adjusted expected losses) do not move
    assert [c.risk_premium_pct for c in half.covers] == [c.risk_premium_pct for c in price.covers]


def test_a_share_of_zero_leaves_no_capital_load_and_the_minimum_still_holds():
    none = with_capital_share(engine_price(), 0.0, PARAMS, {}, key="k").report["premium"]
    assert none["capitalLoad"] == 0.0
    assert none["grossPremium"] == pytest.approx(0.085 / (1 - PARAMS.expense_ratio))
    # a package whose loaded premium is below the minimum rate on line pays the minimum
    floored = with_capital_share(engine_price(total_sum_insured=20.0), 0.0, PARAMS, {}, key="k").report["premium"]
    assert floored["grossPremium"] == pytest.approx(PARAMS.min_rate_on_line * 20.0)
