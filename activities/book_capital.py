"""A quote's capital from the book (docs/portfolio.md, "Capital from the book").

A package priced alone carries the capital of its own tail, TVaR99(T) - E[T]
(activities/pricing/quote_pricing.py). The risk carrier holds capital for its whole book,
so what a new quote costs it is its share of the *book's* tail: the Euler (co-TVaR)
contribution of the quote Q to the book B + Q,

    C_book = E[Q | B + Q in its 1 % tail] - E[Q]          (QuoteCapital.capital)

computed on the paths of the latest whole-book portfolio run: the other targets' losses as
that run stored them (models/db/portfolio.py `portfolio_paths`), the book's line items at
the quote's target (as in force today) simulated with the quote's on the same paths (the
model's dependence within a target). On those paths the quote's stand-alone capital C_alone
is also known, and the book's **capital share** is

    f = C_book / C_alone, kept within [0, 1]

A quote that pays in the book's bad years (same target, same months) keeps f near 1; one
that pays in other years (another target) gets f near 0. The package's capital (its Euler
allocation to covers, from the package's own pricing) is multiplied by f and the premium
loaded again (`package_premium`: the same expenses and minimum rate on line). f is kept at
most 1 (TVaR is subadditive: C_book <= C_alone up to Monte Carlo noise) and at least 0 (a
quote that hedges the book is not paid for it: the capital load never goes negative).

Both surfaces call `against_book` on the per-unit package price with the quote's line items
(the tenant quote's workflow by the `price_against_book` activity, the fast quote's pricing
activity in process), so one package sold on the same day against the same book has one
price. Without a whole-book run that kept its paths (none yet, or an empty book) f = 1 and
the price is the package's own, unchanged.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import msgspec
import numpy as np
from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.book import book_targets
from activities.packages import premium_figures
from activities.pricing_runs import load_parameters
from activities.site_models import site_model
from models.clock import utcnow
from models.db import catalogue as catalogue_db
from models.db import portfolio as portfolio_db
from models.db.core import run_sync
from models.domain.money import from_minor
from models.domain.packages import PackageCoverPrice, PackagePrice, rate
from models.domain.quotes import LineItemDraft
from models.temporal.quotes import BookPricingInput

CAPITAL_BASIS = "book-1"
METHOD = (
    "capital: the package's own (Euler-allocated) capital x the book's capital share f = C_book / C_alone, "
    "C_book = E[Q | book + Q in its tail] - E[Q] on the paths of the latest whole-book portfolio run, "
    "f kept within [0, 1]"
)


@dataclass(frozen=True)
class _Losses:
    version: int
    total: np.ndarray  # the book's loss per path, every target
    by_target: dict[str, np.ndarray]


_kept: list[_Losses] = []  # the latest version's losses, one per process: a quote reads them again and again
# The book's line items at a target (engine form) by (book hash, target), and prices given, by
# their key: a quote of a book unchanged since reads neither again (the hash is one select).
KEPT = 64
_here: dict[tuple[str, str], tuple] = {}
_priced: dict[str, PackagePrice] = {}


def _remember(store: dict, key, value):
    if len(store) >= KEPT:
        store.pop(next(iter(store)))
    store[key] = value
    return value


def _book_at(target_id: str, today, currency: str, book_hash: str) -> tuple:
    """The whole book's line items in force at the target (engine form), kept per book hash."""
    kept = _here.get((book_hash, target_id))
    if kept is not None:
        return kept
    rows = run_sync(lambda: portfolio_db.read_book(None, today, currency, target_id=target_id))
    here = book_targets(rows)
    return _remember(_here, (book_hash, target_id), here[0].line_items if here else ())


def _losses(book: portfolio_db.StoredBook) -> _Losses:
    if _kept and _kept[0].version == book.version:
        return _kept[0]
    raw = run_sync(lambda: portfolio_db.stored_losses(book.version))
    by_target = {t: np.frombuffer(b, dtype="<f4").astype(np.float64) for t, b in sorted(raw.items())}
    total = np.zeros(int(book.simulation["paths"]))
    for losses in by_target.values():
        total += losses
    kept = _Losses(book.version, total, by_target)
    _kept[:] = [kept]
    return kept


def _quote_items(items: list[LineItemDraft]):
    from activities.pricing.portfolio import BookLineItem
    from activities.pricing.terms import CoverTerms

    return tuple(
        BookLineItem(
            policy_id="quote", covers=tuple(CoverTerms.of(c.terms, cover_id=str(c.coverage_id)) for c in item.covers),
            quantity=item.quantity, cap_minor=item.sum_insured_minor, premium_minor=0, period_start=item.start,
        )
        for item in items if item.covers
    )


def _key(price: PackagePrice, items: list[LineItemDraft], book: portfolio_db.StoredBook, book_hash: str) -> str:
    """What the price against the book depends on: the package (its key), the sum insured,
    the stored run (version) and the book in force today (its hash: the target's line items)."""
    content = f"{price.key}|{CAPITAL_BASIS}|S:{items[0].sum_insured_minor}|book:{book.version}:{book_hash}"
    return hashlib.sha256(content.encode()).hexdigest()


