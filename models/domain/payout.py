"""The payout rule: what a cover pays for a value of its index (docs/payout-structures.md).

One rule, written twice side by side: the exact form (`Decimal` in, `Decimal` out) that
documents, examples and settlement use, and its vectorised float twin that the Monte Carlo
runs over millions of paths. `tests/test_payout_rule.py` checks with hypothesis that the two
agree over random terms and index values; nothing else in the code computes a payout.

Linear form (SUM and MAX indices), with ``d`` the distance beyond the trigger
(``index − trigger`` for ABOVE, ``trigger − index`` for BELOW)::

    payout = 0                                          if d < 0   (trigger not reached)
           = limit                                      if exit is set and the index is at or
                                                        beyond it (ABOVE: ≥ exit; BELOW: ≤ exit)
           = min(min_payout + payout_per_unit × d, limit)   otherwise (d ≥ 0)

Line item (several covers sold together with one sum insured S)::

    payout = min(Σ covers' payouts, S)

Daily-count (hotel) form::

    payout = min(payout_per_unit × days, limit)         days: days whose daily index ≥ trigger

Units: index values in the index's unit (mm, km/h, °C); money in major units of the cover's
currency (per unit of cover). The exact rule computes exactly (Decimal arithmetic, no
rounding) and `round_payout` rounds an amount to be paid half-even to the currency's minor
unit. The float twin gives NaN for a NaN index (missing data is never a silent zero).
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal

import numpy as np

from models.domain.money import minor_units

ZERO = Decimal(0)
DIRECTIONS = ("ABOVE", "BELOW")


def _distance(index, trigger, direction: str):
    if direction == "ABOVE":
        return index - trigger
    if direction == "BELOW":
        return trigger - index
    raise ValueError(f"direction must be ABOVE or BELOW, got {direction!r}")


def _beyond_exit(index, exit, direction: str):
    return index >= exit if direction == "ABOVE" else index <= exit


# --- exact ---------------------------------------------------------------------------------------


def linear_payout_exact(
    index: Decimal,
    *,
    direction: str,
    trigger: Decimal,
    payout_per_unit: Decimal,
    limit: Decimal,
    min_payout: Decimal = ZERO,
    exit: Decimal | None = None,
) -> Decimal:
    """The payout of the linear form for one index value, exactly."""
    d = _distance(index, trigger, direction)
    if d < 0:
        return ZERO
    if exit is not None and _beyond_exit(index, exit, direction):
        return limit
    return min(min_payout + payout_per_unit * d, limit)


def count_payout_exact(days: int, *, payout_per_unit: Decimal, limit: Decimal) -> Decimal:
    """The payout of the daily-count form for `days` counted days, exactly."""
    if days < 0:
        raise ValueError("days must not be negative")
    return min(payout_per_unit * days, limit)


def line_item_payout(cover_payouts, sum_insured: Decimal) -> Decimal:
    """What a line item pays for its covers' payouts over one risk period: their sum, capped
    at the line item's sum insured. A tenant line item's covers (two, or one in a month with
    one viable cover) each pay up to the sum insured; excess and deficit rainfall never both pay, but a heat (or wind) cover standing
    in for the deficit cover can pay in the same month as excess rainfall, and the line item
    still pays at most its ``sumInsured`` (docs/quotes-and-policies.md). Money, exact."""
    if sum_insured < 0:
        raise ValueError("sum_insured must be >= 0")
    total = sum((Decimal(p) for p in cover_payouts), ZERO)
    if total < 0:
        raise ValueError("cover payouts must be >= 0")
    return min(total, sum_insured)


def round_payout(amount: Decimal, currency: str) -> Decimal:
    """An amount to be paid, rounded half-even to the currency's minor unit (paise for INR)."""
    return amount.quantize(Decimal(1).scaleb(-minor_units(currency)), rounding=ROUND_HALF_EVEN)


