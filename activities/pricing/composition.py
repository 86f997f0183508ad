"""From a cover's simulated price to its decision: burn check, adjusted EL, premium, hold.

The pure composition a pricing run makes of the engine's pieces (the pricing activity,
``activities.pricing_runs``, wraps it; each kept model version answers it its own way):

* the burn analysis on the model's basis and on the three views of the record, against the
  parameter band with every driver (:mod:`.burn`, :mod:`.uncertainty`);
* the adjusted expected loss: the model's EL, or its credibility blend with the model-basis
  burn when the two disagree (``DISAGREES``);
* the premium: the risk load on the band's sigma (:mod:`.loading`), or an actuary's
  expected-loss-ratio override;
* the hold: a view above the band (``HELD``) keeps the cover off sale until an actuary
  publishes its price (docs/catalogue.md).

``burn_check``: ``HELD`` | ``DISAGREES`` | ``AGREES`` | ``NO_HISTORY`` (a held cover that also
disagrees is ``HELD``: the hold is what decides whether it is sold). Money in the cover's
currency.
"""

from __future__ import annotations

from dataclasses import dataclass

from .burn import BurnAnalysis, burn_analysis
from .loading import LoadParameters, PremiumBreakdown, loss_ratio_premium, risk_loaded_premium
from .results import CoverPricing
from .site import SiteModel
from .terms import CoverTerms
from .uncertainty import ParameterBand


@dataclass(frozen=True, slots=True)
class CoverDecision:
    burn: BurnAnalysis
    premium: PremiumBreakdown
    burn_check: str
    held: bool
    hold_reason: str


def decide(
    model: SiteModel,
    cover: CoverTerms,
    priced: CoverPricing,
    band: ParameterBand,
    params: LoadParameters,
    expected_loss_ratio: float | None = None,
) -> CoverDecision:
    """The cover's burn check, premium and hold (module docstring); ``expected_loss_ratio``:
    an actuary's override (gross = EL / ELR), None for the risk load."""
    # The model-basis burn shares the model's scale factor and level: its fit check weighs the
    # sampling driver alone (as 2026.3.1 did); the views are held against the whole band.
    burn = burn_analysis(model, cover, priced, parameter_sd=band.sampling_sd, band_high=band.high)
    m = priced.metrics
    adjusted = float(burn.credibility_expected_loss if burn.review else m.expected_loss)
    if expected_loss_ratio is not None:
        premium = loss_ratio_premium(adjusted, expected_loss_ratio)
    else:
        pml = float(m.var_99 if params.capital_quantile == 0.99 else m.var_995)
        premium = risk_loaded_premium(adjusted, band.sd, pml, float(cover.limit), params)
    if burn.z_score is None and not burn.views:
        check = "NO_HISTORY"
    elif burn.held:
        check = "HELD"
    else:
        check = "DISAGREES" if burn.review else "AGREES"
    return CoverDecision(burn=burn, premium=premium, burn_check=check, held=burn.held, hold_reason=burn.hold_reason)
