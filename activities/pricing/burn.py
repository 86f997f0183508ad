"""Burn analysis: the cover's payout in every historical year of the index, on the model's
basis and on three views of the record that do not share the model's projection.

**Model basis** (the fit check). Per year y the observed index ``x_y`` and the index used
``x'_y`` (rainfall: on the cell's scale, each month brought from its year's trend level to
the model's level of the risk year, ``x g_m(Y) / L_m(y)``, :mod:`.rainfall`; the cyclone
record has no trend applied), and the payout ``P(x'_y)``. Burn cost = mean payout (money),
payout frequency = share of years with a payout, standard error = sd(payouts) / sqrt(years).
``z = (burn - EL) / sqrt(se_burn^2 + sd_param^2)`` (``sd_param`` the band's sampling driver:
the model basis shares the model's scale factor and level); when ``|z| > Z_REVIEW`` the two disagree
beyond chance (``review``) and the expected loss used for the premium is their
inverse-variance (credibility) blend, ``(EL/v_m + burn/v_b) / (1/v_m + 1/v_b)``,
``v_m = sd_param^2 + se_mc^2``, ``v_b = se_burn^2``. It speaks of the model's own risk year,
so it checks the fit, not the projection.

**Three views** (the projection check), each on the cell's scale (the record mapped at equal
probability through the model's scale factor: the model prices a cell) and none through the
model's trend:

* ``full record``: every year as observed (1901-2015 for rainfall, 1982-2023 for cyclones);
* ``last 30 years``: the record's last ``RECENT_YEARS`` years as observed (the recent climate);
* ``detrended record``: every year brought to the record's last year by the record's own
  unshrunk linear trend (:meth:`MonthlyRainModel.detrend_factor`; cyclones: no trend, the
  record as observed).

A view **holds** the cover when the model's EL is below it by more than the band, i.e. the
view lies above the top of the parameter band (every driver, :mod:`.uncertainty`) by more
than the view's own sampling error allows: ``burn_v - EL > sqrt((high - EL)^2 + (z se_v)^2)``
with ``z = Z_HOLD`` (one-sided 5 %). A held cover is not offered until an actuary publishes
its price (docs/catalogue.md); ``hold_reason`` names the views.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal

import numpy as np

from models.domain.index_catalog import BY_CODE

from .payouts import payout
from .rainfall import RECENT_YEARS
from .results import CoverPricing, money
from .site import SiteModel, historical_index
from .terms import CoverTerms

MIN_YEARS = 10
Z_REVIEW = 2.0  # |z| beyond which burn and model disagree (two-sided 4.6 % by chance)
Z_HOLD = 1.6448536269514722  # a view's sampling error at its one-sided 95 % point
VIEWS = ("full record", "last 30 years", "detrended record")


@dataclass(frozen=True, slots=True)
class BurnYear:
    year: int
    index: float  # as observed (index units)
    index_used: float  # on the model's basis (cell scale, the risk year's level)
    payout: Decimal  # money


@dataclass(frozen=True, slots=True)
class BurnView:
    """The cover's burn on one view of the record (money; rates are fractions of the limit)."""

    name: str  # one of VIEWS
    first_year: int
    last_year: int
    n_years: int
    burn_cost: Decimal
    burn_cost_rate: float
    burn_cost_se: Decimal
    burn_cost_se_rate: float  # burn_cost_se / limit
    payout_frequency: float
    basis: str  # how the record was taken to the view
    excess_over_band: float  # burn - EL - sqrt((high - EL)^2 + (Z_HOLD se)^2), money; > 0 holds
    holds: bool


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
    review: bool = False  # |z| > Z_REVIEW: the EL used is the credibility blend
    credibility_expected_loss: Decimal | None = None  # the blend used when review is True
    views: tuple[BurnView, ...] = ()  # full record, last 30 years, detrended record
    held: bool = False  # a view lies above the band: not offered until an actuary publishes it
    hold_reason: str = ""
    band_high: Decimal | None = None  # the top of the parameter band the views were held against


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
    band_high: float | None = None,
) -> BurnAnalysis:
    """Burn analysis of ``cover`` on the target's historical index (see module docstring).

    ``parameter_sd``: the model expected loss's parameter standard deviation for the fit check
    (money; the band's sampling driver: the model basis shares the scale factor and the level);
    ``band_high``: the top of its parameter band (money), against which the views hold the
    cover (None: the views are reported, nothing is held)."""
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
        f"on the cell's scale, brought to the model's {cover.risk_start.year} level (the record's trend "
        "line, at most at its last year, within one standard error of its last 30 years)"
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
    views = burn_views(model, cover, None if el is None else float(el), band_high)
    holding = [v for v in views if v.holds]
    reason = ""
    if holding:
        reason = (
            f"model EL {float(el) / float(cover.limit):.2%} of the limit is below the "
            + "; ".join(f"{v.name} burn {v.burn_cost_rate:.2%} ({v.first_year}-{v.last_year})" for v in holding)
            + f" by more than the band (top {band_high / float(cover.limit):.2%}) and the record's sampling error: "
            "held for an actuary"
        )
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
        views=views,
        held=bool(holding),
        hold_reason=reason,
        band_high=None if band_high is None else money(band_high),
    )


def burn_views(
    model: SiteModel, cover: CoverTerms, el: float | None, band_high: float | None
) -> tuple[BurnView, ...]:
    """The cover's burn on the full record, its last 30 years and the detrended record (module
    docstring); each holds the cover when ``el`` and ``band_high`` are given and it lies above
    the band by more than its sampling error."""
    rain = BY_CODE[cover.index_code].risk_type_id == "RAINFALL"
    record = historical_index(model, cover.index_code, cover.risk_start, cover.risk_end, projected=True, basis="record")
    detrended = historical_index(
        model, cover.index_code, cover.risk_start, cover.risk_end, projected=True, basis="detrended"
    )
    if len(record) < MIN_YEARS:
        return ()
    last = max(record)
    recent = {y: v for y, v in record.items() if y > last - RECENT_YEARS}
    cell = "the cell's scale (the record mapped at equal probability)" if rain else "the record at the target"
    sources = (
        (VIEWS[0], record, f"{cell}, as observed"),
        (VIEWS[1], recent, f"{cell}, as observed"),
        (
            VIEWS[2],
            detrended,
            f"{cell}, brought to {last} by the record's own linear trend"
            if rain
            else "cyclone record: no trend, as observed",
        ),
    )
    return tuple(_view(name, values, basis, cover, el, band_high) for name, values, basis in sources)


def _view(name: str, values: dict[int, float], basis: str, cover: CoverTerms, el, band_high) -> BurnView:
    years = sorted(values)
    pay = payout(cover, np.array([values[y] for y in years]))
    burn = float(pay.mean())
    se = float(pay.std(ddof=1) / math.sqrt(pay.size)) if pay.size > 1 else 0.0
    excess = -math.inf
    if el is not None and band_high is not None:
        excess = burn - el - math.sqrt((band_high - el) ** 2 + (Z_HOLD * se) ** 2)
    return BurnView(
        name=name,
        first_year=int(years[0]),
        last_year=int(years[-1]),
        n_years=len(years),
        burn_cost=money(burn),
        burn_cost_rate=burn / float(cover.limit),
        burn_cost_se=money(se),
        burn_cost_se_rate=se / float(cover.limit),
        payout_frequency=float((pay > 0).mean()),
        basis=basis,
        excess_over_band=excess if math.isfinite(excess) else 0.0,
        holds=excess > 0,
    )
