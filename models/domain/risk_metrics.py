"""The risk metrics of one pricing run: what the Monte Carlo found for one unit of cover.

One struct from the simulation to the API and the documents. Stored as the pricing run's
`metrics` JSON (camelCase keys, numbers as strings so no float touches them); `to_record` and
`from_record` are the only place that shape is written or read.

Units: money in the cover's currency, major units, per unit of cover (one limit); rates and
probabilities are fractions (0.05 is 5 %), as everywhere in the domain (docs/pricing-model.md).
"""

from __future__ import annotations

from decimal import Decimal

import msgspec


class RiskMetrics(msgspec.Struct, frozen=True, rename="camel"):
    expected_loss: Decimal  # EL: the mean simulated payout
    expected_loss_standard_error: Decimal  # Monte Carlo standard error of EL
    standard_deviation: Decimal  # σ of the simulated payout
    probability_of_attachment: Decimal  # P(payout > 0)
    probability_of_exhaustion: Decimal  # P(payout = limit)
    var99: Decimal  # 99 % quantile of the payout
    tvar99: Decimal  # mean payout at or beyond the 99 % quantile
    var995: Decimal
    tvar995: Decimal
    relative_standard_error: Decimal | None = None  # standard error / EL
    variance_reduction: Decimal | None = None  # (iid standard error / this standard error)²
    method: str = "sobol"  # the sampler ("sobol": scrambled Sobol' batches)
    batches: int = 16  # independently scrambled batches the standard error comes from
    # Parameter uncertainty of EL (bootstrap over the calibration years; None before it existed)
    parameter_standard_deviation: Decimal | None = None
    expected_loss_band_low: Decimal | None = None  # 5th percentile of the bootstrap ELs
    expected_loss_band_high: Decimal | None = None  # 95th percentile
    # Burn against model: z-score and the verdict (AGREES | DISAGREES: held for review | NO_HISTORY)
    burn_z_score: Decimal | None = None
    burn_check: str | None = None
    # The premium's parts (activities/pricing/loading.py)
    adjusted_expected_loss: Decimal | None = None  # EL, or its credibility blend with the burn
    uncertainty_load: Decimal | None = None
    capital: Decimal | None = None  # PML - adjusted EL
    capital_load: Decimal | None = None
    technical_premium: Decimal | None = None
    expenses: Decimal | None = None
    minimum_premium: Decimal | None = None
    premium_method: str | None = None

    def to_record(self) -> dict[str, str]:
        """The stored JSON: camelCase keys, every value a string (exact decimals)."""
        return {key: str(value) for key, value in msgspec.to_builtins(self).items() if value is not None}

    @classmethod
    def from_record(cls, record: dict) -> "RiskMetrics":
        """A stored `metrics` JSON (strings or numbers) back into the struct."""
        return msgspec.convert(record, cls, strict=False)

