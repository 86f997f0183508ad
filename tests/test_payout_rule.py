"""The one payout rule (models/domain/payout.py): the exact form against docs/payout-structures.md,
and its float twins (vectorised, in place, per day count) against the exact form over random
terms and index values — trigger, exit, minimum payout, both directions, the limit."""

from __future__ import annotations

from decimal import Decimal

import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from models.domain.payout import (
    line_item_payout,
    count_payout,
    count_payout_exact,
    curve_points,
    days_payout,
    linear_payout,
    linear_payout_exact,
    linear_payout_in_place,
    round_payout,
)

D = Decimal


def terms(**kw):
    base = dict(direction="ABOVE", trigger=D(100), payout_per_unit=D(50), limit=D(10000), min_payout=D(1000), exit=None)
    return base | kw


# --- the documented semantics, exactly ---------------------------------------------------------

@pytest.mark.parametrize("direction,index,paid", [
    ("ABOVE", D("99.99"), D(0)),  # short of the trigger, however close
    ("ABOVE", D(100), D(1000)),  # at the trigger: the minimum payout
    ("ABOVE", D("100.01"), D("1000.5")),  # min + slope × distance
    ("ABOVE", D(200), D(6000)),
    ("ABOVE", D(500), D(10000)),  # capped at the limit
    ("BELOW", D("100.01"), D(0)),
    ("BELOW", D(100), D(1000)),
    ("BELOW", D(40), D(4000)),
])
def test_the_linear_form_as_documented(direction, index, paid):
    assert linear_payout_exact(index, **terms(direction=direction)) == paid


def test_the_exit_pays_the_limit_at_and_beyond_it_even_when_the_line_is_below():
    shallow = terms(payout_per_unit=D(10), exit=D(150))  # the line is at 1,490 just short of 150
    assert linear_payout_exact(D("149.99"), **shallow) == D("1499.90")
    assert linear_payout_exact(D(150), **shallow) == D(10000)
    assert linear_payout_exact(D(400), **shallow) == D(10000)
    below = terms(direction="BELOW", payout_per_unit=D(10), exit=D(50))
    assert linear_payout_exact(D("50.01"), **below) == D("1499.90")
    assert linear_payout_exact(D(50), **below) == D(10000)


def test_a_digital_cover_pays_all_or_nothing():
    digital = terms(payout_per_unit=D(0), min_payout=D(10000))
    assert linear_payout_exact(D("99.9"), **digital) == 0
    assert linear_payout_exact(D(100), **digital) == D(10000)


def test_the_count_form_and_rounding():
    assert count_payout_exact(3, payout_per_unit=D("2500"), limit=D(6000)) == D(6000)
    assert count_payout_exact(2, payout_per_unit=D("2500"), limit=D(6000)) == D(5000)
    assert round_payout(D("1000.005"), "INR") == D("1000.00")  # half-even
    assert round_payout(D("1000.015"), "INR") == D("1000.02")
    assert round_payout(D("1000.5"), "JPY") == D("1000")


def test_the_curve_is_the_rule_at_its_corners():
    steep = terms(payout_per_unit=D(500), exit=D(150))  # reaches the limit at 118 < exit
    points = curve_points(**steep)
    xs = [x for x, _ in points]
    assert xs == sorted(xs)
    assert (D(100), D(0)) in points and (D(100), D(1000)) in points  # the jump at the trigger
    assert (D(118), D(10000)) in points  # where the line meets the limit
    for x, y in points:
        if x != D(100):
            assert y == linear_payout_exact(x, **steep)
    shallow = curve_points(**terms(payout_per_unit=D(10), exit=D(150)))
    assert (D(150), D(1500)) in shallow and (D(150), D(10000)) in shallow  # the step at the exit
    below = curve_points(**terms(direction="BELOW", exit=D(50)))
    assert [y for _, y in below][0] == D(10000) and [y for _, y in below][-1] == 0


# --- the float twins agree with the exact rule ----------------------------------------------------

money = st.decimals(min_value=0, max_value=100000, places=2, allow_nan=False, allow_infinity=False)
level = st.decimals(min_value=0, max_value=2000, places=1, allow_nan=False, allow_infinity=False)


