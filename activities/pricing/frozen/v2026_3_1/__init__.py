"""Pricing core for parametric weather-index covers: pure numpy/scipy, no I/O but the loader.

Typical use (an activity wraps this)::

    from activities.pricing import (
        load_climate_data, build_site_model, propose_terms, price_covers, burn_analysis,
    )
    climate = load_climate_data(data_dir)              # cached per process and directory
    model = build_site_model(climate, "MUMBAI", "MAHARASHTRA", 18.936, 72.836)
    prop = propose_terms(model, "RAINFALL_MONTHLY_TOTAL", date(2026, 7, 1), date(2026, 7, 31),
                         Decimal("100000"))
    result = price_covers(model, [prop.terms], n=DEFAULT_N, seed=1)   # PortfolioPricing
    burn = burn_analysis(model, prop.terms, result.covers[0])

Every result carries ``n_paths``, ``seed``, ``method``, ``model_version`` (MODEL_VERSION) and
``data_hash`` (sha256 of the calibration files); the same inputs give bit-identical results
on the same platform. Models and formulae: docs/pricing-model.md; payout semantics:
docs/payout-structures.md.
"""

from .burn import BurnAnalysis, BurnYear, burn_analysis
from .climate_data import ClimateData, load_climate_data
from .geography import ClimateSite, climate_site, normalise_name, pincode_site
from .montecarlo import (
    DEFAULT_BATCHES,
    DEFAULT_ELR,
    DEFAULT_METHOD,
    DEFAULT_N,
    PayoutSample,
    price_cover,
    price_covers,
    price_sample,
    simulate_index,
    simulate_payouts,
)
from .payouts import count_payout, linear_payout, payout
from .results import CoverPricing, PortfolioPricing, TailMetrics, as_dict
from .site import SiteModel, build_site_model, historical_index
from .terms import CoverTerms
from .triggers import TermsProposal, propose_terms
from .version import MODEL_VERSION

__all__ = [
    "MODEL_VERSION",
    "DEFAULT_N",
    "DEFAULT_BATCHES",
    "DEFAULT_METHOD",
    "DEFAULT_ELR",
    "ClimateData",
    "load_climate_data",
    "ClimateSite",
    "climate_site",
    "pincode_site",
    "normalise_name",
    "SiteModel",
    "build_site_model",
    "historical_index",
    "simulate_index",
    "simulate_payouts",
    "PayoutSample",
    "CoverTerms",
    "linear_payout",
    "count_payout",
    "payout",
    "TermsProposal",
    "propose_terms",
    "price_cover",
    "price_covers",
    "price_sample",
    "CoverPricing",
    "PortfolioPricing",
    "TailMetrics",
    "as_dict",
    "BurnAnalysis",
    "BurnYear",
    "burn_analysis",
]