def curve_points(
    *,
    direction: str,
    trigger: Decimal,
    payout_per_unit: Decimal,
    limit: Decimal,
    min_payout: Decimal = ZERO,
    exit: Decimal | None = None,
) -> list[tuple[Decimal, Decimal]]:
    """The corners of the payout function, in increasing index order, each paid by the rule:
    where it starts paying, where the line reaches the limit, the exit; a jump (the minimum
    payout at the trigger, the step to the limit at a shallow exit) is two points at one index
    value, the non-paying side first. Charts draw straight lines between them."""
    sign = 1 if direction == "ABOVE" else -1
    terms = dict(direction=direction, trigger=trigger, payout_per_unit=payout_per_unit, limit=limit,
                 min_payout=min_payout, exit=exit)
    corners: list[Decimal] = [trigger]
    if payout_per_unit > 0 and min_payout < limit:
        cap = trigger + sign * (limit - min_payout) / payout_per_unit  # the line meets the limit
        if exit is None or sign * (cap - exit) < 0:
            corners.append(cap)
    if exit is not None:
        corners.append(exit)
    last = corners[-1]
    span = abs(last - trigger) or max(abs(trigger) / 2, Decimal(1))
    margin = max(span * Decimal("0.35"), Decimal(1))
    before, after = trigger - sign * margin, last + sign * margin
    if trigger >= 0 and (before < 0 or after < 0):  # indices of rain and wind are not negative
        before, after = max(before, ZERO), max(after, ZERO)
    points = [(before, linear_payout_exact(before, **terms))]
    for x in corners:
        paid = linear_payout_exact(x, **terms)
        if x == trigger:
            points.append((x, ZERO))  # just short of the trigger nothing is paid
        elif exit is not None and x == exit:
            d = _distance(x, trigger, direction)
            points.append((x, min(min_payout + payout_per_unit * d, limit)))  # just short of the exit
        points.append((x, paid))
    points.append((after, linear_payout_exact(after, **terms)))
    points.sort(key=lambda p: (p[0], p[1] if direction == "ABOVE" else -p[1]))
    deduped: list[tuple[Decimal, Decimal]] = []
    for p in points:
        if not deduped or deduped[-1] != p:
            deduped.append(p)
    return deduped


# --- float twin for the Monte Carlo ---------------------------------------------------------------


def linear_payout(
    index,
    *,
    direction: str,
    trigger: float,
    payout_per_unit: float,
    limit: float,
    min_payout: float = 0.0,
    exit: float | None = None,
) -> np.ndarray:
    """`linear_payout_exact` over an array of index values (float64; NaN in, NaN out)."""
    x = np.asarray(index, dtype=np.float64)
    d = _distance(x, trigger, direction)
    pay = np.minimum(min_payout + payout_per_unit * d, limit)
    if exit is not None:
        pay = np.where(_beyond_exit(x, exit, direction), limit, pay)
    pay = np.where(d >= 0, pay, 0.0)
    return np.where(np.isnan(x), np.nan, pay)


def linear_payout_in_place(
    x: np.ndarray,
    *,
    direction: str,
    trigger: float,
    payout_per_unit: float,
    limit: float,
    min_payout: float = 0.0,
    exit: float | None = None,
) -> np.ndarray:
    """`linear_payout` for the Monte Carlo's hot loop: `x` (float64, no NaN) is overwritten
    with the payouts and returned, with no temporary arrays beyond two masks."""
    beyond = None if exit is None else _beyond_exit(x, exit, direction)
    if direction == "ABOVE":
        x -= trigger
    elif direction == "BELOW":
        np.subtract(trigger, x, out=x)
    else:
        raise ValueError(f"direction must be ABOVE or BELOW, got {direction!r}")
    short = x < 0  # the trigger is not reached
    x *= payout_per_unit
    x += min_payout
    np.minimum(x, limit, out=x)
    if beyond is not None:
        x[beyond] = limit
    x[short] = 0.0
    return x


def count_days(daily_index, trigger: float) -> np.ndarray:
    """Number of days (last axis) with daily index ≥ `trigger`; NaN if any day is NaN."""
    x = np.asarray(daily_index, dtype=np.float64)
    n = (x >= trigger).sum(axis=-1).astype(np.float64)
    return np.where(np.isnan(x).any(axis=-1), np.nan, n)


def days_payout(days, *, payout_per_unit: float, limit: float) -> np.ndarray:
    """`count_payout_exact` over an array of day counts."""
    return np.minimum(np.asarray(days, dtype=np.float64) * payout_per_unit, limit)


def count_payout(daily_index, *, trigger: float, payout_per_unit: float, limit: float) -> np.ndarray:
    """`count_payout_exact` over arrays of daily index values (..., days)."""
    return days_payout(count_days(daily_index, trigger), payout_per_unit=payout_per_unit, limit=limit)
