"""The payout rule as the Monte Carlo uses it: the float twin of the one rule in
models/domain/payout.py (exact semantics: docs/payout-structures.md), applied to a cover's
terms. Nothing here computes a payout of its own."""

from __future__ import annotations

import numpy as np

from models.domain.payout import count_days, count_payout, linear_payout

from .terms import CoverTerms

__all__ = ["count_days", "count_payout", "linear_payout", "payout"]


def payout(terms: CoverTerms, index) -> np.ndarray:
    """Payout (money) of `terms` for index values (linear form: (...,); count form: (..., days))."""
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
