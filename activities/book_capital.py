"""A quote's capital from the book (docs/portfolio.md, "In the price of a quote").

A package priced alone carries the capital of its own tail, TVaR99(T) - E[T]
(activities/pricing/quote_pricing.py). The risk carrier holds capital for its whole book,
so what a new quote costs it is its share of the *book's* tail: the Euler (co-TVaR)
contribution of the quote Q to the book B + Q,

    C_book = E[Q | B + Q in its 1 % tail] - E[Q]          (QuoteCapital.capital)

computed on the paths of the latest whole-book portfolio run: the other targets' losses as
that run stored them (models/db/portfolio.py `portfolio_paths`), the book's line items at
the quote's target (as in force today) simulated with the quote's on the same paths (the
model's dependence within a target; targets independent, as the model has them). On those
paths the quote's stand-alone capital C_alone is also known; the **simulated share**

    f_sim = C_book / C_alone, kept within [0, 1]

is near 1 for a quote that pays in the book's bad years (same target, same months) and near
0 for one that pays in other years (another target). The model has no dependence between
targets while the record does (one monsoon at every target: the as-if years), so the share
charged is at least the actuary's floor (`PRICING_BOOK_CAPITAL_FLOOR`, 0.25):

    f = max(floor, f_sim), rounded to 6 decimals (the report's figure is the one charged)

The package's capital (its Euler allocation to covers, from the package's own pricing) is
multiplied by f and the premium loaded again (`package_premium`: the same expenses and
minimum rate on line).

Both surfaces call `against_book` on the per-unit package price with the quote's line items
(the tenant quote's workflow by the `price_against_book` activity, the fast quote's pricing
activity in process), so one package sold on the same day against the same book has one
price. The package's own capital (f = 1) is charged, and the report says why, when no
whole-book run has kept its paths (none yet, or an empty book), when the latest run is of
another model version, or when its stored paths cannot be read whole.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal

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
from models.settings import load_settings
from models.temporal.quotes import BookPricingInput

CAPITAL_BASIS = "book-2"  # book-2: targets' rows decoupled, the floor, f rounded before pricing
SHARE_DIGITS = 6
METHOD = (
    "capital: the package's own (Euler-allocated) capital x the book's capital share f = max(floor, f_sim), "
    "f_sim = C_book / C_alone within [0, 1], C_book = E[Q | book + Q in its tail] - E[Q] on the paths of the "
    "latest whole-book portfolio run"
)


def capital_floor() -> float:
    """The least capital share a quote is charged (`PRICING_BOOK_CAPITAL_FLOOR`, in [0, 1])."""
    floor = float(load_settings().pricing_book_capital_floor)
    if not 0.0 <= floor <= 1.0:
        raise ApplicationError(f"PRICING_BOOK_CAPITAL_FLOOR must be within [0, 1], not {floor}",
                               type="BadSettings", non_retryable=True)
    return floor


@dataclass(frozen=True)
class _Losses:
    version: int
    by_target: dict[str, np.ndarray]  # the run's loss per path at each target (money, major units)


# A process keeps: the latest run's losses (a quote reads them again and again), the book's
# line items at a target by (book hash, target), and the last prices given, by their key. A
# quote of a book unchanged since reads neither again (the hash is one select).
KEPT = 64
_kept: list[_Losses] = []
_here: dict[tuple[str, str], tuple] = {}
_priced: dict[str, PackagePrice] = {}


def _remember(store: dict, key, value):
    if len(store) >= KEPT:
        store.pop(next(iter(store)))
    store[key] = value
    return value


def _losses(book: portfolio_db.StoredBook) -> _Losses | None:
    """The stored run's losses per path, or None when they are not that run's whole set (a
    newer run replaced them between the two reads, or a row is not `paths` long)."""
    if _kept and _kept[0].version == book.version:
        return _kept[0]
    raw = run_sync(lambda: portfolio_db.stored_losses(book.version))
    paths = int(book.simulation["paths"])
    if tuple(sorted(raw)) != book.targets or any(len(b) != 4 * paths for b in raw.values()):
        return None
    kept = _Losses(book.version, {t: np.frombuffer(b, dtype="<f4").astype(np.float64) for t, b in sorted(raw.items())})
    _kept[:] = [kept]
    return kept


def _book_at(target_id: str, today, currency: str, book_hash: str) -> tuple[str, tuple]:
    """The whole book's line items in force at the target (engine form) and the hash of the
    book they were read from (the read's own: a bind between the two reads is not mixed in)."""
    kept = _here.get((book_hash, target_id))
    if kept is not None:
        return book_hash, kept
    rows = run_sync(lambda: portfolio_db.read_book(None, today, currency, target_id=target_id))
    here = book_targets(rows)
    return rows.book_hash, _remember(_here, (rows.book_hash, target_id), here[0].line_items if here else ())


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


def _key(price: PackagePrice, items: list[LineItemDraft], version: int, book_hash: str, floor: float) -> str:
    """What the price against the book depends on: the package (its key), the sum insured,
    the stored run (version), the book in force today (its hash) and the floor."""
    content = (f"{price.key}|{CAPITAL_BASIS}|S:{items[0].sum_insured_minor}|book:{version}:{book_hash}"
               f"|floor:{floor!r}")
    return hashlib.sha256(content.encode()).hexdigest()


def _own(price: PackagePrice, why: str, version: int | None = None) -> PackagePrice:
    """The package's own capital (f = 1), and why."""
    return _with_report(price, price.covers, price.report, {"bookVersion": version, "capitalShare": 1.0, "method": why})


def against_book(price: PackagePrice, target_id: str, items: list[LineItemDraft], params=None,
                 floor: float | None = None) -> PackagePrice:
    """The package's per-unit price with its capital from the book (module docstring). Sync:
    a pricing pool process or a thread, never an event loop."""
    from activities.pricing.portfolio import BookTarget, capital_against
    from activities.pricing.version import MODEL_VERSION

    params = params or load_parameters()
    floor = capital_floor() if floor is None else floor
    losses = book = None
    for _ in range(2):  # a run that stores its paths between our two reads: read again
        book = run_sync(portfolio_db.stored_book)
        if book is None:
            return _own(price, "no whole-book portfolio run has kept its paths yet: the package's own capital")
        if book.simulation.get("modelVersion") != MODEL_VERSION:
            return _own(price, f"the latest whole-book run is of {book.simulation.get('modelVersion')}, not "
                               f"{MODEL_VERSION}: the package's own capital until the next run", book.version)
        losses = _losses(book)
        if losses is not None:
            break
    if losses is None:
        return _own(price, "the whole book's stored paths could not be read whole: the package's own capital",
                    book.version)
    sim = book.simulation
    currency = items[0].currency
    today = utcnow().date()
    asked = run_sync(lambda: portfolio_db.book_hash(None, today))
    cached = _priced.get(_key(price, items, book.version, asked, floor))
    if cached is not None:
        return cached
    book_hash, here = _book_at(target_id, today, currency, asked)
    key = _key(price, items, book.version, book_hash, floor)
    others = [v for t, v in losses.by_target.items() if t != target_id]
    site = run_sync(lambda: catalogue_db.site_of(target_id))
    quote = BookTarget(target_id, site_model(site), _quote_items(items))
    try:
        figures = capital_against(
            np.sum(others, axis=0) if others else None, here, quote, level=params.capital_quantile,
            capital_cost_rate=params.capital_cost_rate, currency=currency, n=int(sim["paths"]),
            seed=int(sim["seed"]), method=sim["method"], batches=int(sim["batches"]),
        )
    except ValueError as err:  # paths the quote's simulation cannot line up with
        return _own(price, f"the whole book's paths do not fit this quote ({err}): the package's own capital",
                    book.version)
    simulated = 1.0
    if figures.stand_alone_capital > 0:
        simulated = min(1.0, max(0.0, figures.capital / figures.stand_alone_capital))
    share = round(max(floor, simulated), SHARE_DIGITS)  # the figure charged is the one reported
    sum_insured = from_minor(items[0].sum_insured_minor, currency)
    package_capital = sum(c["capital"] for c in price.report["covers"]) * float(sum_insured)  # per unit x S
    priced = with_capital_share(price, share, params, {
        "bookVersion": book.version,
        "bookAsOf": book.as_of.isoformat(),
        "bookAtTargetAsOf": today.isoformat(),
        "bookModelVersion": sim.get("modelVersion"),
        "paths": figures.n_paths,
        "seed": int(sim["seed"]),
        "simulatedShare": round(simulated, SHARE_DIGITS),
        "simulatedShareStandardError": round(figures.share_se, SHARE_DIGITS),
        "floor": floor,
        # money at the quote's sum insured (decimal strings; names a package report does not scale)
        "packageCapital": _cents(package_capital),
        "eulerCapital": _cents(figures.capital),
        "eulerCapitalStandardError": _cents(figures.capital_se),
        "quoteCapitalAlone": _cents(figures.stand_alone_capital),
    }, key=key)
    if activity.in_activity():
        activity.logger.info("book capital share %.4f (simulated %.4f) at target %s (book v%d)", share, simulated,
                             target_id, book.version)
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
        **book, "capitalMeasure": report["capitalMeasure"], "capitalShare": share, "method": METHOD,
    }, key=key)


def _cents(value: float) -> str:
    """A Monte Carlo money figure as a decimal string, half-even to the cent."""
    return str(Decimal(repr(float(value))).quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN))


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

