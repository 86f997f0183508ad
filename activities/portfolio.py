"""Compute the book's risk (docs/portfolio.md): read the in-force book, simulate it
(activities/pricing/portfolio.py), store the result as the scope's next version.

One activity on the pricing queue: it runs in the pricing pool's process (CPU), reading and
writing the database through `run_sync`, so only the result's summary crosses Temporal (a book
of 10,000 policies would not fit in a payload)."""

from __future__ import annotations

import datetime as dt
import time
from decimal import ROUND_HALF_EVEN, Decimal

import msgspec
import numpy as np
from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.book import book_targets
from models.db import portfolio as portfolio_db
from models.db import reserves as reserves_db
from models.db.core import run_sync
from models.domain.money import Money, from_minor, minor_units
from models.domain.reserves import reserve_rows
from models.temporal.portfolio import PortfolioComputed, PortfolioJob
from models.wire import portfolio as wire

DEPENDENCE = (
    "covers of one target on shared paths as the pricing model correlates them (rainfall months by its "
    "copula, excess and deficit of a month exclusive, wind and heat independent of rain and across months); "
    "targets independent of one another (the model has no cross-target dependence; the as-if years carry "
    "the record's spatial correlation)"
)
RESERVE_METHOD = (
    "covers whose period ended before asOf and whose settlement is not FINAL (WAITING, INITIAL, FLAGGED, "
    "DISPUTED): the payout at the un-reduced index of the coverage's latest settlement snapshot, else the "
    "cover's priced expected loss for its units, less what was paid, never below 0, within the line item's cap"
)
OCCURRENCE = "the largest loss of one monitoring target in one risk month (its line items starting in that month) on a path"


def _camel(body: dict) -> dict:
    """The stored JSON: the view's field names (camelCase), values as on the wire."""
    out = {}
    for key, value in body.items():
        head, *rest = key.split("_")
        out[head + "".join(w.title() for w in rest)] = msgspec.to_builtins(value)
    return out


def _money(value: float, currency: str) -> Money:
    """A Monte Carlo figure (float, major units) as exact money: half-even to the minor unit."""
    q = Decimal(1).scaleb(-minor_units(currency))
    return Money(max(Decimal(repr(float(value))).quantize(q, rounding=ROUND_HALF_EVEN), Decimal(0)), currency)


def _exact(minor: int, currency: str) -> Money:
    return Money(from_minor(minor, currency), currency)


def result_view(risk, book: portfolio_db.BookRows) -> dict:
    """The stored figures of a run (the PortfolioView's, without its status and version)."""
    c = book.currency

    def total(t, **key):
        return wire.PortfolioTotal(
            insured=_exact(t.insured_minor, c), premium=_exact(t.premium_minor, c),
            expected_loss=_money(t.expected_loss, c), standard_error=_money(t.expected_loss_se, c),
            line_items=t.line_items, **key,
        )

    def points(curve):
        return [wire.ExceedancePoint(
            return_period=p.return_period, loss=_money(p.loss, c), tvar=_money(p.tvar, c),
            standard_error=_money(p.standard_error, c), tvar_standard_error=_money(p.tvar_standard_error, c),
        ) for p in curve]

    body = dict(
        currency=c,
        policies=book.policies,
        line_items=sum(len(v) for v in book.items.values()),
        insured=_exact(risk.insured_minor, c),
        premium=_exact(risk.premium_minor, c),
        expected_loss=_money(risk.expected_loss, c),
        expected_loss_standard_error=_money(risk.expected_loss_se, c),
        by_target=[total(t, monitoring_target_id=t.key) for t in risk.by_target],
        by_month=[total(t, month=t.key) for t in risk.by_month],
        by_peril=[total(t, peril=t.key) for t in risk.by_peril],
        aep=points(risk.aep),
        oep=points(risk.oep),
        as_if_years=[wire.AsIfYear(
            year=y.year, loss=_exact(y.loss_minor, c),
            by_target=[wire.TargetLoss(monitoring_target_id=t, loss=_exact(m, c)) for t, m in y.by_target_minor],
        ) for y in risk.as_if_years],
        as_if_record=wire.AsIfRecord(years=risk.as_if_year_count, first_year=risk.as_if_first_year,
                                     last_year=risk.as_if_last_year, unrecorded_line_items=risk.unrecorded_line_items),
        simulation=wire.PortfolioSimulation(
            paths=risk.n_paths, batches=risk.batches, seed=risk.seed, method=risk.method,
            model_version=risk.model_version, dependence=DEPENDENCE, occurrence=OCCURRENCE,
        ),
        other_currency_policies=book.other_currency_policies,
    )
    return _camel(body)


