"""The book's risk as the risk carrier reads it (`GET /internal/portfolio`, docs/portfolio.md):
in-force totals, exceedance curves with TVaR and standard errors, the as-if historical years.

Money: exact amounts in the book's currency; the Monte Carlo's figures (expected loss, curve
points, their standard errors) rounded half-even to the minor unit, the in-force totals and
the as-if years exact (integer minor units summed)."""

from __future__ import annotations

import datetime as dt
import uuid

from models.wire.common import CamelStruct, Money


class PortfolioTotal(CamelStruct):
    """In-force totals of one slice of the book. `insured`: the most its line items can pay
    (their caps; by peril, the most that peril's covers can pay, so perils may add up to more
    than the book); `premium`: gross; `expectedLoss` simulated, with its standard error."""

    insured: Money
    premium: Money
    expected_loss: Money
    standard_error: Money
    line_items: int
    monitoring_target_id: str | None = None
    month: str | None = None  # YYYY-MM, the line items' risk-period start
    peril: str | None = None  # RAINFALL | WIND | TEMPERATURE


class ExceedancePoint(CamelStruct):
    """The loss exceeded once in `returnPeriod` years (VaR at 1 - 1/T) and the mean loss in
    those years (TVaR), each with its Monte Carlo standard error (batch means)."""

    return_period: int
    loss: Money
    tvar: Money
    standard_error: Money
    tvar_standard_error: Money


class TargetLoss(CamelStruct):
    monitoring_target_id: str
    loss: Money


class AsIfYear(CamelStruct):
    """A year of the record applied to today's book: what it would pay, and each target's part
    (paying targets, largest first). Exact: the payout rule on the record's values."""

    year: int
    loss: Money
    by_target: list[TargetLoss]


class AsIfRecord(CamelStruct):
    years: int  # years of the record applied (every one; the worst ten are listed)
    first_year: int | None
    last_year: int | None
    unrecorded_line_items: int  # line items with a cover the record has no values for (heat, hourly rain): paid in part in the years


class PortfolioSimulation(CamelStruct):
    paths: int
    batches: int
    seed: int
    method: str
    model_version: str
    dependence: str  # how covers, perils and targets depend on one another in the simulation
    occurrence: str  # what the OEP counts as one occurrence


class ReserveRow(CamelStruct):
    """The claims reserve of one data set and month (the covers' period start): `owed`, the
    expected payout still owed on its ended covers not settled FINAL; `paid`, what its ended
    covers have been paid so far (FINAL ones too); `openCovers` by settlement state."""

    data_set: str
    month: str  # YYYY-MM
    owed: Money
    paid: Money
    open_covers: int
    by_state: dict[str, int]  # WAITING | INITIAL | FLAGGED | DISPUTED -> open covers


class ClaimsReserve(CamelStruct):
    """Owed but not yet paid (issue 34; docs/portfolio.md): incurred but not settled FINAL, as
    of the result's `asOf`, beside what was paid on the same data sets and months. Exact sums
    of minor units."""

    owed: Money
    paid: Money
    rows: list[ReserveRow]
    method: str


class PortfolioView(CamelStruct):
    """The last computed risk of the book (or of one tenant's book)."""

    status: str  # CURRENT: of the book as it is; STALE: the book changed and a new run is computing
    tenant_id: uuid.UUID | None  # None: the whole book
    version: int  # counts the results of this book (whole book, or the tenant's)
    book_hash: str
    as_of: dt.date  # line items whose period ends before it are not in the book
    computed_at: dt.datetime
    workflow_id: str
    currency: str
    policies: int
    line_items: int
    insured: Money
    premium: Money
    expected_loss: Money
    expected_loss_standard_error: Money
    by_target: list[PortfolioTotal]
    by_month: list[PortfolioTotal]
    by_peril: list[PortfolioTotal]
    aep: list[ExceedancePoint]
    oep: list[ExceedancePoint]
    as_if_years: list[AsIfYear]
    as_if_record: AsIfRecord
    simulation: PortfolioSimulation
    other_currency_policies: int = 0  # in force but not in the book's currency: not in these figures
    reserve: ClaimsReserve | None = None  # None: a result stored before the reserve (issue 34)
    computing_workflow_id: str | None = None  # STALE: the run computing the book as it is


class PortfolioComputing(CamelStruct):
    """202: no result of this book yet; ask again after Retry-After seconds."""

    status: str  # COMPUTING
    workflow_id: str
    book_hash: str


class PortfolioReportRendering(CamelStruct):
    """202 of `GET /internal/portfolio/report.pdf`: the report of this result is being rendered;
    ask again after Retry-After seconds."""

    status: str  # RENDERING
    document: str  # portfolio-risk-report
    tenant_id: uuid.UUID | None  # None: the whole book
    version: int  # the result the report is of
    detail: str
