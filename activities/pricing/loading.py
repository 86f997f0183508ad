"""From expected loss to premium: a risk-based load (the World Bank's index-insurance form).

    technical premium = adjusted EL + k_u * sigma_param + r_c * (PML - adjusted EL)
    gross premium     = max(technical premium / (1 - e), m * limit)

* adjusted EL: the model's expected loss, or its credibility blend with the burn cost when
  the two disagree (:mod:`.burn`);
* ``k_u * sigma_param``: the uncertainty load, ``sigma_param`` the parameter standard
  deviation of the expected loss (:mod:`.uncertainty`), ``k_u`` = ``uncertainty_multiplier``
  (0.67 puts the premium at about the 75th percentile of the parameter band);
* ``r_c * (PML - adjusted EL)``: the capital load, PML the payout exceeded with probability
  1 - ``capital_quantile`` (VaR 99 %: the 1-in-100-year loss), ``r_c`` the cost of that
  capital (``capital_cost_rate``, a fraction per year);
* ``e``: expenses and commission as a share of the gross premium (``expense_ratio``);
* ``m``: the minimum rate on line (``min_rate_on_line``): no cover sells for less.

This is the form of the World Bank's index-insurance pricing practice as the review cites it
(adjusted expected loss + a load proportional to the probable maximum loss above it +
expenses), with the parameter-uncertainty load in front. `risk_loaded_premium` applies it to
one cover alone (the catalogue's stand-alone indication); `package_premium` to a package of
covers sold together (issue 26: :mod:`.quote_pricing`), with the capital taken on the
package's tail (TVaR - EL) and every load allocated to the covers, so that each cover's part
is shown and the parts add up to the package's premium. Parameters are settings
(``models.settings``: ``PRICING_*``); every part is shown in the technical report. Money in
the cover's currency; rates are fractions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class LoadParameters:
    expense_ratio: float = 0.20
    uncertainty_multiplier: float = 0.67
    capital_cost_rate: float = 0.06
    capital_quantile: float = 0.99
    min_rate_on_line: float = 0.01

    def __post_init__(self) -> None:
        if not (0 <= self.expense_ratio < 1):
            raise ValueError("expense_ratio must be in [0, 1)")
        if self.uncertainty_multiplier < 0 or self.capital_cost_rate < 0 or self.min_rate_on_line < 0:
            raise ValueError("loads must be >= 0")
        if self.capital_quantile not in (0.99, 0.995):
            raise ValueError("capital_quantile must be 0.99 or 0.995 (the quantiles the engine reports)")


@dataclass(frozen=True, slots=True)
class PremiumBreakdown:
    """The parts of a gross premium (money); ``method`` names the rule that set it."""

    adjusted_expected_loss: float
    uncertainty_load: float
    capital: float  # PML - adjusted EL, the capital the cover ties up
    capital_load: float
    technical_premium: float
    expenses: float
    minimum_premium: float
    gross_premium: float
    floored: bool  # the minimum rate on line set the premium
    method: str


def risk_loaded_premium(
    adjusted_el: float, parameter_sd: float, pml: float, limit: float, params: LoadParameters
) -> PremiumBreakdown:
    """The gross premium of one cover and its parts (module docstring)."""
    uncertainty = params.uncertainty_multiplier * parameter_sd
    capital = max(0.0, pml - adjusted_el)
    capital_load = params.capital_cost_rate * capital
    technical = adjusted_el + uncertainty + capital_load
    loaded = technical / (1.0 - params.expense_ratio)
    minimum = params.min_rate_on_line * limit
    gross = max(loaded, minimum)
    return PremiumBreakdown(
        adjusted_expected_loss=adjusted_el,
        uncertainty_load=uncertainty,
        capital=capital,
        capital_load=capital_load,
        technical_premium=technical,
        expenses=gross - technical,
        minimum_premium=minimum,
        gross_premium=gross,
        floored=minimum > loaded,
        method=(
            f"risk load: EL + {params.uncertainty_multiplier:g} sigma_param + "
            f"{params.capital_cost_rate:g} (VaR{params.capital_quantile * 100:g} - EL), "
            f"/ (1 - {params.expense_ratio:g}); minimum {params.min_rate_on_line:.2%} of the limit"
        ),
    )


def package_premium(
    adjusted_el: Sequence[float],
    uncertainty: Sequence[float],
    capital: Sequence[float],
    total_sum_insured: float,
    params: LoadParameters,
    measure: str,
) -> tuple[PremiumBreakdown, list[PremiumBreakdown]]:
    """The gross premium of a package of covers and each cover's part of it (money).

    Per cover i: its adjusted expected loss, its contribution to the uncertainty load and its
    Euler contribution to the package's capital (``capital[i]``, which may be negative for a
    cover that pays least in the package's worst years); ``capital_cost_rate`` on it; then
    expenses. The package's figures are the sums, so the covers' parts add up to the package's.
    The minimum rate on line applies to the package's total sum insured; when it sets the
    premium, each cover's gross is scaled up with its technical premium (``floored``).
    ``measure`` names the capital measure for the method line (e.g. "TVaR99")."""
    n = len(adjusted_el)
    if not (n == len(uncertainty) == len(capital)) or n == 0:
        raise ValueError("one adjusted EL, uncertainty load and capital per cover")
    loads = [params.capital_cost_rate * c for c in capital]
    technical = [a + u + c for a, u, c in zip(adjusted_el, uncertainty, loads)]
    loaded = sum(technical) / (1.0 - params.expense_ratio)
    minimum = params.min_rate_on_line * total_sum_insured
    gross = max(loaded, minimum)
    if loaded > 0:
        grosses = [t / (1.0 - params.expense_ratio) * (gross / loaded) for t in technical]
    else:  # nothing to load: the minimum, spread evenly
        grosses = [gross / n] * n
    method = (
        f"package: EL (capped, adjusted) + {params.uncertainty_multiplier:g} sigma_param + "
        f"{params.capital_cost_rate:g} ({measure} - EL) of the package, each Euler-allocated to its covers, "
        f"/ (1 - {params.expense_ratio:g}); minimum {params.min_rate_on_line:.2%} of the total sum insured"
    )
    floored = minimum > loaded

    def breakdown(a, u, c, load, t, g, m) -> PremiumBreakdown:
        return PremiumBreakdown(
            adjusted_expected_loss=a,
            uncertainty_load=u,
            capital=c,
            capital_load=load,
            technical_premium=t,
            expenses=g - t,
            minimum_premium=m,
            gross_premium=g,
            floored=floored,
            method=method,
        )

    parts = [
        breakdown(a, u, c, load, t, g, 0.0)
        for a, u, c, load, t, g in zip(adjusted_el, uncertainty, capital, loads, technical, grosses)
    ]
    total = breakdown(
        sum(adjusted_el), sum(uncertainty), sum(capital), sum(loads), sum(technical), gross, minimum
    )
    return total, parts


def loss_ratio_premium(el: float, expected_loss_ratio: float) -> PremiumBreakdown:
    """An actuary's override: gross = EL / ELR (no separate loads)."""
    gross = el / expected_loss_ratio
    return PremiumBreakdown(
        adjusted_expected_loss=el,
        uncertainty_load=0.0,
        capital=0.0,
        capital_load=0.0,
        technical_premium=el,
        expenses=gross - el,
        minimum_premium=0.0,
        gross_premium=gross,
        floored=False,
        method=f"expected loss ratio override: EL / {expected_loss_ratio:g}",
    )
