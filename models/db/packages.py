"""The package-price cache (models/domain/packages.py): one row per package content, written
once by whichever pricing gets there first, read by every quote of that package."""

from __future__ import annotations

import msgspec

from models.clock import utcnow
from models.db.tables import PackagePriceRow
from models.domain.packages import PackagePrice

_decode = msgspec.json.Decoder(PackagePrice).decode


async def package_price(key: str) -> PackagePrice | None:
    row = await PackagePriceRow.select(PackagePriceRow.price).where(PackagePriceRow.key == key).first()
    return None if row is None else _decode(row["price"])


async def store_package_price(price: PackagePrice) -> None:
    """Keep a priced package (a concurrent pricing of the same content may have kept its
    identical price first: then this one is dropped)."""
    await PackagePriceRow.insert(
        PackagePriceRow(
            key=price.key,
            model_version=price.model_version,
            price=msgspec.json.encode(price).decode(),
            created_at=utcnow(),
        )
    ).on_conflict(action="DO NOTHING")
