"""The price of a package: a quote's covers in line items, priced as one (models/domain/
packages.py), the same for a tenant quote and a fast quote.

- `find_package_price` (a local activity of the quote's workflow: a read) answers the price
  of a package priced before: warm quotes never simulate.
- `price_package` (sync, the pricing pool) prices a package not priced before with the
  engine (activities/pricing/quote_pricing.py: `price_package`, per unit of sum insured) and
  keeps it in the package-price cache; a concurrent pricing of the same content finds it or
  keeps the identical one.
- `package_price_of` is the computation itself (the fast quote's job and bench/ call it).

A package is priced per unit of its line items' sum insured S: line item j is the engine's
line item with ``q = 1 / unit limit`` units of each cover and cap 1, so every money figure
of the result is a fraction of S, and a quote's figures are S times them (`scaled_report`).
The adjusted expected loss of a cover starts from its signed-off catalogue risk premium
(`risk_premium_pct`, a fraction of its unit limit, hence of S), which the engine multiplies by
the share of the cover's expected loss that its line item's cap leaves.
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.pricing_runs import _Progress, load_parameters
from activities.site_models import site_model
from models.db import catalogue as catalogue_db
from models.db import packages as packages_db
from models.db.core import run_sync
from models.domain.packages import (
    PackageCoverPrice,
    PackagePrice,
    canonical_lines,
    package_key,
    rate,
)
from models.domain.quotes import CoverSnapshot, QuoteError
from models.temporal.quotes import PackagePricingInput

LOADS = ("expense_ratio", "uncertainty_multiplier", "capital_cost_rate", "capital_quantile", "min_rate_on_line")
# Money figures of a package report (per unit of S): scaled by S in a quote's report.
_MONEY = {
    "expectedPayout", "expectedPayoutStandardError", "uncappedExpectedPayout", "parameterStandardDeviation",
    "standardDeviation", "var99", "tvar99", "var995", "tvar995", "totalSumInsured", "low", "high",
    "adjustedExpectedLoss", "uncertaintyLoad", "capital", "capitalLoad", "technicalPremium", "expenses",
    "minimumPremium", "grossPremium", "coTvar", "standAloneCapital", "cap",
}


def _key(request: PackagePricingInput, params) -> tuple[list[list[CoverSnapshot]], str]:
    from activities.pricing.version import MODEL_VERSION

    try:
        lines = canonical_lines(request.line_items)
    except QuoteError as err:  # the same line items would be refused again: not retried
        raise ApplicationError(str(err), type="NotAPackage", non_retryable=True) from None
    loads = {name: repr(float(getattr(params, name))) for name in LOADS}
    key = package_key(lines, simulations=request.simulations, seed=request.seed, model_version=MODEL_VERSION, loads=loads)
    return lines, key


@activity.defn
async def find_package_price(request: PackagePricingInput) -> PackagePrice | None:
    """The package's price when it was priced before, else None."""
    _, key = _key(request, load_parameters())
    return await packages_db.package_price(key)


@activity.defn
def price_package(request: PackagePricingInput) -> PackagePrice:
    """The package's price: from the cache, else simulated in this pool process and kept."""
    progress = _Progress()
    progress.stage("calibrating")
    return priced_or_cached(request, progress)


def priced_or_cached(request: PackagePricingInput, progress=None) -> PackagePrice:
    """The cache's price of the package, or its pricing (kept in the cache). Sync: from a pool
    process or a thread, never from an event loop."""
    params = load_parameters()
    lines, key = _key(request, params)
    cached, site = run_sync(lambda: _cached_and_site(key, request.monitoring_target_id))
    if cached is not None:
        return cached
    price = package_price_of(site_model(site), lines, key, request.simulations, request.seed, params, progress)
    run_sync(lambda: packages_db.store_package_price(price))
    return price


async def _cached_and_site(key: str, target_id: str):
    cached = await packages_db.package_price(key)
    if cached is not None:
        return cached, None
    try:
        return None, await catalogue_db.site_of(target_id)
    except catalogue_db.UnknownTarget:
        raise ApplicationError(
            f"monitoring target {target_id} is not in the pin-code mapping", type="UnknownTarget", non_retryable=True
        ) from None


