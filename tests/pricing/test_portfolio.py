"""The book's risk (activities/pricing/portfolio.py): exceedance curves against a closed form
and a brute-force simulation, the as-if years against the payout rule."""

from __future__ import annotations

import calendar
import math
from datetime import date
from decimal import Decimal

import numpy as np
import pytest
from scipy.stats import norm

from activities.pricing.montecarlo import simulate_payouts
from activities.pricing.portfolio import (
    RETURN_PERIODS,
    BookLineItem,
    BookTarget,
    as_if_years,
    curve,
    decoupled,
    simulate_book,
    simulate_target,
    target_seed,
)
from activities.pricing.terms import CoverTerms

from .conftest import normal_temperature, synthetic_model


def month(m, year=2027):
    return date(year, m, 1), date(year, m, calendar.monthrange(year, m)[1])


def heat(m, trigger, *, limit="1000", ppu="0", min_payout=None, year=2027, exit=None):
    a, b = month(m, year)
    return CoverTerms("TEMPERATURE_MAX", a, b, float(trigger), Decimal(limit), Decimal(ppu),
                      min_payout=Decimal(limit if min_payout is None else min_payout), exit=exit)


def item(covers, quantity, cap_major, premium_minor=0, policy="p"):
    return BookLineItem(policy, tuple(covers), Decimal(quantity), int(Decimal(cap_major) * 100), premium_minor,
                        covers[0].risk_start)


def test_one_all_or_nothing_cover_matches_its_closed_form(chennai):
    """One cover paying L with probability p = P(T >= 41.76) = 3 % (T ~ Normal(38, 2)), else
    nothing: the 1-in-T loss is L when p > 1/T and 0 when p < 1/T; the TVaR is L when
    p >= 1/T, else p T L (the tail's k = N / T paths hold the N p paying ones)."""
    model = synthetic_model(chennai, temperature=normal_temperature(38.0, 2.0))
    trigger = 38.0 + 2.0 * float(norm.isf(0.03))
    book = [BookTarget("T1", model, (item([heat(7, trigger)], 10, "10000"),))]
    risk = simulate_book(book, n=1 << 16, seed=3, as_if=False)
    L, p = 10_000.0, 0.03
    assert risk.expected_loss == pytest.approx(p * L, abs=4 * risk.expected_loss_se)
    for point in risk.aep:
        t = point.return_period
        assert point.loss == (L if p > 1 / t else 0.0)
        exact_tvar = L if p >= 1 / t else p * t * L
        assert abs(point.tvar - exact_tvar) <= max(4 * point.tvar_standard_error, 1e-9), point
    assert [p.loss for p in risk.oep] == [p.loss for p in risk.aep]  # one target-month: O = A
    assert risk.insured_minor == 1_000_000 and risk.n_paths == 1 << 16


def _naive(targets, n, seed):
    """Line item by line item on the engine's paths: L_j = min(q_j sum_i X_i, S_j)."""
    agg = occ = None
    for t in sorted(targets, key=lambda t: t.target_id):
        covers = [c for it in t.line_items for c in it.covers]
        sample = simulate_payouts(t.model, list(dict.fromkeys(covers)), n, target_seed(seed, t.target_id))
        sample = decoupled(sample, target_seed(seed, f"{t.target_id}:rows"))  # the target's rows shuffled
        order = list(dict.fromkeys(covers))
        if agg is None:
            agg, occ = np.zeros(sample.n), np.zeros(sample.n)
        months = {}
        for it in t.line_items:
            raw = sum(sample.dense(order.index(c)) for c in it.covers)
            loss = np.minimum(float(it.quantity) * raw, it.cap_minor / 100)
            agg += loss
            months[it.month] = months.get(it.month, 0) + loss
        for v in months.values():
            occ = np.maximum(occ, v)
    return agg, occ


def _small_book(chennai):
    hot = synthetic_model(chennai, temperature=normal_temperature(38.0, 2.0))
    mild = synthetic_model(chennai, temperature=normal_temperature(35.0, 1.5))
    linear = dict(min_payout="0", ppu="200")
    return [
        BookTarget("A", hot, (
            item([heat(7, 40, **linear), heat(7, 41, **linear)], 5, "1200"),
            item([heat(7, 40, **linear)], 2, "1500"),
            item([heat(8, 39.5, **linear)], 3, "2000"),
        )),
        BookTarget("B", mild, (
            item([heat(7, 37, **linear)], 4, "3000"),
            item([heat(7, 37, **linear)], 4, "3000"),
            item([heat(9, 36.5, limit="800")], 1, "800"),
        )),
    ]


