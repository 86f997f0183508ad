"""A package: the covers a quote sells, in line items, priced as one whichever surface sells
it (docs/pricing-model.md, "Premium of a package"). Pure: no I/O.

- A line item holds covers of one risk period with one unit limit, `quantity = S / unit
  limit` units of each, and pays at most its sum insured S (`line_item_payout`). A package's
  line items share one S (the tenant quote's `sumInsuredForLineItem`, the fast quote's
  `sumInsured`): its price is then S times its price per unit of S, so one priced package
  serves every sum insured.
- `package_key` names a package's content: its covers (coverage, pricing version, terms and
  signed-off risk premium, as frozen in the quote) grouped in line items, in a canonical
  order (line items by period and coverage ids, covers by coverage id), with the engine's
  model version, paths, seed and load parameters. The same key is the same price.
- `PackagePrice` is the engine's answer per unit of S: each cover's gross premium and risk
  premium as fractions of its line item's S, and the report's figures (money per unit of S).
- `apply_package_price` writes it into a quote draft: each cover's `gross_premium_pct` and
  `risk_premium_pct` become its part of the package's, each line item's premium is
  `round(Σ covers' rates × S)` in minor units and the quote's totals are exact sums of the
  line items' (the same rule on both surfaces, so their totals agree to the paisa).
"""

from __future__ import annotations

import hashlib
import uuid
from decimal import ROUND_HALF_EVEN, Decimal

import msgspec

from models.domain.quotes import CoverSnapshot, LineItemDraft, QuoteDraft, QuoteError

# The seed of every package's joint pricing: a package's figures are reproducible, and a
# tenant quote and a fast quote of the same covers are the same simulation.
PACKAGE_SEED = 20261125
# Digits of a cover's rate in a package (a fraction of S): exact to 1e-12 of S.
RATE = Decimal("1e-12")
# The basis's own version: a change to how a package is grouped, keyed or allocated.
PACKAGE_BASIS = "package-2"  # package-2: the band holds every driver (cell scale, trend, mapping)


class PackageCoverPrice(msgspec.Struct, frozen=True):
    """One cover's part of a package's price, as fractions of its line item's sum insured."""

    coverage_id: uuid.UUID
    gross_premium_pct: Decimal
    risk_premium_pct: Decimal  # its adjusted expected loss with the line item's cap


class PackagePrice(msgspec.Struct, frozen=True):
    """A package priced per unit of sum insured (module docstring). `report`: the figures
    of the package report (docs/internal-quotes.md, `pricingReport`), money per unit of S as
    numbers; `activities/packages.py` scales them."""

    key: str
    model_version: str
    covers: list[PackageCoverPrice]
    report: dict


def rate(value: float) -> Decimal:
    """A float fraction as the exact decimal stored with a package (to 1e-12)."""
    return Decimal(repr(float(value))).quantize(RATE, rounding=ROUND_HALF_EVEN)


def canonical_lines(items: list[LineItemDraft]) -> list[list[CoverSnapshot]]:
    """The package's line items as lists of covers in canonical order (module docstring);
    refuses a package the per-unit price does not describe (QuoteError)."""
    if not items:
        raise QuoteError("a package needs at least one line item")
    sums = {i.sum_insured_minor for i in items}
    if len(sums) != 1:
        raise QuoteError("the line items of a package share one sum insured")
    lines = []
    for item in items:
        if not item.covers:
            raise QuoteError("a line item needs at least one cover")
        if len({c.limit_minor for c in item.covers}) != 1:
            raise QuoteError("the covers of a line item share one unit limit")
        lines.append(sorted(item.covers, key=lambda c: str(c.coverage_id)))
    return sorted(lines, key=lambda covers: (covers[0].start, covers[0].end, [str(c.coverage_id) for c in covers]))


def package_key(
    lines: list[list[CoverSnapshot]], *, simulations: int, seed: int, model_version: str, loads: dict[str, str]
) -> str:
    """The package's content hash (sha256, hex): module docstring. `loads`: the risk load's
    parameters (name → decimal string)."""
    content = {
        "basis": PACKAGE_BASIS,
        "lines": [[_cover_content(c) for c in covers] for covers in lines],
        "simulations": int(simulations),
        "seed": int(seed),
        "modelVersion": model_version,
        "loads": dict(sorted(loads.items())),
    }
    return hashlib.sha256(msgspec.json.encode(content, order="sorted")).hexdigest()


def _cover_content(cover: CoverSnapshot) -> dict:
    # Everything the price depends on: the terms, the pricing version and the signed-off risk
    # premium; not the gross premium (what the package sets).
    out = msgspec.to_builtins(cover)
    out.pop("gross_premium_pct", None)
    return out


def _round(value: Decimal) -> int:
    return int(value.quantize(Decimal(1), rounding=ROUND_HALF_EVEN))


def priced_line_items(items: list[LineItemDraft], price: PackagePrice) -> list[LineItemDraft]:
    """The line items with the package's prices: each cover's rates, each line item's premium
    `round(Σ covers' gross rates × S)` in minor units."""
    by_cover = {c.coverage_id: c for c in price.covers}
    out = []
    for item in items:
        covers = []
        for c in item.covers:
            part = by_cover.get(c.coverage_id)
            if part is None:
                raise QuoteError(f"the package price has no part for coverage {c.coverage_id}")
            covers.append(
                msgspec.structs.replace(c, gross_premium_pct=part.gross_premium_pct, risk_premium_pct=part.risk_premium_pct)
            )
        premium = _round(sum((c.gross_premium_pct for c in covers), Decimal(0)) * item.sum_insured_minor)
        out.append(msgspec.structs.replace(item, covers=covers, premium_minor=premium))
    return out


def package_risk_premium_minor(items: list[LineItemDraft]) -> int:
    """The quote's risk premium: its covers' adjusted expected losses (rates × S), rounded once."""
    return _round(sum((c.risk_premium_pct * i.sum_insured_minor for i in items for c in i.covers), Decimal(0)))


def apply_package_price(draft: QuoteDraft, price: PackagePrice) -> QuoteDraft:
    """The draft with the package's prices (module docstring)."""
    items = priced_line_items(draft.line_items, price)
    book = price.report.get("bookCapital")
    return msgspec.structs.replace(
        draft,
        line_items=items,
        gross_premium_minor=sum(i.premium_minor for i in items),
        risk_premium_minor=package_risk_premium_minor(items),
        total_sum_insured_minor=sum(i.total_sum_insured_minor for i in items),
        # what the price rests on beyond the package: its capital from the book (which book, what share)
        pricing_report=draft.pricing_report if book is None else {"bookCapital": book},
    )
