"""The in-force book in the engine's form (activities/pricing/portfolio.py): per monitoring
target its site model and line items, each line item's premium split over its covers. Read by
the portfolio run (activities/portfolio.py) and by a quote's capital from the book
(activities/book_capital.py)."""

from __future__ import annotations

from decimal import Decimal

from activities.site_models import site_model
from models.db import portfolio as portfolio_db


def split_minor(total: int, weights: list[Decimal]) -> list[int]:
    """`total` split pro rata to `weights` in whole minor units, adding up to it exactly
    (largest remainder; equal parts when every weight is zero)."""
    if not weights:
        return []
    s = sum(weights)
    if s <= 0:
        weights, s = [Decimal(1)] * len(weights), Decimal(len(weights))
    exact = [Decimal(total) * w / s for w in weights]
    parts = [int(e) for e in exact]
    order = sorted(range(len(weights)), key=lambda i: (-(exact[i] - parts[i]), i))
    for i in order[: total - sum(parts)]:
        parts[i] += 1
    return parts


def book_targets(book: portfolio_db.BookRows, model_version: str | None = None):
    """The engine's form of the book: per target its site model and line items."""
    from activities.pricing.portfolio import BookLineItem, BookTarget
    from activities.pricing.terms import CoverTerms

    made: dict[int, tuple] = {}  # id(snapshots) -> (snapshots, CoverTerms tuple): shared snapshots give shared terms
    splits: dict[tuple, tuple[int, ...]] = {}

    def line_item(row: portfolio_db.BookLine) -> BookLineItem:
        kept = made.get(id(row.covers))
        if kept is None or kept[0] is not row.covers:
            kept = made[id(row.covers)] = (
                row.covers, tuple(CoverTerms.of(c.terms, cover_id=str(c.coverage_id)) for c in row.covers))
        split_key = (id(row.covers), row.premium_minor)
        split = splits.get(split_key)
        if split is None:
            split = splits[split_key] = tuple(split_minor(row.premium_minor, [c.gross_premium_pct for c in row.covers]))
        return BookLineItem(
            policy_id=str(row.policy_id), covers=kept[1], quantity=row.quantity, cap_minor=row.sum_insured_minor,
            premium_minor=row.premium_minor, period_start=row.period_start, cover_premium_minor=split,
        )

    return [
        BookTarget(target_id, site_model(book.sites[target_id], model_version), tuple(line_item(r) for r in rows))
        for target_id, rows in book.items.items()
    ]