def test_book_equals_line_item_by_line_item_on_the_same_paths(chennai):
    """Grouping identical covers and line items changes no number: the curves equal those of
    the line items' losses summed one by one on the engine's paths of each target."""
    book = _small_book(chennai)
    n, seed = 1 << 13, 11
    risk = simulate_book(book, n=n, seed=seed, as_if=False, keep_paths=True)
    agg, occ = _naive(book, n, seed)
    np.testing.assert_allclose(risk.aggregate, agg, rtol=1e-12, atol=1e-9)
    for got, want in zip(risk.aep, curve(agg, 16)):
        assert got.loss == pytest.approx(want.loss, rel=1e-12) and got.tvar == pytest.approx(want.tvar, rel=1e-12)
    for got, want in zip(risk.oep, curve(occ, 16)):
        assert got.loss == pytest.approx(want.loss, rel=1e-12) and got.tvar == pytest.approx(want.tvar, rel=1e-12)
    assert [t.key for t in risk.by_month] == ["2027-07", "2027-08", "2027-09"]
    assert sum(t.expected_loss for t in risk.by_target) == pytest.approx(risk.expected_loss, rel=1e-12)
    assert sum(t.insured_minor for t in risk.by_month) == risk.insured_minor == (1200 + 1500 + 2000 + 6000 + 800) * 100


def test_exceedance_curves_agree_with_a_brute_force_simulation(chennai):
    """The same small book simulated by plain numpy (independent Normal monthly maxima per
    target, the payout rule's float twin, caps, sums): AEP and OEP agree within their errors."""
    book = _small_book(chennai)
    risk = simulate_book(book, n=1 << 16, seed=5, as_if=False)
    rng = np.random.default_rng(20261126)
    big = 1 << 20
    params = {"A": (38.0, 2.0), "B": (35.0, 1.5)}
    agg, occ = np.zeros(big), np.zeros(big)
    from models.domain.payout import linear_payout

    for t in book:
        mu, sd = params[t.target_id]
        temps = {m: rng.normal(mu, sd, big) for m in (7, 8, 9)}
        months = {}
        for it in t.line_items:
            raw = sum(
                linear_payout(temps[c.risk_start.month], direction="ABOVE", trigger=c.trigger,
                              payout_per_unit=float(c.payout_per_unit), limit=float(c.limit),
                              min_payout=float(c.min_payout))
                for c in it.covers
            )
            loss = np.minimum(float(it.quantity) * raw, it.cap_minor / 100)
            agg += loss
            months[it.month] = months.get(it.month, 0) + loss
        for v in months.values():
            occ = np.maximum(occ, v)
    for got, want in ((risk.aep, curve(agg, 64)), (risk.oep, curve(occ, 64))):
        for g, w in zip(got, want):
            se = math.hypot(g.standard_error, w.standard_error) + 1e-9
            tse = math.hypot(g.tvar_standard_error, w.tvar_standard_error) + 1e-9
            assert abs(g.loss - w.loss) <= 4 * se + 1e-6 * w.loss, (g, w)
            assert abs(g.tvar - w.tvar) <= 4 * tse, (g, w)
    assert risk.expected_loss == pytest.approx(float(agg.mean()), abs=4 * risk.expected_loss_se + 1)
    assert [p.return_period for p in risk.aep] == list(RETURN_PERIODS)


def _rain(m, trigger, *, limit, ppu, min_payout="0", exit=None, year=2027, direction=None):
    a, b = month(m, year)
    return CoverTerms("RAINFALL_MONTHLY_TOTAL", a, b, float(trigger), Decimal(limit), Decimal(ppu),
                      min_payout=Decimal(min_payout), exit=exit, direction=direction)


def test_as_if_year_pays_what_the_payout_rule_says(chennai):
    """A constructed record: each cover's index per year. Year 1990 at target A: excess
    cover 150.55 mm against a trigger of 100 at 3.33/mm pays 50.55 x 3.33 = 168.3315 per unit,
    x 7 units = 1178.3205 -> 1178.32 (half-even); its sibling (a 2028 cover, reading 1991)
    pays its limit 500 x 7 = 3500; together 4678.32, capped at 4000. Target B's deficit cover
    (BELOW 60, exit 20, min 100, 10/mm) reads 30.5: 100 + 29.5 x 10 = 395, x 2.5 = 987.50. The
    year's loss 4000 + 987.50; 1991 pays nothing at A (index below its trigger), B at its exit."""
    excess = _rain(7, 100, limit="1000", ppu="3.33")
    later = _rain(1, 200, limit="500", ppu="0", min_payout="500", year=2028)
    deficit = _rain(8, 60, limit="600", ppu="10", min_payout="100", exit=20.0, direction="BELOW")
    values = {
        excess: {1990: 150.55, 1991: 80.0, 1992: 101.0},
        later: {1990: 10.0, 1991: 250.0, 1992: 0.0, 1993: 300.0},  # keyed by its own start year
        deficit: {1990: 30.5, 1991: 19.0, 1992: 70.0},
    }
    record = lambda model, cover: values[cover]
    book = [
        BookTarget("A", chennai, (item([excess, later], 7, "4000"),)),
        BookTarget("B", chennai, (item([deficit], "2.5", "1500"),)),
    ]
    result = as_if_years(book, "INR", record=record)
    assert result.count == 3 and (result.first, result.last) == (1990, 1992)
    by_year = {y.year: y for y in result.worst}
    assert by_year[1990].loss_minor == 400_000 + 98_750
    assert by_year[1990].by_target_minor == (("A", 400_000), ("B", 98_750))
    assert by_year[1991].by_target_minor == (("B", 150_000),)  # 600 x 2.5, the exit
    # 1992: A's excess 1 mm x 3.33 x 7 = 23.31; its 2028 cover reads 1993: 500 x 7; capped 4000
    assert by_year[1992].by_target_minor == (("A", 352_331),)
    assert [y.year for y in result.worst] == [1990, 1992, 1991]
    risk = simulate_book(book, n=1 << 12, seed=1, record=record)
    assert risk.as_if_years == result.worst


