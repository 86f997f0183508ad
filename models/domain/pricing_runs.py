"""What a pricing run found and the seed it draws with: a pricing activity returns the
outcome in a Temporal payload (models/temporal/pricing.py re-exports both under the names its
contract always had) and the stores record it, so they live in the domain, where both may
import them."""

from __future__ import annotations

import uuid
from decimal import Decimal
from typing import Any

import msgspec


class PricingOutcome(msgspec.Struct, frozen=True):
    """What a simulation found; fractions are of the limit, money in major units."""

    model_version: str
    data_hash: str
    simulations: int
    method: str
    risk_premium: Decimal
    risk_premium_pct: Decimal
    gross_premium: Decimal
    gross_premium_indication_pct: Decimal
    metrics: dict[str, str]  # models.domain.risk_metrics.RiskMetrics.to_record() (stored as is)
    burn: dict[str, Any]
    report: dict[str, Any]
    seconds: float
    # EL / gross premium of this run (the coverage's expectedLossRatio); None in old histories.
    expected_loss_ratio: Decimal | None = None
    # Why the run is held for an actuary (a burn view above its band, pricing-2026.4 on);
    # None: it may be sold as soon as it is published.
    hold_reason: str | None = None


def coverage_seed(coverage_id: uuid.UUID) -> int:
    """Default seed of a coverage's pricing runs: stable, so a rerun reproduces the numbers."""
    return coverage_id.int % (2**31 - 1)
