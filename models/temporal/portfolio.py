"""The Temporal contract of the book's risk (docs/portfolio.md): the portfolio workflow's and
its activity's inputs and outputs (fields only added, with defaults)."""

from __future__ import annotations

import msgspec

PORTFOLIO_WORKFLOW = "PortfolioWorkflow"
PORTFOLIO_SEED = 20261126  # one seed for every run: the same book gives the same figures
# The whole book computed every day at 00:30 UTC (a new day is a new book: line items leave as
# their periods end), so a quote's capital from the book is at most a day old
# (activities/book_capital.py); operations' GET /internal/portfolio refreshes it at once.
PORTFOLIO_SCHEDULE_ID = "portfolio-daily"


def portfolio_workflow_id(scope: str, book_hash: str) -> str:
    """One run per book: `portfolio:<all | tenant id>:<first 16 hex of the book hash>`. A
    request for a book being computed joins its run; a changed book starts another."""
    return f"portfolio:{scope}:{book_hash[:16]}"


class PortfolioInput(msgspec.Struct, frozen=True):
    tenant_id: str | None = None  # None: the whole book
    as_of: str = ""  # YYYY-MM-DD; "": the day the run starts (workflow time, UTC)
    paths: int = 0  # 0: the engine's portfolio default (activities/pricing/portfolio.py)
    currency: str = "INR"  # the book's (CATALOGUE_CURRENCY); policies in another are counted, not simulated


class PortfolioJob(msgspec.Struct, frozen=True):
    tenant_id: str | None
    as_of: str  # YYYY-MM-DD
    workflow_id: str  # recorded with the result
    paths: int = 0
    seed: int = PORTFOLIO_SEED
    currency: str = "INR"


class PortfolioComputed(msgspec.Struct, frozen=True):
    scope: str  # "all" | the tenant's id
    version: int
    book_hash: str  # of the book the run read
    policies: int
    line_items: int
    seconds: float  # the computation's wall time (read, simulate, as-if years)


# The portfolio risk report (docs/documents.md): the PDF of one stored result, rendered once
# on the documents queue when first asked for (`GET /internal/portfolio/report.pdf`).
PORTFOLIO_REPORT_WORKFLOW = "PortfolioReportWorkflow"


def portfolio_report_workflow_id(scope: str, version: int) -> str:
    """One render per result: `portfolio-report:<all | tenant id>:<version>`."""
    return f"portfolio-report:{scope}:{version}"


class PortfolioReportRequest(msgspec.Struct, frozen=True):
    scope: str  # "all" | the tenant's id
    version: int  # the scope's stored result
    owner_tenant_id: str  # whose document it is: the tenant's, or (the whole book) the platform tenant's
