"""Activities of a fast quote's job (internal surface): move its state, price its covers
jointly, render its quote document, record the result. Each is idempotent: state moves are
conditional on where the quote may come from, the document's file id follows from the quote,
and the completion only applies to a quote still in its job.

The pricing activity marks the quote `running` when it starts (so `running` means the pricing
has begun, not merely that it is scheduled), then prices the quote's package (activities/
packages.py: read from the package-price cache, or simulated, heartbeating its progress),
takes its capital from the book as a tenant quote's (activities/book_capital.py) and
writes each cover's part of the package's premium into its line items. It
is a sync activity the pricing worker runs in its process pool, like a coverage's
`simulate_coverage`: the Monte Carlo uses the pool's processes and the activity slots they
own, never a thread of the worker's main process (issue 25, finding 5). Its database work
(the status move, the quote's covers, the cache, the site, the line items) goes through `models.db.core.run_sync`.
A worker that dies mid-run loses the attempt, and the retry on another worker starts over
from the same inputs and seed (the result is a deterministic function of them).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import uuid
from decimal import Decimal

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.document_inputs import snapshot_facts
from activities.book_capital import against_book
from activities.packages import priced_or_cached, scaled_report
from activities.pricing_runs import _Progress
from models.clock import utcnow
from models.db import quotes as quotes_db
from models.db.core import run_sync
from models.db.files import file_id_for, file_meta, store_file
from models.domain.file_access import Readers
from models.db.tables import BusinessPartner, MonitoringTarget
from models.domain.lifecycle import last_acceptance_day
from models.domain.money import allocate_minor, from_minor
from models.domain.packages import package_risk_premium_minor, priced_line_items
from models.domain.quotes import LineItemDraft, QuoteError
from models.domain.statuses import QuoteStatus
from models.settings import load_settings
from models.temporal.lifecycle import TransitionOutcome
from models.temporal.quotes import (
    FastQuoteCompletion,
    FastQuoteDocumentInput,
    FastQuoteJob,
    FastQuotePricing,
    FastQuoteStatusInput,
    PackagePricingInput,
)

PDF = "application/pdf"


@activity.defn
async def set_fast_quote_status(command: FastQuoteStatusInput) -> TransitionOutcome:
    return await quotes_db.set_job_status(command)


@activity.defn
async def complete_fast_quote(command: FastQuoteCompletion) -> TransitionOutcome:
    return await quotes_db.complete_fast_quote(command)


@activity.defn
def price_fast_quote(job: FastQuoteJob) -> FastQuotePricing:
    """Mark the quote running, then price its package (activities/packages.py: from the
    package-price cache, else simulated in the pricing pool's process that runs this
    activity) and write each cover's part of the package's premium into its line items."""
    items = run_sync(lambda: _prepare(job))
    progress = _Progress()
    progress.stage("calibrating")
    request = PackagePricingInput(
        monitoring_target_id=job.monitoring_target_id, line_items=items, simulations=job.simulations, seed=job.seed
    )
    try:
        price = against_book(priced_or_cached(request, progress), job.monitoring_target_id, items)
        priced = priced_line_items(items, price)
    except QuoteError as err:
        raise ApplicationError(str(err), type="NotAPackage", non_retryable=True) from None
    run_sync(lambda: quotes_db.set_line_item_prices(job.tenant_id, job.quote_id, priced))
    currency = items[0].currency
    gross = sum(i.premium_minor for i in priced)
    risk = package_risk_premium_minor(priced)
    return FastQuotePricing(
        gross_premium_minor=gross,
        risk_premium_minor=risk,
        report=_report(price.report, priced, currency, gross),
    )


async def _prepare(job: FastQuoteJob) -> list[LineItemDraft]:
    """Move the quote to running; its line items (covers frozen at quote time)."""
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
    if moved.status != QuoteStatus.RUNNING:  # rejected before its pricing began: nothing to price
        raise ApplicationError(f"the quote is {moved.status.lower()}", type="QuoteLeftItsJob", non_retryable=True)
    items = quotes_db.line_item_drafts(await quotes_db.line_item_rows(job.tenant_id, quote_id=job.quote_id))
    if not any(item.covers for item in items):
        raise ApplicationError("the quote has no covers", type="NoCovers", non_retryable=True)
    return items


def _report(package: dict, items: list[LineItemDraft], currency: str, gross_minor: int) -> dict:
    """The quote's pricing as stored and shown (docs/internal-quotes.md): the package's
    figures for the quote's sum insured, its covers in the quote's line-item order, and each
    line item's premium. The gross premium is what the quote charges: the sum of the line
    items' premiums, each rounded to the paisa (expenses take the rounding)."""
    sum_insured = from_minor(items[0].sum_insured_minor, currency)
    r = scaled_report(package, sum_insured)
    charged = from_minor(gross_minor, currency)
    r["premium"]["expenses"] = str(charged - Decimal(r["premium"]["technicalPremium"]))
    r["premium"]["grossPremium"] = str(charged)
    by_id = {c["coverageId"]: c for c in r["covers"]}
    r["covers"] = [
        {**by_id[str(c.coverage_id)], "lineItem": position}
        for position, item in enumerate(items)
        for c in item.covers
    ]
    r["lineItems"] = [
        {
            "lineItemId": str(item.id),
            "riskPeriodStart": item.start.isoformat(),
            "riskPeriodEnd": item.end.isoformat(),
            "sumInsured": str(from_minor(item.sum_insured_minor, currency)),
            "premium": str(from_minor(item.premium_minor, currency)),
        }
        for item in items
    ]
    return {"currency": currency, **r}


