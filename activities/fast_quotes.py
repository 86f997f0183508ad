"""Activities of a fast quote's job (internal surface): move its state, price its covers
jointly, render its quote document, record the result. Each is idempotent: state moves are
conditional on where the quote may come from, the document's file id follows from the quote,
and the completion only applies to a quote still in its job.

The pricing activity marks the quote `running` when it starts (so `running` means the pricing
has begun, not merely that it is scheduled), then simulates, heartbeating its progress. It
is a sync activity the pricing worker runs in its process pool, like a coverage's
`simulate_coverage`: the Monte Carlo uses the pool's processes and the activity slots they
own, never a thread of the worker's main process (issue 25, finding 5). Its database work
(the status move, the quote's covers, the site) goes through `models.db.core.run_sync`.
A worker that dies mid-run loses the attempt, and the retry on another worker starts over
from the same inputs and seed (the result is a deterministic function of them).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import uuid
from decimal import Decimal
from typing import Any

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.document_inputs import snapshot_facts
from activities.pricing_runs import _Progress, load_parameters
from activities.site_models import site_model
from models.clock import utcnow
from models.db import catalogue as catalogue_db
from models.db import quotes as quotes_db
from models.db.core import run_sync
from models.db.files import file_id_for, file_meta, store_file
from models.db.tables import BusinessPartner, MonitoringTarget
from models.domain.money import from_minor, to_minor
from models.domain.statuses import QuoteStatus
from models.settings import load_settings
from models.temporal.lifecycle import TransitionOutcome
from models.temporal.quotes import (
    FastQuoteCompletion,
    FastQuoteDocumentInput,
    FastQuoteJob,
    FastQuotePricing,
    FastQuoteStatusInput,
)

PDF = "application/pdf"


@activity.defn
async def set_fast_quote_status(command: FastQuoteStatusInput) -> TransitionOutcome:
    return await quotes_db.set_job_status(command)


@activity.defn
async def complete_fast_quote(command: FastQuoteCompletion) -> TransitionOutcome:
    return await quotes_db.complete_fast_quote(command)


def _money(value: float) -> str:
    """Money as stored in the report: the pricing core's cent rounding, as a decimal string."""
    from activities.pricing.results import money

    return str(money(value))


@activity.defn
def price_fast_quote(job: FastQuoteJob) -> FastQuotePricing:
    """Mark the quote running, then price its covers jointly (activities.pricing.quote_pricing),
    in the pricing pool's process that runs this activity."""
    site, covers, adjusted = run_sync(lambda: _prepare(job))
    currency = covers[0].currency
    progress = _Progress()
    progress.stage("calibrating")
    priced = _price(site, covers, float(Decimal(job.quantity)), job, float(adjusted), progress)
    return FastQuotePricing(
        gross_premium_minor=to_minor(Decimal(_money(priced.premium.gross_premium)), currency),
        risk_premium_minor=to_minor(Decimal(_money(priced.premium.adjusted_expected_loss)), currency),
        report=_report(priced, covers, currency),
    )


async def _prepare(job: FastQuoteJob) -> tuple[Any, list, Decimal]:
    """Move the quote to running; its covers, their site and the covers' signed-off risk
    premium (catalogue pricing) for the quote's units, exact."""
    moved = await quotes_db.set_job_status(
        FastQuoteStatusInput(
            tenant_id=job.tenant_id,
            quote_id=job.quote_id,
            to_status=QuoteStatus.RUNNING,
            from_statuses=[QuoteStatus.QUEUED, QuoteStatus.RUNNING],
            at=utcnow(),
        )
    )
    if moved.status == "MISSING":
        raise ApplicationError("the quote does not exist", type="QuoteMissing", non_retryable=True)
    items = await quotes_db.line_item_rows(job.tenant_id, quote_id=job.quote_id)
    covers = [c for item in items for c in item.covers]
    if not covers:
        raise ApplicationError("the quote has no covers", type="NoCovers", non_retryable=True)
    try:
        site = await catalogue_db.site_of(job.monitoring_target_id)
    except catalogue_db.UnknownTarget:
        raise ApplicationError(
            f"monitoring target {job.monitoring_target_id} is not in the pin-code mapping", type="UnknownTarget",
            non_retryable=True,
        ) from None
    quantity = Decimal(job.quantity)
    currency = covers[0].currency
    adjusted = sum(c.risk_premium_pct * from_minor(c.limit_minor, currency) * quantity for c in covers)
    return site, covers, adjusted