def package_price_of(
    model, lines: list[list[CoverSnapshot]], key: str, simulations: int, seed: int, params, progress=None
) -> PackagePrice:
    """Price the package (canonical line items) per unit of sum insured with the engine."""
    from activities.pricing import CoverTerms
    from activities.pricing.quote_pricing import PackageLineItem, price_package as engine_price

    items = [
        PackageLineItem(
            covers=tuple(CoverTerms.of(c.terms, cover_id=str(c.coverage_id)) for c in covers),
            quantity=1.0 / float(covers[0].terms.limit),
            cap=1.0,
        )
        for covers in lines
    ]
    adjusted = [float(c.risk_premium_pct) for covers in lines for c in covers]
    priced = engine_price(model, items, simulations, seed, params, adjusted, progress=progress)
    snapshots = [c for covers in lines for c in covers]
    parts = [
        PackageCoverPrice(
            coverage_id=c.coverage_id,
            gross_premium_pct=rate(f.premium.gross_premium),
            risk_premium_pct=rate(f.premium.adjusted_expected_loss),
        )
        for c, f in zip(snapshots, priced.covers)
    ]
    return PackagePrice(key=key, model_version=priced.model_version, covers=parts, report=_report(priced, snapshots))


def premium_figures(p) -> dict:
    """A premium breakdown as the report shows it (money per unit of S)."""
    return {
        "adjustedExpectedLoss": p.adjusted_expected_loss,
        "uncertaintyLoad": p.uncertainty_load,
        "capital": p.capital,
        "capitalLoad": p.capital_load,
        "technicalPremium": p.technical_premium,
        "expenses": p.expenses,
        "minimumPremium": p.minimum_premium,
        "grossPremium": p.gross_premium,
    }


def _report(p, snapshots: list[CoverSnapshot]) -> dict:
    """The package's figures per unit of S (money as numbers; docs/internal-quotes.md)."""
    t = p.total
    return {
        "totalSumInsured": p.total_sum_insured,
        "expectedPayout": t.expected_loss,
        "expectedPayoutStandardError": t.expected_loss_se,
        "uncappedExpectedPayout": p.uncapped_expected_loss,
        "expectedPayoutBand": {"low": p.band_low, "high": p.band_high, "method": p.band_method},
        "parameterStandardDeviation": p.parameter_sd,
        "standardDeviation": t.std_dev,
        "probabilityOfAnyPayout": round(t.prob_attach, 6),
        "probabilityOfExhaustion": round(t.prob_exhaust, 6),
        "var99": t.var_99,
        "tvar99": t.tvar_99,
        "var995": t.var_995,
        "tvar995": t.tvar_995,
        "capitalMeasure": f"TVaR{p.capital_level * 100:g}",
        "premium": {**premium_figures(p.premium), "method": p.premium.method},
        "lossRatio": round(p.loss_ratio, 6),
        "covers": [
            {
                "coverageId": str(c.coverage_id),
                "indexCode": c.index_code,
                "riskPeriodStart": c.start.isoformat(),
                "riskPeriodEnd": c.end.isoformat(),
                "expectedPayout": f.expected_loss,
                "uncappedExpectedPayout": f.uncapped_expected_loss,
                "probabilityOfPayout": round(f.probability_of_attachment, 6),
                "var99": f.var_99,
                "coTvar": f.co_tvar,
                "standAloneCapital": f.stand_alone_capital,
                **premium_figures(f.premium),
            }
            for c, f in zip(snapshots, p.covers)
        ],
        "lossDistribution": {
            "binEdges": list(p.loss.bin_edges),
            "counts": list(p.loss.counts),
            "zeroCount": p.loss.zero_count,
            "exceedance": [list(x) for x in p.loss.exceedance],
        },
        "simulations": p.n_paths,
        "seed": p.seed,
        "method": p.method,
        "modelVersion": p.model_version,
        "dataHash": p.data_hash,
    }


def _cents(value: float, scale: Decimal) -> str:
    return str((Decimal(repr(float(value))) * scale).quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN))


def scaled_report(report: dict, sum_insured: Decimal) -> dict:
    """A package report for a quote of sum insured S per line item: money figures × S, as
    decimal strings rounded to the cent; the loss distribution's amounts × S as numbers."""

    def scale(value: Any, name: str | None) -> Any:
        if isinstance(value, dict):
            return {k: scale(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [scale(v, None) for v in value]
        if name in _MONEY and isinstance(value, (int, float)):
            return _cents(value, sum_insured)
        return value

    out = scale({k: v for k, v in report.items() if k != "lossDistribution"}, None)
    loss = report["lossDistribution"]
    s = float(sum_insured)
    out["lossDistribution"] = {
        "binEdges": [e * s for e in loss["binEdges"]],
        "counts": list(loss["counts"]),
        "zeroCount": loss["zeroCount"],
        "exceedance": [[x * s, p] for x, p in loss["exceedance"]],
    }
    return out
