"""A cover's settlement basis as a reader sees it (issue 34): the rungs of its source ladder in
order, the fallback and how it is calibrated, the first payment's rule in words. One source for the wire
view (`settlementBasis` on the full-form coverage, api/catalogue/responses.py) and the fact
sheet and policy schedule PDFs (reports/), so they never say different things.

Pure: `SettlementBasis` in, plain values out.
"""

from __future__ import annotations

from dataclasses import dataclass

from models.domain.settlement_basis import FALLBACK, FINAL, MIN_PAIRS, PROVISIONAL, SettlementBasis

# How a fallback value is mapped to the primary's scale (fitted by the settlement when it
# needs the fallback: models/domain/settlement_basis.py, `fit_calibration`).
CALIBRATION_RULE = (
    "primary = intercept + slope x fallback, least squares fitted at settlement on the stored "
    "overlap of final primary and fallback values on the same days (the target's own last 3 "
    f"years, else pooled over all targets; at least {MIN_PAIRS} pairs); its residual error is "
    "stated in the settlement snapshot"
)


@dataclass(frozen=True, slots=True)
class Rung:
    """One rung of a ladder, highest first: FINAL, PROVISIONAL, then FALLBACK if declared."""

    rung: str  # FINAL | PROVISIONAL | FALLBACK
    data_set: str
    product: str  # the product, its publisher and when it comes


def rungs(basis: SettlementBasis) -> list[Rung]:
    """The rungs a day's value is taken from, highest first."""
    ladder = [Rung(FINAL, basis.data_set, basis.final), Rung(PROVISIONAL, basis.data_set, basis.provisional)]
    if basis.fallback_data_set is not None:
        ladder.append(Rung(FALLBACK, basis.fallback_data_set, basis.fallback))
    return ladder


def initial_rule_words(basis: SettlementBasis) -> str:
    """How the INITIAL payment is reduced, in words (docs/settlement.md, "Two payments")."""
    return (
        f"The first payment is the payout at the index moved by {basis.initial_error_share} x its stated "
        f"error towards paying less (a provisional day's error: {basis.provisional_error}); the true-up "
        "pays the rest on final values. A negative true-up is waived."
    )