def _price(site, covers, quantity: float, job: FastQuoteJob, adjusted: float, progress=None):
    from activities.pricing import CoverTerms
    from activities.pricing.quote_pricing import price_quote

    terms = [CoverTerms.of(c.terms, cover_id=str(c.coverage_id)) for c in covers]
    return price_quote(
        site_model(site), terms, quantity, job.simulations, job.seed, load_parameters(), adjusted, progress=progress
    )


def _report(p, covers, currency: str) -> dict:
    """The quote's aggregated pricing as stored and shown (docs/internal-quotes.md)."""
    t = p.total
    premium = p.premium
    return {
        "currency": currency,
        "totalSumInsured": _money(p.total_sum_insured),
        "expectedPayout": str(t.expected_loss),
        "expectedPayoutStandardError": str(t.expected_loss_se),
        "expectedPayoutBand": {"low": _money(p.band_low), "high": _money(p.band_high), "method": p.band_method},
        "parameterStandardDeviation": _money(p.parameter_sd),
        "standardDeviation": str(t.std_dev),
        "probabilityOfAnyPayout": round(t.prob_attach, 6),
        "probabilityOfExhaustion": round(t.prob_exhaust, 6),  # P(total = total sum insured)
        "var99": str(t.var_99),
        "tvar99": str(t.tvar_99),
        "var995": str(t.var_995),
        "tvar995": str(t.tvar_995),
        "premium": {
            "adjustedExpectedLoss": _money(premium.adjusted_expected_loss),
            "uncertaintyLoad": _money(premium.uncertainty_load),
            "capital": _money(premium.capital),
            "capitalLoad": _money(premium.capital_load),
            "technicalPremium": _money(premium.technical_premium),
            "expenses": _money(premium.expenses),
            "minimumPremium": _money(premium.minimum_premium),
            "grossPremium": _money(premium.gross_premium),
            "method": premium.method,
        },
        "covers": [
            {
                "coverageId": str(c.coverage_id),
                "indexCode": c.index_code,
                "riskPeriodStart": c.start.isoformat(),
                "riskPeriodEnd": c.end.isoformat(),
                "expectedPayout": _money(f.expected_loss),
                "probabilityOfPayout": round(f.probability_of_attachment, 6),
                "var99": _money(f.var_99),
            }
            for c, f in zip(covers, p.covers)
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


@activity.defn
async def render_fast_quote_document(request: FastQuoteDocumentInput) -> uuid.UUID:
    """The quote document (reports: three pages) of a priced fast quote, stored once."""
    from reports import render_quote_document

    file_id = file_id_for("quote-document", request.quote_id)
    if await file_meta(file_id) is None:
        quote = await quotes_db.quote_row(request.tenant_id, request.quote_id)
        if quote is None:
            raise ApplicationError("the quote does not exist", type="QuoteMissing", non_retryable=True)
        items = await quotes_db.line_item_rows(request.tenant_id, quote_id=request.quote_id)
        target = await MonitoringTarget.select().where(MonitoringTarget.id == quote.monitoring_target_id).first()
        partner = await BusinessPartner.select().where(
            (BusinessPartner.id == quote.customer_id) & (BusinessPartner.tenant_id == quote.tenant_id)
        ).first()
        data = _document_input(quote, items, target, partner, request.pricing, load_settings().risk_carrier, file_id)
        pdf = await asyncio.to_thread(render_quote_document, data)
        await store_file(file_id, request.tenant_id, "quote-document", f"quote-{request.quote_id}.pdf", PDF, pdf)
    return file_id


def _document_input(quote, items, target, partner, pricing: FastQuotePricing, risk_carrier: str, file_id):
    from reports.inputs import (
        AggregatedPricing,
        ExceedancePoint,
        LossDistribution,
        Party,
        QuoteCover,
        QuoteDocumentInput,
        RiskMetrics,
    )

    r = pricing.report
    currency = quote.currency
    gross = from_minor(pricing.gross_premium_minor, currency)
    figures = {c["coverageId"]: c for c in r["covers"]}
    covers = []
    for item in items:
        for c in item.covers:
            covers.append(
                QuoteCover(
                    cover=snapshot_facts(c, target, risk_carrier),
                    quantity=Decimal(item.quantity),
                    sum_insured=from_minor(item.total_sum_insured_minor, currency),
                    premium=from_minor(item.premium_minor, currency),
                    line_item=item.name,
                    expected_loss=Decimal(figures[str(c.coverage_id)]["expectedPayout"]),
                )
            )
    el = Decimal(r["expectedPayout"])
    metrics = RiskMetrics(
        expected_loss=el,
        standard_deviation=Decimal(r["standardDeviation"]),
        standard_error=Decimal(r["expectedPayoutStandardError"]),
        p_attach=float(r["probabilityOfAnyPayout"]),
        p_exhaust=float(r["probabilityOfExhaustion"]),
        var_99=Decimal(r["var99"]),
        tvar_99=Decimal(r["tvar99"]),
        var_995=Decimal(r["var995"]),
        tvar_995=Decimal(r["tvar995"]),
        risk_premium=from_minor(pricing.risk_premium_minor, currency),
        gross_premium=gross,
        expected_loss_ratio=(from_minor(pricing.risk_premium_minor, currency) / gross).quantize(Decimal("0.0001")) if gross else Decimal(0),
        simulations=int(r["simulations"]),
        seed=int(r["seed"]),
        model_version=r["modelVersion"],
        data_hash=r["dataHash"],
        loading_note=r["premium"]["method"],
        premium_parts=tuple(
            (label, Decimal(r["premium"][key]), "")
            for label, key in (
                ("Adjusted expected loss", "adjustedExpectedLoss"),
                ("Uncertainty load", "uncertaintyLoad"),
                ("Capital load", "capitalLoad"),
                ("Expenses", "expenses"),
            )
        ),
        checks=(
            (
                "Parameter band (5-95 %)",
                f"{r['expectedPayoutBand']['low']} - {r['expectedPayoutBand']['high']} {currency}",
                r["expectedPayoutBand"]["method"],
            ),
        ),
    )
    loss = r["lossDistribution"]
    party = Party(
        name=partner["name"] if partner else str(quote.customer_id),
        contact_name=partner and partner["contact_name"],
        email=partner and partner["contact_email"],
        phone=partner and partner["contact_phone"],
        reference=str(quote.customer_id),
    )
    return QuoteDocumentInput(
        quote_id=str(quote.id),
        quote_name=quote.name,
        currency=currency,
        insurer=Party(name=risk_carrier),
        customer=party,
        covers=tuple(covers),
        total_sum_insured=from_minor(quote.total_sum_insured_minor, currency),
        gross_premium=gross,
        pricing=AggregatedPricing(
            metrics=metrics,
            loss_distribution=LossDistribution(
                bin_edges=tuple(loss["binEdges"]),
                counts=tuple(loss["counts"]),
                zero_count=loss["zeroCount"],
                exceedance=tuple(ExceedancePoint(loss=x, probability=p) for x, p in loss["exceedance"]),
            ),
        ),
        issued_at=dt.datetime.now(dt.timezone.utc),
        valid_until=quote.valid_until,
        external_ref=quote.external_ref,
        state="completed",
    )
