"""Burn analysis: the cover's payout in every historical year of the index, projected to
the risk year exactly as the model is.

Per year y the observed index ``x_y`` and the projected index ``x'_y`` (rainfall: each
month brought to the trend level of the risk year with the model's own shrunk trend,
``x g_m(Y) / g_m(y)``, :mod:`.rainfall`; the cyclone record has no trend applied), and the
payout ``P(x'_y)``. Burn cost = mean payout (money), payout frequency = share of years with
a payout, standard error of the burn cost = sd(payouts) / sqrt(years).

Burn against model. ``z = (burn - EL) / sqrt(se_burn^2 + sd_param^2)`` with ``sd_param`` the
model's parameter standard deviation when known (:mod:`.uncertainty`), else 0. When
``|z| > Z_REVIEW`` the two disagree beyond chance: the coverage is flagged for an actuary's
review (``review`` True, visible in the internal API and the technical report) and the
expected loss used for the premium is their inverse-variance (credibility) blend,
``(EL/v_m + burn/v_b) / (1/v_m + 1/v_b)``, ``v_m = sd_param^2 + se_mc^2``, ``v_b = se_burn^2``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal

import numpy as np

from .payouts import payout
from .results import CoverPricing, money
from .site import SiteModel, historical_index
from .terms import CoverTerms

MIN_YEARS = 10
Z_REVIEW = 2.0  # |z| beyond which burn and model disagree (two-sided 4.6 % by chance)


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
    detrended: bool  # True when the history was projected to the risk year
    trend_method: str
    burn_cost: Decimal
    burn_cost_rate: float  # burn_cost / limit (a fraction)
    burn_cost_se: Decimal
    payout_frequency: float
    max_payout: Decimal
    model_expected_loss: Decimal | None
    burn_to_model_ratio: float | None  # burn_cost / model expected loss
    z_score: float | None  # (burn_cost - model EL) / sqrt(burn_cost_se^2 + sd_param^2)
    note: str
    review: bool = False  # |z| > Z_REVIEW: held for an actuary's review
    credibility_expected_loss: Decimal | None = None  # the blend used when review is True


def credibility_blend(model_el: float, model_var: float, burn: float, burn_var: float) -> float:
    """Inverse-variance blend of the model's expected loss and the burn cost (money)."""
    if burn_var <= 0:
        return burn
    if model_var <= 0:
        return model_el
    w_m, w_b = 1.0 / model_var, 1.0 / burn_var
    return (model_el * w_m + burn * w_b) / (w_m + w_b)


def burn_analysis(
    model: SiteModel,
    cover: CoverTerms,
    model_pricing: CoverPricing | None = None,
    parameter_sd: float = 0.0,
) -> BurnAnalysis:
    """Burn analysis of ``cover`` on the target's historical index (see module docstring).

    ``parameter_sd``: the model expected loss's parameter standard deviation (money)."""
    hist = historical_index(model, cover.index_code, cover.risk_start, cover.risk_end)
    el = model_pricing.risk_premium if model_pricing is not None else None
    if cover.is_daily_count or len(hist) < MIN_YEARS:
        return BurnAnalysis(
            cover.cover_id,
            cover.index_code,
            (),
            len(hist),
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
    projected = historical_index(model, cover.index_code, cover.risk_start, cover.risk_end, projected=True)
    years = np.array(sorted(hist), dtype=np.int64)
    x = np.array([hist[int(y)] for y in years])
    used = np.array([projected[int(y)] for y in years])
    detrended = bool(np.any(used != x))
    method = (
        f"projected to {cover.risk_start.year} with the model's shrunk linear trend per calendar month"
        if detrended
        else "no trend applied (none kept by the model for these months, or not a rainfall index)"
    )
    pay = payout(cover, used)
    burn = float(pay.mean())
    se = float(pay.std(ddof=1) / math.sqrt(pay.size))
    ratio = z = None
    review = False
    blend = None
    if el is not None and el > 0:
        ratio = burn / float(el)
        spread = math.sqrt(se * se + parameter_sd * parameter_sd)
        z = (burn - float(el)) / spread if spread > 0 else None
        if z is not None and abs(z) > Z_REVIEW:
            review = True
            mc_se = float(model_pricing.metrics.expected_loss_se)
            blend = money(credibility_blend(float(el), parameter_sd**2 + mc_se**2, burn, se * se))
    return BurnAnalysis(
        cover_id=cover.cover_id,
        index_code=cover.index_code,
        years=tuple(
            BurnYear(int(y), float(a), float(b), money(c)) for y, a, b, c in zip(years, x, used, pay)
        ),
        n_years=int(years.size),
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
        review=review,
        credibility_expected_loss=blend,
    )