@activity.defn
async def render_fast_quote_document(request: FastQuoteDocumentInput) -> uuid.UUID:
    """The quote document (reports: three pages) of a priced fast quote, stored once."""
    from reports import render_quote_document

    file_id = file_id_for("quote-document", request.quote_id)
    if await file_meta(file_id) is None:
        quote = await quotes_db.quote_row(request.tenant_id, request.quote_id)
        if quote is None:
            raise ApplicationError("the quote does not exist", type="QuoteMissing", non_retryable=True)
        if quote.status == QuoteStatus.REJECTED:  # rejected while it was priced: no document
            raise ApplicationError("the quote is rejected", type="QuoteLeftItsJob", non_retryable=True)
        items = await quotes_db.line_item_rows(request.tenant_id, quote_id=request.quote_id)
        target = await MonitoringTarget.select().where(MonitoringTarget.id == quote.monitoring_target_id).first()
        partner = await BusinessPartner.select().where(
            (BusinessPartner.id == quote.customer_id) & (BusinessPartner.tenant_id == quote.tenant_id)
        ).first()
        data = _document_input(quote, items, target, partner, request.pricing, load_settings().risk_carrier, file_id)
        pdf = await asyncio.to_thread(render_quote_document, data)
        await store_file(file_id, Readers.owner(request.tenant_id), "quote-document", f"quote-{request.quote_id}.pdf", PDF, pdf)
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
        sum_insured = from_minor(item.total_sum_insured_minor, currency)
        # each cover's part of its line item's premium (rounded once), so the parts add up to it
        parts = allocate_minor(item.premium_minor, [c.gross_premium_pct * sum_insured for c in item.covers])
        for c, part in zip(item.covers, parts):
            covers.append(
                QuoteCover(
                    cover=snapshot_facts(c, target, risk_carrier),
                    quantity=Decimal(item.quantity),
                    # the line item's: its covers pay at most this together
                    sum_insured=sum_insured,
                    # its part of the package's premium (written by the pricing)
                    premium=from_minor(part, currency),
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
        valid_until=last_acceptance_day(quote.valid_until, quote.risk_period_from),
        local_timezone="Asia/Kolkata",
        external_ref=quote.external_ref,
        state="completed",
    )