@st.composite
def linear_terms(draw):
    direction = draw(st.sampled_from(["ABOVE", "BELOW"]))
    trigger = draw(level)
    limit = draw(money.filter(lambda m: m > 0))
    min_payout = draw(st.one_of(st.just(D(0)), money.map(lambda m: min(m, limit))))
    payout_per_unit = draw(st.decimals(min_value=0, max_value=5000, places=4))
    exit = draw(st.one_of(st.none(), st.decimals(min_value=D("0.1"), max_value=1000, places=1)))
    if exit is not None:
        exit = trigger + exit if direction == "ABOVE" else trigger - exit
        assume(exit >= 0)
    return dict(direction=direction, trigger=trigger, payout_per_unit=payout_per_unit, limit=limit,
                min_payout=min_payout, exit=exit)


def _floats(t):
    return {k: (float(v) if isinstance(v, Decimal) else v) for k, v in t.items()}


@settings(max_examples=400, deadline=None)
@given(t=linear_terms(), offsets=st.lists(st.decimals(min_value=-500, max_value=500, places=1), min_size=1, max_size=20))
@example(t=terms(), offsets=[D(0), D("-0.1"), D("0.1")])
@example(t=terms(direction="BELOW", exit=D(50)), offsets=[D(0), D(-50), D("-49.9")])
def test_the_float_twins_agree_with_the_exact_rule(t, offsets):
    # index values around the trigger, at it, and at the exit
    xs = [t["trigger"] + o for o in offsets] + [t["trigger"]] + ([t["exit"]] if t["exit"] is not None else [])
    exact = [linear_payout_exact(x, **t) for x in xs]
    as_float = linear_payout(np.array([float(x) for x in xs]), **_floats(t))
    in_place = linear_payout_in_place(np.array([float(x) for x in xs]), **_floats(t))
    tolerance = [max(1e-9 * float(t["limit"]), 1e-6) for _ in xs]
    assert np.allclose(as_float, [float(e) for e in exact], rtol=0, atol=max(tolerance))
    assert np.array_equal(as_float, in_place)


@settings(max_examples=200, deadline=None)
@given(days=st.lists(st.integers(min_value=0, max_value=31), min_size=1, max_size=10),
       per_day=st.decimals(min_value=0, max_value=20000, places=2), limit=money.filter(lambda m: m > 0))
def test_the_day_count_twins_agree_with_the_exact_rule(days, per_day, limit):
    exact = [float(count_payout_exact(n, payout_per_unit=per_day, limit=limit)) for n in days]
    assert np.allclose(days_payout(np.array(days), payout_per_unit=float(per_day), limit=float(limit)), exact)
    rain = np.zeros((len(days), 31))
    for row, n in enumerate(days):
        rain[row, :n] = 12.0  # n days at or above a 10 mm trigger
    assert np.allclose(count_payout(rain, trigger=10.0, payout_per_unit=float(per_day), limit=float(limit)), exact)


def test_missing_data_is_never_a_silent_zero():
    assert np.isnan(linear_payout(np.array([np.nan]), **_floats(terms())))[0]
    assert np.isnan(count_payout(np.array([[np.nan, 20.0]]), trigger=10.0, payout_per_unit=1.0, limit=5.0))[0]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.decimals(min_value=0, max_value=10**7, places=2), min_size=1, max_size=4),
    st.decimals(min_value=0, max_value=10**7, places=2),
)
def test_a_line_item_pays_its_covers_sum_capped_at_its_sum_insured(payouts, sum_insured):
    paid = line_item_payout(payouts, sum_insured)
    assert paid <= sum_insured
    assert paid == min(sum(payouts), sum_insured)


def test_excess_rain_and_the_heat_fallback_together_pay_the_sum_insured_once():
    """The 2S of issue 11: a month with record rain and a record heat wave on a line item of
    S = 50,000 holding excess rainfall and the heat fallback (both at their exits)."""
    s = Decimal("50000")
    rain = linear_payout_exact(
        Decimal("900"), direction="ABOVE", trigger=Decimal("400"), exit=Decimal("700"),
        payout_per_unit=Decimal("150"), limit=s, min_payout=Decimal("5000"),
    )
    heat = linear_payout_exact(
        Decimal("47.5"), direction="ABOVE", trigger=Decimal("44.1"), exit=Decimal("46.0"),
        payout_per_unit=Decimal("23684.2105"), limit=s, min_payout=Decimal("5000"),
    )
    assert rain == heat == s
    assert line_item_payout([rain, heat], s) == s
    assert line_item_payout([rain, Decimal(0)], s) == s
    with pytest.raises(ValueError):
        line_item_payout([Decimal(-1)], s)
