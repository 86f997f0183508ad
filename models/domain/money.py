"""Exact money: integer minor units inside (tables, workflow payloads), `Money` (Decimal amount
and ISO 4217 currency) at the edges. The number of minor units comes from the currency."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

import msgspec

# ISO 4217 minor units for the currencies the service quotes in.
MINOR_UNITS: dict[str, int] = {
    "INR": 2,
    "USD": 2,
    "EUR": 2,
    "GBP": 2,
    "CHF": 2,
    "SGD": 2,
    "AED": 2,
    "JPY": 0,
    "KWD": 3,
}

# Largest amount accepted anywhere (major units): beyond any single cover's sum insured, and
# small enough that float rendering at the edge stays exact to the minor unit.
MAX_AMOUNT = Decimal("1000000000000")


CURRENCY_RE = re.compile(r"^[A-Z]{3}$")


class MoneyError(ValueError):
    pass


def minor_units(currency: str) -> int:
    try:
        return MINOR_UNITS[currency]
    except KeyError:
        raise MoneyError(f"unsupported currency {currency!r}; supported: {', '.join(sorted(MINOR_UNITS))}") from None


def check_amount(amount: Decimal, currency: str) -> None:
    """Refuse NaN, infinities, negatives, absurd sizes and more decimals than the currency has."""
    if not amount.is_finite():
        raise MoneyError("amount must be a finite number")
    if amount < 0:
        raise MoneyError("amount must not be negative")
    if amount > MAX_AMOUNT:
        raise MoneyError(f"amount must not exceed {MAX_AMOUNT}")
    exponent = amount.normalize().as_tuple().exponent
    if isinstance(exponent, int) and -exponent > minor_units(currency):
        raise MoneyError(f"amount has more decimals than {currency} allows ({minor_units(currency)})")


def to_minor(amount: Decimal, currency: str) -> int:
    """Major units (exact Decimal) → integer minor units; raises if not representable."""
    check_amount(amount, currency)
    try:
        return int(amount.scaleb(minor_units(currency)).to_integral_exact())
    except InvalidOperation as exc:  # pragma: no cover - check_amount covers the cases
        raise MoneyError(str(exc)) from exc


def from_minor(minor: int, currency: str) -> Decimal:
    return Decimal(minor).scaleb(-minor_units(currency))


class Money(msgspec.Struct, frozen=True):
    """An exact amount (major units, at most the currency's decimals) in an ISO 4217 currency;
    the one money type of the domain and of every surface (`{"amount": "12.50", "currency": "INR"}`
    on the wire)."""

    amount: Decimal
    currency: str

    def __post_init__(self) -> None:
        if not CURRENCY_RE.match(self.currency):
            raise ValueError("currency must be a three-letter ISO 4217 code")
        try:
            minor_units(self.currency)
            check_amount(self.amount, self.currency)
        except MoneyError as exc:
            raise ValueError(str(exc)) from None

    @classmethod
    def of_minor(cls, minor: int, currency: str) -> "Money":
        """From integer minor units (paise for INR)."""
        return cls(amount=from_minor(minor, currency), currency=currency)

    @property
    def minor(self) -> int:
        """In integer minor units."""
        return to_minor(self.amount, self.currency)


def allocate_minor(total_minor: int, weights: list[Decimal]) -> list[int]:
    """`total_minor` split in proportion to `weights` (exact amounts), in whole minor units that
    add up to it exactly: each share rounded down, the units left over to the largest
    remainders (the first on ties). A line item's premium is rounded once; its covers' parts
    of it must add up to it in every document (they were each rounded: a column that did not
    add up to its total by a paisa or two)."""
    if not weights:
        return []
    whole = sum(weights, Decimal(0))
    if whole <= 0:
        even = [total_minor // len(weights)] * len(weights)
        for i in range(total_minor - sum(even)):
            even[i] += 1
        return even
    exact = [Decimal(total_minor) * w / whole for w in weights]
    shares = [int(e) for e in exact]  # floor: the weights and the total are not negative
    order = sorted(range(len(weights)), key=lambda i: (-(exact[i] - shares[i]), i))
    for i in order[: total_minor - sum(shares)]:
        shares[i] += 1
    return shares