def test_a_line_item_with_a_cover_the_record_lacks_keeps_its_recorded_covers_in_the_years(chennai):
    """A line item of a rain cover the record has and a heat cover it does not (README run,
    issue 27: 6 of the demo's 13 line items were left out of every year, rain and all): its
    rain cover pays in the years, capped as ever; it is counted as paid only in part."""
    excess = _rain(7, 100, limit="1000", ppu="3.33")
    hot = heat(7, 40, min_payout="0", ppu="100")
    values = {excess: {1990: 150.55, 1991: 80.0}}
    record = lambda model, cover: values.get(cover, {})  # noqa: E731
    book = [BookTarget("A", chennai, (item([excess, hot], 7, "4000"),))]
    result = as_if_years(book, "INR", record=record)
    assert result.count == 2 and result.unrecorded == 1
    by_year = {y.year: y for y in result.worst}
    assert by_year[1990].by_target_minor == (("A", 117_832),)  # 50.55 x 3.33 x 7 = 1178.3205 -> 1178.32
    assert 1991 in by_year and by_year[1991].loss_minor == 0


def test_a_quote_that_diversifies_the_book_costs_less_capital(chennai):
    """The book: 100 units of a hot-July cover at target A (T ~ Normal(38, 2), 100 a degree over
    40, at most 1,000 a unit). A quote of 5 units of the same cover at A pays in the book's
    worst years: its capital is its stand-alone capital (co-TVaR = TVaR: comonotone). The same
    quote at B, independent of A, pays in few of them: a fraction of it. An empty book charges
    the stand-alone capital exactly; Euler and marginal capital agree for a small quote."""
    hot = synthetic_model(chennai, temperature=normal_temperature(38.0, 2.0))
    cover = heat(7, 40, min_payout="0", ppu="100")
    book = [BookTarget("A", hot, (item([cover], 100, "100000"),))]
    from activities.pricing.portfolio import quote_capital

    same = quote_capital(book, BookTarget("A", hot, (item([cover], 5, "5000"),)), n=1 << 15, seed=4)
    apart = quote_capital(book, BookTarget("B", hot, (item([cover], 5, "5000"),)), n=1 << 15, seed=4)
    alone = quote_capital([], BookTarget("B", hot, (item([cover], 5, "5000"),)), n=1 << 15, seed=4)

    assert same.capital == pytest.approx(same.stand_alone_capital, rel=1e-9)  # concentrates: no saving
    assert same.diversification == pytest.approx(0.0, abs=1e-9)
    assert apart.capital < 0.3 * apart.stand_alone_capital  # diversifies: most of it saved
    assert apart.capital + 4 * apart.capital_se < same.capital
    assert apart.stand_alone_capital == pytest.approx(same.stand_alone_capital, rel=0.05)
    assert alone.capital == pytest.approx(alone.stand_alone_capital, rel=1e-12)
    assert alone.book_capital == 0.0
    for c in (same, apart):
        assert c.capital <= c.stand_alone_capital * (1 + 1e-9)
        assert c.marginal_capital == pytest.approx(c.capital, abs=max(0.15 * c.stand_alone_capital, 4 * c.capital_se))
        assert c.capital_load == pytest.approx(0.06 * c.capital)


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_two_targets_paths_are_independent(chennai, seed):
    """The model has no dependence between targets, so the book's paths must have none: the
    same hot-July cover at two targets pays on both paths as often as independence says,
    P(A and B) = P(A) P(B) within five standard errors. Scrambled Sobol' sets of two seeds
    share one base sequence: before the rows were shuffled per target (issue 27's review)
    they paid together 0.016-0.034 of the time against 0.025."""
    hot = synthetic_model(chennai, temperature=normal_temperature(38.0, 2.0))
    cover = heat(7, 40, min_payout="0", ppu="100")
    a = simulate_target(BookTarget("A", hot, (item([cover], 1, "1000"),)), 1 << 16, seed)[0].aggregate > 0
    b = simulate_target(BookTarget("B", hot, (item([cover], 1, "1000"),)), 1 << 16, seed)[0].aggregate > 0
    n = a.size
    both, expected = float((a & b).mean()), float(a.mean()) * float(b.mean())
    se = math.sqrt(expected * (1 - expected) / n)
    assert abs(both - expected) < 5 * se, (both, expected, se)
