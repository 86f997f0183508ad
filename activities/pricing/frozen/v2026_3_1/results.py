"""Result types: small frozen dataclasses of str/int/float/Decimal (no numpy types).

Money is ``Decimal`` rounded to cents (ROUND_HALF_EVEN); probabilities and percentages are
float; dates are ISO strings. :func:`as_dict` gives a JSON-ready dict (Decimal → str).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import date, datetime
from decimal import ROUND_HALF_EVEN, Decimal

CENT = Decimal("0.01")


def money(x: float) -> Decimal:
    """Round a float amount to a Decimal with 2 decimal places (half-even)."""
    return Decimal(float(x)).quantize(CENT, rounding=ROUND_HALF_EVEN)


@dataclass(frozen=True, slots=True)
class TailMetrics:
    """Distribution summary of a payout (money) over the simulated paths."""

    expected_loss: Decimal  # mean payout = risk premium
    expected_loss_se: Decimal  # Monte Carlo standard error of expected_loss
    relative_se: float  # expected_loss_se / expected_loss (0 when expected_loss is 0)
    iid_se: Decimal  # std_dev / sqrt(n): the error plain Monte Carlo would have
    variance_reduction: float  # (iid_se / expected_loss_se)^2
    std_dev: Decimal
    prob_attach: float  # P(payout > 0)
    prob_exhaust: float  # P(payout >= limit)
    var_99: Decimal
    tvar_99: Decimal
    var_995: Decimal
    tvar_995: Decimal


@dataclass(frozen=True, slots=True)
class CoverPricing:
    """Pricing of one cover. Money in the policy currency; percentages of the limit in %."""

    cover_id: str
    index_code: str
    direction: str
    risk_start: str
    risk_end: str
    trigger: float
    exit: float | None
    min_payout: Decimal
    payout_per_unit: Decimal
    limit: Decimal
    risk_premium: Decimal  # = expected loss
    risk_premium_rate: float  # risk_premium / limit (a fraction)
    expected_loss_ratio: float
    gross_premium: Decimal  # risk_premium / expected_loss_ratio
    gross_premium_indication_rate: float  # gross_premium / limit (a fraction)
    metrics: TailMetrics
    n_paths: int
    seed: int
    method: str
    batches: int
    model_version: str
    data_hash: str


@dataclass(frozen=True, slots=True)
class PortfolioPricing:
    """Joint pricing of covers on one target (shared paths, so the covers are dependent)."""

    covers: tuple[CoverPricing, ...]
    aggregate: TailMetrics  # of the sum of the covers' payouts; prob_exhaust: P(sum >= total_limit)
    total_limit: Decimal
    total_risk_premium: Decimal
    total_gross_premium: Decimal
    prob_any_attach: float
    district: str
    subdivision: str
    match_kind: str
    n_paths: int
    seed: int
    method: str
    batches: int
    model_version: str
    data_hash: str


def as_dict(obj) -> dict:
    """JSON-ready dict of a result dataclass: Decimal → str, date → ISO string, tuples →
    lists, private fields (leading underscore) dropped."""

    def conv(v):
        # one pass over the object (dataclasses.asdict deep-copies first: 10x slower on the
        # long tuples of the loss and convergence summaries)
        if isinstance(v, (float, int, str, bool)) or v is None:
            return v
        if isinstance(v, Decimal):
            return str(v)
        if isinstance(v, (date, datetime)):
            return v.isoformat()
        if dataclasses.is_dataclass(v) and not isinstance(v, type):
            return {f.name: conv(getattr(v, f.name)) for f in dataclasses.fields(v) if not f.name.startswith("_")}
        if isinstance(v, dict):
            return {k: conv(x) for k, x in v.items() if not str(k).startswith("_")}
        if isinstance(v, (list, tuple)):
            return [conv(x) for x in v]
        return v

    return conv(obj)
