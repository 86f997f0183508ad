"""Documents as PDF: fact sheet, technical pricing report, quote document, policy schedule,
claim report, portfolio risk report.

Pure rendering: input dataclasses in (``reports.inputs``, imported from there), PDF bytes out. No Temporal, no
database, no numpy. The activities that store the files call these functions; see
``docs/documents.md`` for what each document holds and for whom.
"""

from .render import (
    MEDIA_TYPE,
    render_claim_report,
    render_fact_sheet,
    render_policy_schedule,
    render_portfolio_report,
    render_quote_document,
    render_technical_pricing_report,
)

__all__ = [
    "MEDIA_TYPE",
    "render_claim_report",
    "render_fact_sheet",
    "render_policy_schedule",
    "render_portfolio_report",
    "render_quote_document",
    "render_technical_pricing_report",
]