def against_book(price: PackagePrice, target_id: str, items: list[LineItemDraft], params=None) -> PackagePrice:
    """The package's per-unit price with its capital from the book (module docstring). Sync:
    a pricing pool process or a thread, never an event loop."""
    from activities.pricing.portfolio import BookTarget, capital_against

    params = params or load_parameters()
    book = run_sync(portfolio_db.stored_book)
    if book is None:
        return _with_report(price, price.covers, price.report, {
            "bookVersion": None, "capitalShare": 1.0,
            "method": "no whole-book portfolio run has kept its paths yet: the package's own capital",
        })
    currency = items[0].currency
    today = utcnow().date()
    book_hash = run_sync(lambda: portfolio_db.book_hash(None, today))
    key = _key(price, items, book, book_hash)
    if key in _priced:
        return _priced[key]
    here = _book_at(target_id, today, currency, book_hash)
    site = run_sync(lambda: catalogue_db.site_of(target_id))
    sim = book.simulation
    losses = _losses(book)
    others = losses.total - losses.by_target[target_id] if target_id in losses.by_target else losses.total
    quote = BookTarget(target_id, site_model(site), _quote_items(items))
    figures = capital_against(
        others, here, quote, level=params.capital_quantile,
        capital_cost_rate=params.capital_cost_rate, currency=currency, n=int(sim["paths"]), seed=int(sim["seed"]),
        method=sim["method"], batches=int(sim["batches"]),
    )
    share = 1.0
    if figures.stand_alone_capital > 0:
        share = min(1.0, max(0.0, figures.capital / figures.stand_alone_capital))
    per_unit = 1.0 / float(from_minor(items[0].sum_insured_minor, currency))  # figures per unit of S
    priced = with_capital_share(price, share, params, {
        "bookVersion": book.version,
        "bookHash": book.book_hash,
        "bookAsOf": book.as_of.isoformat(),
        "bookAtTargetAsOf": today.isoformat(),
        "bookModelVersion": sim.get("modelVersion"),
        "paths": figures.n_paths,
        "seed": int(sim["seed"]),
        "capital": figures.capital * per_unit,
        "capitalStandardError": figures.capital_se * per_unit,
        "standAloneCapital": figures.stand_alone_capital * per_unit,
        "marginalCapital": figures.marginal_capital * per_unit,
    }, key=key)
    if activity.in_activity():
        activity.logger.info("book capital share %.4f at target %s (book v%d)", share, target_id, book.version)
    return _remember(_priced, key, priced)


def with_capital_share(price: PackagePrice, share: float, params, book: dict, key: str) -> PackagePrice:
    """The package's price with its capital times `share` (in [0, 1]) and its premium loaded
    again (`package_premium`, as the engine loads it: the same expenses and minimum rate on
    line); each cover's gross rate is its new part, its risk premium unchanged. The report
    says what was done (`bookCapital`: `book`'s figures, the share, the package's own capital)."""
    from activities.pricing.loading import package_premium

    report = price.report
    covers = report["covers"]
    total, parts = package_premium(
        [c["adjustedExpectedLoss"] for c in covers], [c["uncertaintyLoad"] for c in covers],
        [share * c["capital"] for c in covers], report["totalSumInsured"], params, report["capitalMeasure"],
    )
    new_report = {
        **report,
        "premium": {**premium_figures(total), "method": f"{total.method}; {METHOD}"},
        "lossRatio": round(total.adjusted_expected_loss / total.gross_premium, 6) if total.gross_premium > 0 else 0.0,
        "covers": [{**c, **premium_figures(p)} for c, p in zip(covers, parts)],
    }
    prices = [
        PackageCoverPrice(coverage_id=c.coverage_id, gross_premium_pct=rate(p.gross_premium),
                          risk_premium_pct=c.risk_premium_pct)
        for c, p in zip(price.covers, parts)
    ]
    return _with_report(price, prices, new_report, {
        **book, "capitalMeasure": report["capitalMeasure"], "capitalShare": round(share, 6),
        "packageCapital": sum(c["capital"] for c in covers), "method": METHOD,
    }, key=key)


def _with_report(price: PackagePrice, covers: list[PackageCoverPrice], report: dict, book: dict,
                 key: str | None = None) -> PackagePrice:
    return msgspec.structs.replace(price, key=key or price.key, covers=covers, report={**report, "bookCapital": book})


@activity.defn
def price_against_book(request: BookPricingInput) -> PackagePrice:
    """The tenant quote's package price with its capital from the book (module docstring)."""
    try:
        return against_book(request.price, request.monitoring_target_id, request.line_items)
    except catalogue_db.UnknownTarget:
        raise ApplicationError(f"monitoring target {request.monitoring_target_id} is not in the pin-code mapping",
                               type="UnknownTarget", non_retryable=True) from None
