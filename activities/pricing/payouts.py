"""The payout function family (exact semantics: docs/payout-structures.md).

Linear form (SUM and MAX indices), with ``d`` the distance beyond the trigger
(``index - trigger`` for ABOVE, ``trigger - index`` for BELOW)::

    payout = 0                                         if d < 0   (trigger not reached)
           = limit                                     if exit is set and index is at or
                                                          beyond exit (>= exit ABOVE, <= exit BELOW)
           = min(min_payout + payout_per_unit * d, limit)   otherwise (d >= 0)

so at the trigger exactly the cover pays ``min_payout``; between trigger and exit it rises
linearly with slope ``payout_per_unit`` and is capped at ``limit``; at and beyond the exit it
pays ``limit``. With ``payout_per_unit = (limit - min_payout) / |exit - trigger|`` the payout
is continuous at the exit (this is what :func:`propose_terms` sets); a smaller slope leaves a
jump to the limit at the exit.

Daily-count (hotel) form::

    payout = min(payout_per_unit * #{days in the risk period with daily index >= trigger}, limit)

A NaN index gives a NaN payout (never a silent zero). All money in the policy currency,
as float64 here; results round to Decimal cents.
"""

from __future__ import annotations

import numpy as np

from .terms import CoverTerms


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
    """Payout (money) of the linear form for index values ``index`` (index units), vectorised."""
    x = np.asarray(index, dtype=np.float64)
    if direction == "ABOVE":
        d = x - trigger
        beyond = (x >= exit) if exit is not None else None
    elif direction == "BELOW":
        d = trigger - x
        beyond = (x <= exit) if exit is not None else None
    else:
        raise ValueError(f"direction must be ABOVE or BELOW, got {direction!r}")
    pay = np.minimum(min_payout + payout_per_unit * d, limit)
    if beyond is not None:
        pay = np.where(beyond, limit, pay)
    pay = np.where(d >= 0, pay, 0.0)
    return np.where(np.isnan(x), np.nan, pay)


def count_days(daily_index, trigger: float) -> np.ndarray:
    """Number of days (last axis) with daily index >= ``trigger``; NaN if any day is NaN."""
    x = np.asarray(daily_index, dtype=np.float64)
    n = (x >= trigger).sum(axis=-1).astype(np.float64)
    return np.where(np.isnan(x).any(axis=-1), np.nan, n)


def count_payout(daily_index, *, trigger: float, payout_per_unit: float, limit: float) -> np.ndarray:
    """Payout (money) of the daily-count form; ``daily_index`` (..., days) in index units."""
    return np.minimum(count_days(daily_index, trigger) * payout_per_unit, limit)


def payout(terms: CoverTerms, index) -> np.ndarray:
    """Payout (money) of ``terms`` for index values (linear form: (...,); count form: (..., days))."""
    if terms.is_daily_count:
        return count_payout(
            index,
            trigger=float(terms.trigger),
            payout_per_unit=float(terms.payout_per_unit),
            limit=float(terms.limit),
        )
    return linear_payout(
        index,
        direction=terms.resolved_direction,
        trigger=float(terms.trigger),
        payout_per_unit=float(terms.payout_per_unit),
        limit=float(terms.limit),
        min_payout=float(terms.min_payout),
        exit=None if terms.exit is None else float(terms.exit),
    )
