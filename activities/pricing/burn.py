"""Burn analysis: the cover's payout in every historical year of the index.

Per year y the (possibly detrended) index ``x'_y`` and the payout ``P(x'_y)``; burn cost =
mean payout (money), payout frequency = share of years with a payout, standard error of
the burn cost = sd(payouts) / sqrt(years).

Detrending. Ordinary least squares of the index on the year; the trend is significant when
the two-sided t-test of the slope gives p < ``significance`` (default 5 %,
``scipy.stats.linregress``). When significant, values are brought to the trend level of the
last historical year ``y*``:

* multiplicative, ``x'_y = x_y * T(y*) / T(y)``, when the fitted trend ``T`` is positive over
  the whole record (rainfall: keeps zero months at zero and the relative variability);
* additive, ``x'_y = max(0, x_y + T(y*) - T(y))`` (non-negative indices) or
  ``x_y + T(y*) - T(y)`` otherwise.

The method used is named in :attr:`BurnAnalysis.trend_method`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal

import numpy as np
from scipy.stats import linregress

from .payouts import payout
from .results import CoverPricing, money
from .site import SiteModel, historical_index
from .terms import CoverTerms

DEFAULT_SIGNIFICANCE = 0.05
MIN_YEARS = 10


@dataclass(frozen=True, slots=True)
class BurnYear:
    year: int
    index: float  # as observed (index units)
    index_used: float  # detrended when a trend was significant, else = index
    payout: Decimal  # money


@dataclass(frozen=True, slots=True)
class BurnAnalysis:
    """Historical burn of one cover; money in the policy currency, percentages of the limit."""

    cover_id: str
    index_code: str
    years: tuple[BurnYear, ...]
    n_years: int
    trend_slope_per_year: float  # index units per year (OLS)
    trend_p_value: float | None  # None without history
    detrended: bool
    trend_method: str
    burn_cost: Decimal
    burn_cost_rate: float  # burn_cost / limit (a fraction)
    burn_cost_se: Decimal
    payout_frequency: float
    max_payout: Decimal
    model_expected_loss: Decimal | None
    burn_to_model_ratio: float | None  # burn_cost / model expected loss
    z_score: float | None  # (burn_cost - model EL) / burn_cost_se
    note: str


def detrend(
    years: np.ndarray, x: np.ndarray, significance: float = DEFAULT_SIGNIFICANCE, non_negative: bool = True
) -> tuple[np.ndarray, float, float, bool, str]:
    """(values used, slope per year, p-value, detrended?, method) — see module docstring."""
    fit = linregress(years, x)
    slope, p = float(fit.slope), float(fit.pvalue)
    if not (p < significance):
        return (
            x.copy(),
            slope,
            p,
            False,
            f"none (OLS linear trend not significant, p={p:.3f} >= {significance:g})",
        )
    ref = int(years.max())
    trend = fit.intercept + fit.slope * years
    t_ref = fit.intercept + fit.slope * ref
    test = f"OLS linear trend (t-test p={p:.3f} < {significance:g})"
    if np.all(trend > 0) and t_ref > 0:
        return (
            x * (t_ref / trend),
            slope,
            p,
            True,
            f"{test}, multiplicative adjustment to the {ref} trend level",
        )
    out = x + (t_ref - trend)
    if non_negative:
        out = np.maximum(out, 0.0)
    return out, slope, p, True, f"{test}, additive adjustment to the {ref} trend level"


def burn_analysis(
    model: SiteModel,
    cover: CoverTerms,
    model_pricing: CoverPricing | None = None,
    significance: float = DEFAULT_SIGNIFICANCE,
) -> BurnAnalysis:
    """Burn analysis of ``cover`` on the target's historical index (see module docstring)."""
    hist = historical_index(model, cover.index_code, cover.risk_start, cover.risk_end)
    el = model_pricing.risk_premium if model_pricing is not None else None
    if cover.is_daily_count or len(hist) < MIN_YEARS:
        return BurnAnalysis(
            cover.cover_id,
            cover.index_code,
            (),
            len(hist),
            0.0,
            None,
            False,
            "none",
            money(0),
            0.0,
            money(0),
            0.0,
            money(0),
            el,
            None,
            None,
            (
                "no historical series of this index at this target"
                if not hist
                else f"only {len(hist)} years of history (< {MIN_YEARS})"
            ),
        )
    years = np.array(sorted(hist), dtype=np.int64)
    x = np.array([hist[int(y)] for y in years])
    used, slope, p, detrended, method = detrend(years.astype(float), x, significance, True)
    pay = payout(cover, used)
    burn = float(pay.mean())
    se = float(pay.std(ddof=1) / math.sqrt(pay.size))
    ratio = z = None
    if el is not None and el > 0:
        ratio = burn / float(el)
        z = (burn - float(el)) / se if se > 0 else None
    return BurnAnalysis(
        cover_id=cover.cover_id,
        index_code=cover.index_code,
        years=tuple(
            BurnYear(int(y), float(a), float(b), money(c)) for y, a, b, c in zip(years, x, used, pay)
        ),
        n_years=int(years.size),
        trend_slope_per_year=slope,
        trend_p_value=p,
        detrended=detrended,
        trend_method=method,
        burn_cost=money(burn),
        burn_cost_rate=burn / float(cover.limit),
        burn_cost_se=money(se),
        payout_frequency=float((pay > 0).mean()),
        max_payout=money(pay.max()),
        model_expected_loss=el,
        burn_to_model_ratio=ratio,
        z_score=z,
        note="" if model_pricing is not None else "no model price given",
    )