def reserve_view(items: list, as_of: dt.date, currency: str) -> wire.ClaimsReserve:
    """The claims reserve of the scope's ended covers (models/domain/reserves.py), exact."""
    rows = reserve_rows(items, as_of)
    return wire.ClaimsReserve(
        owed=_exact(sum(r.owed_minor for r in rows), currency),
        paid=_exact(sum(r.paid_minor for r in rows), currency),
        rows=[wire.ReserveRow(data_set=r.data_set, month=r.month, owed=_exact(r.owed_minor, currency),
                              paid=_exact(r.paid_minor, currency), open_covers=r.open_covers,
                              by_state=dict(sorted(r.by_state.items()))) for r in rows],
        method=RESERVE_METHOD,
    )


def empty_view(book: portfolio_db.BookRows) -> dict:
    """A book with nothing in force: zeros, no curve points, no years."""
    c = book.currency
    zero = Money(Decimal(0), c)
    return _camel(dict(
        currency=c, policies=book.policies, line_items=0, insured=zero, premium=zero, expected_loss=zero,
        expected_loss_standard_error=zero, by_target=[], by_month=[], by_peril=[], aep=[], oep=[], as_if_years=[],
        as_if_record=wire.AsIfRecord(years=0, first_year=None, last_year=None, unrecorded_line_items=0),
        simulation=wire.PortfolioSimulation(paths=0, batches=0, seed=0, method="", model_version="",
                                            dependence=DEPENDENCE, occurrence=OCCURRENCE),
        other_currency_policies=book.other_currency_policies,
    ))


def compute(job: PortfolioJob) -> tuple[portfolio_db.BookRows, dict]:
    """Read and simulate the book (no write): the bench and the activity."""
    book, view, _ = compute_with_paths(job)
    return book, view


def compute_with_paths(job: PortfolioJob) -> tuple[portfolio_db.BookRows, dict, dict[str, bytes] | None]:
    """:func:`compute`, and for the whole book its loss per path by target (float32 bytes,
    little-endian: what a quote's capital is computed against; docs/portfolio.md, "Capital
    from the book"); {} for an empty whole book, None for a tenant's."""
    from activities.pricing.portfolio import PORTFOLIO_PATHS, simulate_book

    whole = job.tenant_id is None
    as_of = dt.date.fromisoformat(job.as_of)
    book = run_sync(lambda: portfolio_db.read_book(job.tenant_id, as_of, job.currency))
    held = run_sync(lambda: reserves_db.held_items(job.tenant_id, as_of, job.currency))
    reserve = {"reserve": msgspec.to_builtins(reserve_view(held, as_of, book.currency))}
    if not book.items:
        return book, {**empty_view(book), **reserve}, {} if whole else None
    targets = book_targets(book)
    risk = simulate_book(targets, book.currency, n=job.paths or PORTFOLIO_PATHS, seed=job.seed,
                         keep_target_paths=whole)
    paths = None
    if whole:
        paths = {t: np.asarray(v, dtype="<f4").tobytes() for t, v in risk.target_paths.items()}
    return book, {**result_view(risk, book), **reserve}, paths


@activity.defn
def compute_portfolio(job: PortfolioJob) -> PortfolioComputed:
    """Read the scope's book, simulate it, store the result as its next version. A retry of
    the same run stores nothing twice (models/db/portfolio.py store_result)."""
    started = time.perf_counter()
    try:
        book, view, paths = compute_with_paths(job)
    except ValueError as err:  # a book the engine cannot simulate: retrying would not help
        raise ApplicationError(str(err), type="PortfolioNotSimulable", non_retryable=True) from None
    scope = portfolio_db.scope_of(job.tenant_id)
    version, _ = run_sync(lambda: portfolio_db.store_result(scope, book.book_hash, book.as_of, view, job.workflow_id,
                                                            paths, view["simulation"]["paths"]))
    seconds = time.perf_counter() - started
    activity.logger.info("portfolio %s v%d: %d policies, %d line items, %.1f s", scope, version, book.policies,
                         view["lineItems"], seconds)
    return PortfolioComputed(scope=scope, version=version, book_hash=book.book_hash, policies=book.policies,
                             line_items=view["lineItems"], seconds=round(seconds, 3))
