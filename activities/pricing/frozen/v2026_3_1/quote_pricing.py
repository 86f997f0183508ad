"""Joint pricing of a quote: every cover on one set of paths, so the total payout carries the
model's dependence (months of one target share the rainfall copula; excess and deficit of a
month are mutually exclusive), not a sum of separately priced covers.

For covers ``i`` with unit payouts ``X_i`` per path and ``q`` units of each, the quote's total
payout is ``T = q * sum_i X_i`` (money). Reported: E[T] with its Monte Carlo standard error
(batch means), sd(T), P(T > 0), VaR and TVaR at 99 % and 99.5 % (definitions in
:mod:`.montecarlo`); the parameter band of E[T] from the bootstrap replicates, which are
shared by the covers of a target so that the per-replicate expected losses add up
(:mod:`.uncertainty`); and the premium by the risk load of :mod:`.loading` on the total:
``adjusted EL + k sigma_param + c (VaR - EL)``, grossed up for expenses, at least the minimum
rate on the total sum insured. ``adjusted EL`` is the sum of the covers' signed-off risk
premiums (their catalogue pricing, credibility-blended where burn and model disagreed) when
given, else the simulated E[T]. Diversification shows as the capital load of the total being
less than the sum of the covers' own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .loading import LoadParameters, PremiumBreakdown, risk_loaded_premium
from .montecarlo import price_sample, simulate_payouts
from .results import TailMetrics, money
from .site import SiteModel
from .summaries import LossSummary, loss_summary
from .terms import CoverTerms
from .uncertainty import parameter_bands


@dataclass(frozen=True, slots=True)
class QuoteCoverFigures:
    cover_id: str
    index_code: str
    expected_loss: float  # money, q units
    probability_of_attachment: float
    var_99: float  # money, this cover alone


@dataclass(frozen=True, slots=True)
class QuotePricing:
    total: TailMetrics  # of T, money
    total_sum_insured: float  # q * sum of the covers' limits
    band_low: float  # 5 % / 95 % of the replicate E[T]
    band_high: float
    parameter_sd: float
    band_method: str
    premium: PremiumBreakdown
    covers: tuple[QuoteCoverFigures, ...]
    loss: LossSummary  # histogram and exceedance curve of T
    n_paths: int
    seed: int
    method: str
    model_version: str
    data_hash: str


def price_quote(
    model: SiteModel,
    covers: list[CoverTerms],
    quantity: float,
    n: int,
    seed: int,
    params: LoadParameters,
    adjusted_expected_loss: float | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> QuotePricing:
    """Price ``covers`` (one unit each) jointly for ``quantity`` units of each (module doc).

    ``progress(paths_done, paths_total)``: called as the simulation goes and after each
    later stage (an activity's heartbeats)."""
    if quantity <= 0:
        raise ValueError("quantity must be > 0")
    sample = simulate_payouts(model, covers, n, seed, progress=progress)
    priced = price_sample(model, covers, sample, seed)
    if progress is not None:
        progress(sample.n, sample.n)
    agg = priced.aggregate
    q = float(quantity)
    total = TailMetrics(**{k: _scaled(getattr(agg, k), k, q) for k in agg.__dataclass_fields__})
    bands = parameter_bands(model, covers, seed)
    if progress is not None:
        progress(sample.n, sample.n)
    replicate_totals = q * np.sum([b.replicates for b in bands], axis=0)
    el = float(total.expected_loss)
    sd = float(replicate_totals.std(ddof=1))
    total_si = q * float(sum(c.limit for c in covers))
    pml = float(total.var_99 if params.capital_quantile == 0.99 else total.var_995)
    adjusted = el if adjusted_expected_loss is None else float(adjusted_expected_loss)
    premium = risk_loaded_premium(adjusted, sd, pml, total_si, params)
    totals = q * sum((sample.dense(i) for i in range(len(covers))), np.zeros(sample.n))
    return QuotePricing(
        total=total,
        total_sum_insured=total_si,
        band_low=float(np.quantile(replicate_totals, 0.05)),
        band_high=float(np.quantile(replicate_totals, 0.95)),
        parameter_sd=sd,
        band_method=bands[0].method,
        premium=premium,
        covers=tuple(
            QuoteCoverFigures(
                cover_id=c.cover_id,
                index_code=c.index_code,
                expected_loss=q * float(c.risk_premium),
                probability_of_attachment=c.metrics.prob_attach,
                var_99=q * float(c.metrics.var_99),
            )
            for c in priced.covers
        ),
        loss=loss_summary(totals, total_si),
        n_paths=sample.n,
        seed=int(seed),
        method=sample.method,
        model_version=model.model_version,
        data_hash=model.data_hash,
    )


def _scaled(value, name: str, q: float):
    """A TailMetrics field for q units: money fields scale, rates and probabilities do not."""
    if name in ("relative_se", "variance_reduction", "prob_attach", "prob_exhaust"):
        return value
    return money(float(value) * q)
