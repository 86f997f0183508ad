"""Trigger and exit selection from the calibrated model (return periods, not constants).

For a cover on index I over the risk period (one risk period per year):

* ABOVE: trigger = the level exceeded once in ``trigger_return_period`` years,
  ``q(1 - 1/RP_t)``; exit = ``q(1 - 1/RP_e)``.
* BELOW: trigger = ``q(1/RP_t)``, exit = ``q(1/RP_e)`` (the lower tail).
* Triggers with meaning (issue 26; docs/pricing-model.md, "Triggers and exits"): a cover is
  offered only where its terms are measurable and the record prices them robustly, else it
  is not viable and the reason says which rule refused it:

  - rainfall levels: an excess cover's trigger and a deficit cover's exit (so every level
    the cover pays between) at least ``MIN_RAIN_LEVEL_MM``, IMD's rainy day (2.5 mm). Below
    it a month's total is a few trace days: two gauges of one city do not agree on it (Colaba
    and Santacruz, 1949-1970: their January and April totals correlate at 0.31 and 0.00),
    and an area average, a cell and a gauge price it from 0.4 % to 22 % (issue 26). So a
    near-zero excess trigger is not offered (Mumbai January-April), and neither is a deficit
    cover of a month that is dry (< 2.5 mm) once in ``RP_e`` years or more: dry months get no
    deficit cover;
  - rainfall width: ``|exit - trigger|`` at least ``MIN_RAIN_WIDTH_MM`` (one rainy day), so
    the payout is not decided by one shower;
  - every linear cover: ``|exit - trigger|`` at least ``MIN_WIDTH_SD`` times the index's
    year-to-year standard deviation (from the same simulation). The 1-in-10 to 1-in-50 band
    of a gamma variable spans 0.085 sd at shape 1 (an exponential: the most likely total is
    0) and 0.22 sd at shape 2; a narrower band is a bet on how often the period is almost dry,
    which the record cannot price;
  - the hotel (daily-count) trigger at least ``MIN_RAIN_LEVEL_MM`` of daytime rain.
* Linear form: ``min_payout = min_payout_fraction * limit``,
  ``payout_per_unit = (limit - min_payout) / |exit - trigger|`` (continuous at the exit).
* Wind (a cyclone cover, :mod:`.wind`): offered only when every month of the period has
  enough cyclone record; trigger = max(gale force 62 km/h, the 1-in-RP_t level), exit =
  max(118 km/h, the 1-in-RP_e level), so its attachment probability is that of a gale.
* Daily-count (hotel) form: trigger = the daily-index level that at least one day of the
  period reaches once in ``RP_t`` years (the ``1 - 1/RP_t`` quantile of the period's
  largest daily index); payout_per_unit = ``price_per_night`` if given, else
  ``limit / d`` with ``d`` the 1-in-``RP_e``-year number of triggered days (at least 1);
  no exit, no minimum payout.

Quantiles come from a fixed simulation (``PROPOSAL_SEED``, ``PROPOSAL_N`` paths, randomised
Sobol'), so a proposal is reproducible. Index levels are rounded to 0.1 unit, money to
cents, payout_per_unit to 0.0001.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date
from decimal import ROUND_HALF_EVEN, Decimal

import numpy as np

from models.domain.index_catalog import BY_CODE

from .montecarlo import simulate_index
from .periods import month_slots
from .site import SiteModel
from .terms import CoverTerms
from .wind import GALE_KMH, STORM_FORCE_KMH

PROPOSAL_SEED = 20240601
PROPOSAL_N = 1 << 16
PROPOSAL_N_HOURLY = 1 << 13  # hourly simulation is ~100x dearer per path
# The proposals' normal draws, by layout (they depend only on the fixed seed and the number
# of month slots): drawn once per process, read-only, the same numbers as drawing them anew.
_PROPOSAL_DRAWS: dict = {}
DEFAULT_TRIGGER_RP = 10.0
DEFAULT_EXIT_RP = 50.0
DEFAULT_MIN_PAYOUT_FRACTION = 0.10  # commercial choice, not actuarial
# Triggers with meaning (module docstring): the smallest rainfall level a cover pays at or
# between (IMD's rainy day, mm), the narrowest rainfall band (mm), and the narrowest band of
# any linear cover in units of its index's year-to-year standard deviation.
MIN_RAIN_LEVEL_MM = 2.5
MIN_RAIN_WIDTH_MM = 2.5
MIN_WIDTH_SD = 0.1


@dataclass(frozen=True, slots=True)
class TermsProposal:
    """Proposed terms (None when not viable), with the model probabilities behind them."""

    terms: CoverTerms | None
    viable: bool
    reason: str
    trigger_probability: float  # P(cover pays) per risk period under the model
    exit_probability: float | None  # P(index at/beyond exit); None for the count form
    trigger_return_period: float  # years
    exit_return_period: float  # years


def _round1(x: float) -> float:
    return float(Decimal(repr(float(x))).quantize(Decimal("0.1"), rounding=ROUND_HALF_EVEN))


def _meaningless(spec, direction: str, trigger: float, exit_: float, sd: float, rp_t: float, rp_e: float) -> str:
    """Why terms cannot be offered (module docstring, "Triggers with meaning"), or ""."""
    width = abs(exit_ - trigger)
    rain = spec.risk_type_id == "RAINFALL"
    if rain:
        if direction == "ABOVE" and trigger < MIN_RAIN_LEVEL_MM:
            return (
                f"the 1-in-{rp_t:g}-year high is {trigger:g} mm, below a rainy day ({MIN_RAIN_LEVEL_MM:g} mm): "
                "the period is too dry for an excess cover (two gauges of one city disagree on such amounts)"
            )
        if direction == "BELOW" and exit_ < MIN_RAIN_LEVEL_MM:
            return (
                f"the 1-in-{rp_e:g}-year low is {exit_:g} mm, below a rainy day ({MIN_RAIN_LEVEL_MM:g} mm): "
                "the period is too often dry for a deficit cover"
            )
    if (direction == "ABOVE" and exit_ <= trigger) or (direction == "BELOW" and exit_ >= trigger):
        return "trigger and exit levels coincide"
    if rain:
        if width < MIN_RAIN_WIDTH_MM:
            return (
                f"exit and trigger are {width:g} mm apart, less than a rainy day ({MIN_RAIN_WIDTH_MM:g} mm): "
                "one shower would decide the payout"
            )
    if width < MIN_WIDTH_SD * sd:
        return (
            f"exit and trigger are {width:g} {spec.unit} apart, less than {MIN_WIDTH_SD:g} of the index's "
            f"year-to-year spread ({sd:.1f} {spec.unit}): the payout would be all or nothing"
        )
    return ""


def propose_terms(
    model: SiteModel,
    index_code: str,
    risk_start: date,
    risk_end: date,
    limit: Decimal,
    *,
    trigger_return_period: float = DEFAULT_TRIGGER_RP,
    exit_return_period: float = DEFAULT_EXIT_RP,
    min_payout_fraction: float = DEFAULT_MIN_PAYOUT_FRACTION,
    price_per_night: Decimal | None = None,
    cover_id: str = "",
) -> TermsProposal:
    """Propose trigger, exit, minPayout, payoutPerUnit and limit for a cover.

    ``limit`` and ``price_per_night``: money; return periods in years (> 1, exit > trigger).
    """
    if index_code not in BY_CODE:
        raise ValueError(f"unknown index code {index_code!r}")
    if not (1 < trigger_return_period < exit_return_period):
        raise ValueError("need 1 < trigger_return_period < exit_return_period")
    if not (0 <= min_payout_fraction < 1):
        raise ValueError("min_payout_fraction must be in [0, 1)")
    limit = Decimal(str(limit)).quantize(Decimal("0.01"))
    spec = BY_CODE[index_code]
    p_t, p_e = 1.0 / trigger_return_period, 1.0 / exit_return_period
    rp = dict(trigger_return_period=trigger_return_period, exit_return_period=exit_return_period)

    if spec.aggregation == "DAILY_COUNT":
        daily = simulate_index(
            model, index_code, risk_start, risk_end, PROPOSAL_N_HOURLY, PROPOSAL_SEED, draws=_PROPOSAL_DRAWS
        )
        trigger = _round1(np.quantile(daily.max(axis=1), 1.0 - p_t))
        if trigger < MIN_RAIN_LEVEL_MM:
            return TermsProposal(
                None,
                False,
                f"the period's 1-in-{trigger_return_period:g}-year wettest day has {trigger:g} mm of daytime rain, "
                f"below a rainy day ({MIN_RAIN_LEVEL_MM:g} mm): rain is too rare for a hotel cover",
                0.0,
                None,
                **rp,
            )
        count = (daily >= trigger).sum(axis=1)
        if price_per_night is not None:
            ppu = Decimal(str(price_per_night)).quantize(Decimal("0.01"))
        else:
            days = max(1, math.ceil(np.quantile(count, 1.0 - p_e)))
            ppu = (limit / days).quantize(Decimal("0.01"))
        terms = CoverTerms(
            index_code=index_code,
            risk_start=risk_start,
            risk_end=risk_end,
            trigger=trigger,
            limit=limit,
            payout_per_unit=ppu,
            cover_id=cover_id,
        )
        return TermsProposal(terms, True, "", float((count > 0).mean()), None, **rp)

    offer = {"WIND": model.wind, "TEMPERATURE": model.temperature}.get(spec.risk_type_id)
    if offer is not None:
        refusal = next((r for s in month_slots(risk_start, risk_end) if (r := offer.reason(s.month))), "")
        if refusal:
            return TermsProposal(None, False, refusal, 0.0, None, **rp)
    x = simulate_index(model, index_code, risk_start, risk_end, PROPOSAL_N, PROPOSAL_SEED, draws=_PROPOSAL_DRAWS)
    direction = spec.direction
    if spec.risk_type_id == "WIND":
        # a cyclone cover: never below gale force (winds below it are not modelled), and
        # at least up to a very severe cyclonic storm's wind (module docstring of .wind)
        trigger = max(GALE_KMH, _round1(np.quantile(x, 1 - p_t)))
        exit_ = max(STORM_FORCE_KMH, _round1(np.quantile(x, 1 - p_e)))
        p_trig, p_exit = float((x >= trigger).mean()), float((x >= exit_).mean())
    elif direction == "ABOVE":
        trigger, exit_ = _round1(np.quantile(x, 1 - p_t)), _round1(np.quantile(x, 1 - p_e))
        p_trig, p_exit = float((x >= trigger).mean()), float((x >= exit_).mean())
    else:
        trigger, exit_ = _round1(np.quantile(x, p_t)), _round1(np.quantile(x, p_e))
        p_trig, p_exit = float((x <= trigger).mean()), float((x <= exit_).mean())
        exit_ = max(exit_, 0.0)
    refusal = _meaningless(spec, direction, trigger, exit_, float(x.std()), trigger_return_period, exit_return_period)
    if refusal:
        return TermsProposal(None, False, refusal, p_trig, p_exit, **rp)
    min_payout = (limit * Decimal(str(min_payout_fraction))).quantize(Decimal("0.01"))
    ppu = ((limit - min_payout) / Decimal(repr(abs(exit_ - trigger)))).quantize(Decimal("0.0001"))
    terms = CoverTerms(
        index_code=index_code,
        risk_start=risk_start,
        risk_end=risk_end,
        trigger=trigger,
        exit=exit_,
        limit=limit,
        min_payout=min_payout,
        payout_per_unit=ppu,
        cover_id=cover_id,
    )
    return TermsProposal(terms, True, "", p_trig, p_exit, **rp)
