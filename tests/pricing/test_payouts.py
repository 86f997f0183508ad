"""Payout semantics at and around every boundary (docs/payout-structures.md)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import numpy as np
import pytest

from activities.pricing import CoverTerms, count_payout, linear_payout, payout

EPS = 1e-9
D0, D1 = date(2026, 7, 1), date(2026, 7, 31)


def above(**kw):
    args = dict(
        direction="ABOVE", trigger=100.0, exit=150.0, min_payout=1000.0, payout_per_unit=180.0, limit=10000.0
    )
    args.update(kw)
    return args


def pay(x, **kw):
    return float(linear_payout(np.array([x]), **kw)[0])


class TestLinearAbove:
    # continuous: 1000 + 180 * 50 = 10000 = limit at the exit
    def test_below_trigger_pays_nothing(self):
        assert pay(100.0 - EPS, **above()) == 0.0
        assert pay(-1e9, **above()) == 0.0

    def test_at_trigger_pays_min_payout(self):
        assert pay(100.0, **above()) == 1000.0

    def test_just_above_trigger(self):
        assert pay(100.0 + 1e-6, **above()) == pytest.approx(1000.0 + 180e-6, abs=1e-9)

    def test_linear_between(self):
        assert pay(125.0, **above()) == 1000.0 + 180.0 * 25

    def test_just_below_exit(self):
        assert pay(150.0 - 1e-6, **above()) == pytest.approx(10000.0 - 180e-6, abs=1e-9)
        assert pay(150.0 - 1e-6, **above()) < 10000.0

    def test_at_and_beyond_exit_pays_limit(self):
        assert pay(150.0, **above()) == 10000.0
        assert pay(150.0 + EPS, **above()) == 10000.0
        assert pay(1e12, **above()) == 10000.0

    def test_steep_slope_is_capped_before_exit(self):
        kw = above(payout_per_unit=1000.0)  # reaches the limit at 109
        assert pay(109.0, **kw) == 10000.0
        assert pay(108.0, **kw) == 9000.0
        assert pay(120.0, **kw) == 10000.0

    def test_shallow_slope_jumps_to_limit_at_exit(self):
        kw = above(payout_per_unit=10.0)
        assert pay(150.0 - EPS, **kw) == pytest.approx(1000.0 + 500.0)
        assert pay(150.0, **kw) == 10000.0

    def test_no_exit_caps_at_limit(self):
        kw = above(exit=None)
        assert pay(150.0, **kw) == 10000.0
        assert pay(140.0, **kw) == 1000.0 + 180.0 * 40
        assert pay(1e9, **kw) == 10000.0

    def test_digital(self):
        kw = above(exit=None, min_payout=10000.0, payout_per_unit=0.0)
        assert pay(100.0 - EPS, **kw) == 0.0
        assert pay(100.0, **kw) == 10000.0
        assert pay(1e6, **kw) == 10000.0

    def test_nan_index_gives_nan(self):
        assert np.isnan(pay(np.nan, **above()))


class TestLinearBelow:
    def kw(self, **kw):
        args = dict(
            direction="BELOW", trigger=60.0, exit=20.0, min_payout=500.0, payout_per_unit=237.5, limit=10000.0
        )
        args.update(kw)
        return args

    def test_above_trigger_pays_nothing(self):
        assert pay(60.0 + EPS, **self.kw()) == 0.0
        assert pay(1e9, **self.kw()) == 0.0

    def test_at_trigger_pays_min_payout(self):
        assert pay(60.0, **self.kw()) == 500.0

    def test_linear_between(self):
        assert pay(40.0, **self.kw()) == 500.0 + 237.5 * 20

    def test_just_above_exit(self):
        assert pay(20.0 + 1e-6, **self.kw()) < 10000.0

    def test_at_and_beyond_exit_pays_limit(self):
        assert pay(20.0, **self.kw()) == 10000.0
        assert pay(0.0, **self.kw()) == 10000.0
        assert pay(-5.0, **self.kw()) == 10000.0

    def test_zero_rain_without_exit(self):
        assert pay(0.0, **self.kw(exit=None)) == min(500.0 + 237.5 * 60, 10000.0)


class TestCountForm:
    def test_counts_days_at_or_above_trigger(self):
        d = np.array([[9.99, 10.0, 10.01, 0.0, 25.0]])
        assert count_payout(d, trigger=10.0, payout_per_unit=100.0, limit=1000.0)[0] == 300.0

    def test_no_day_pays_nothing(self):
        d = np.zeros((1, 30))
        assert count_payout(d, trigger=10.0, payout_per_unit=100.0, limit=1000.0)[0] == 0.0

    def test_capped_at_limit(self):
        d = np.full((3, 31), 50.0)
        d[1, 3:] = 0.0  # 3 days
        d[2, 2:] = 0.0  # 2 days
        out = count_payout(d, trigger=10.0, payout_per_unit=100.0, limit=250.0)
        assert out.tolist() == [250.0, 250.0, 200.0]

    def test_nan_day_gives_nan(self):
        d = np.array([[20.0, np.nan]])
        assert np.isnan(count_payout(d, trigger=10.0, payout_per_unit=1.0, limit=5.0)[0])


class TestTerms:
    def test_dispatch_matches_functions(self):
        t = CoverTerms(
            "RAINFALL_MONTHLY_TOTAL",
            D0,
            D1,
            trigger=100.0,
            exit=150.0,
            limit=Decimal("10000"),
            min_payout=Decimal("1000"),
            payout_per_unit=Decimal("180"),
        )
        x = np.linspace(0, 300, 3001)
        assert np.array_equal(payout(t, x), linear_payout(x, **above()))

    def test_deficit_direction_from_index_definition(self):
        t = CoverTerms(
            "RAINFALL_DEFICIT",
            D0,
            D1,
            trigger=60.0,
            exit=20.0,
            limit=Decimal("10000"),
            payout_per_unit=Decimal("250"),
        )
        assert t.resolved_direction == "BELOW"
        assert float(payout(t, np.array([60.0]))[0]) == 0.0  # min_payout defaults to 0
        assert float(payout(t, np.array([40.0]))[0]) == 5000.0

    def test_hotel_dispatch(self):
        t = CoverTerms(
            "RAINFALL_DAYTIME_HOURS",
            D0,
            D1,
            trigger=10.0,
            limit=Decimal("500"),
            payout_per_unit=Decimal("120"),
        )
        assert float(payout(t, np.array([[10.0, 12.0, 1.0, 30.0, 11.0]]))[0]) == 480.0

    @pytest.mark.parametrize(
        "kw, message",
        [
            (dict(index_code="RAINFALL_MONTHLY_TOTAL", trigger=100.0, exit=90.0), "exit must be greater"),
            (dict(index_code="RAINFALL_DEFICIT", trigger=50.0, exit=60.0), "exit must be less"),
            (
                dict(index_code="RAINFALL_MONTHLY_TOTAL", trigger=1.0, min_payout=Decimal("20000")),
                "min_payout",
            ),
            (dict(index_code="RAINFALL_MONTHLY_TOTAL", trigger=1.0, limit=Decimal("0")), "limit"),
            (
                dict(index_code="RAINFALL_MONTHLY_TOTAL", trigger=1.0, payout_per_unit=Decimal("-1")),
                "payout_per_unit",
            ),
            (dict(index_code="RAINFALL_DAYTIME_HOURS", trigger=10.0, exit=3.0), "no exit"),
            (dict(index_code="RAINFALL_DAYTIME_HOURS", trigger=10.0, min_payout=Decimal("5")), "no minimum"),
            (dict(index_code="NOPE", trigger=1.0), "unknown index"),
            (dict(index_code="RAINFALL_MONTHLY_TOTAL", trigger=1.0, risk_end=date(2026, 6, 1)), "before"),
            (dict(index_code="RAINFALL_MONTHLY_TOTAL", trigger=1.0, risk_end=date(2027, 8, 1)), "longer"),
            (
                dict(index_code="RAINFALL_MONTHLY_TOTAL", trigger=1.0, payout_per_unit=Decimal("0")),
                "never pay",
            ),
        ],
    )
    def test_invalid_terms_rejected(self, kw, message):
        args = dict(risk_start=D0, risk_end=D1, limit=Decimal("10000"), payout_per_unit=Decimal("10"))
        args.update(kw)
        with pytest.raises(ValueError, match=message):
            CoverTerms(**args)
