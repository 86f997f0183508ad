"""Cover terms: what a cover pays on which index over which period."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from models.domain.index_catalog import BY_CODE, IndexDefinitionSpec
from models.domain.terms import CoverTerms as DomainTerms

MAX_RISK_DAYS = 366


@dataclass(frozen=True, slots=True)
class CoverTerms:
    """One cover's payout structure (semantics: docs/payout-structures.md).

    * ``trigger``, ``exit``: index units (mm, km/h, °C; for the daily-count form the daily
      index threshold in mm).
    * ``limit``, ``min_payout``: money (currency of the policy).
    * ``payout_per_unit``: money per index unit beyond the trigger; for the daily-count
      form, money per counted day (the price per night).
    * ``risk_start``/``risk_end``: dates, both inclusive.
    * ``direction``: ABOVE or BELOW; None takes the index definition's direction.
    * ``expected_loss_ratio``: per-cover ELR (dimensionless); None takes the run's default.
    * ``data_set``: the data set the cover settles on; None: what its index settles on now
      (:mod:`.basis` says what it is priced on and how the two map).
    """

    index_code: str
    risk_start: date
    risk_end: date
    trigger: float
    limit: Decimal
    payout_per_unit: Decimal
    min_payout: Decimal = Decimal("0")
    exit: float | None = None
    direction: str | None = None
    cover_id: str = ""
    expected_loss_ratio: float | None = None
    data_set: str | None = None
    _resolved_direction: str = field(default="", init=False, repr=False, compare=False)

    @classmethod
    def of(cls, terms: "DomainTerms", cover_id: str = "") -> "CoverTerms":
        """The engine's form of the domain's terms (index values as float64 for the model)."""
        return cls(
            index_code=terms.index_code,
            risk_start=terms.start,
            risk_end=terms.end,
            trigger=float(terms.trigger),
            exit=None if terms.exit is None else float(terms.exit),
            limit=terms.limit,
            min_payout=terms.min_payout,
            payout_per_unit=terms.payout_per_unit,
            direction=terms.direction,
            cover_id=cover_id,
            data_set=terms.data_set,
        )

    def __post_init__(self) -> None:
        if self.index_code not in BY_CODE:
            raise ValueError(f"unknown index code {self.index_code!r}")
        spec = BY_CODE[self.index_code]
        direction = self.direction or spec.direction
        if direction not in ("ABOVE", "BELOW"):
            raise ValueError(f"direction must be ABOVE or BELOW, got {direction!r}")
        object.__setattr__(self, "_resolved_direction", direction)
        for name in ("limit", "payout_per_unit", "min_payout"):
            v = getattr(self, name)
            if not isinstance(v, Decimal):
                object.__setattr__(self, name, Decimal(str(v)))
        if self.risk_end < self.risk_start:
            raise ValueError("risk_end is before risk_start")
        if (self.risk_end - self.risk_start).days + 1 > MAX_RISK_DAYS:
            raise ValueError(f"risk period longer than {MAX_RISK_DAYS} days")
        if self.limit <= 0:
            raise ValueError("limit must be positive")
        if self.payout_per_unit < 0:
            raise ValueError("payout_per_unit must be >= 0")
        if not (0 <= self.min_payout <= self.limit):
            raise ValueError("min_payout must be between 0 and limit")
        if not isinstance(self.trigger, (int, float)) or self.trigger != self.trigger:
            raise ValueError("trigger must be a number")
        if spec.aggregation == "DAILY_COUNT":
            if self.exit is not None:
                raise ValueError("the daily-count form has no exit (the limit caps it)")
            if self.min_payout != 0:
                raise ValueError("the daily-count form has no minimum payout")
            if self.payout_per_unit <= 0:
                raise ValueError("the daily-count form needs payout_per_unit (price per day) > 0")
            if direction != "ABOVE":
                raise ValueError("the daily-count form counts days at or above the trigger (ABOVE)")
        else:
            if self.exit is not None:
                if direction == "ABOVE" and not self.exit > self.trigger:
                    raise ValueError("ABOVE cover: exit must be greater than trigger")
                if direction == "BELOW" and not self.exit < self.trigger:
                    raise ValueError("BELOW cover: exit must be less than trigger")
            if self.payout_per_unit == 0 and self.min_payout == 0 and self.exit is None:
                raise ValueError("cover can never pay: payout_per_unit, min_payout and exit all zero/absent")
        if self.expected_loss_ratio is not None and not (0 < self.expected_loss_ratio <= 1):
            raise ValueError("expected_loss_ratio must be in (0, 1]")

    @property
    def spec(self) -> IndexDefinitionSpec:
        return BY_CODE[self.index_code]

    @property
    def resolved_direction(self) -> str:
        """ABOVE or BELOW (the index definition's direction unless overridden)."""
        return self._resolved_direction

    @property
    def basis(self):
        """What the cover is priced on, what it settles on, and the mapping (:mod:`.basis`)."""
        from .basis import data_basis

        return data_basis(self.index_code, self.data_set)

    @property
    def is_daily_count(self) -> bool:
        return self.spec.aggregation == "DAILY_COUNT"
