"""Names and payloads of the travel coverages' workflow (docs/travel.md)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import msgspec

# A stay's simulated nights: the store records them too, so they are defined in the domain.
from models.domain.travel import PricedStay as PricedStay  # noqa: F401 - re-exported
from models.domain.travel import StayNights as StayNights  # noqa: F401
from models.temporal.catalogue import SiteRef

TRAVEL_COVERAGES_WORKFLOW = "TravelCoveragesWorkflow"


def travel_coverages_workflow_id(target_id: str, first_night: dt.date, last_night: dt.date) -> str:
    return f"travel-coverages:{target_id}:{first_night}:{last_night}"


class TravelCoveragesInput(msgspec.Struct, frozen=True):
    """Price the hotel-rain covers of a stay at a target (nights first..last inclusive)."""

    target_id: str
    first_night: dt.date
    last_night: dt.date
    triggers: list[Decimal]
    simulations: int
    seed: int


class PriceStayInput(msgspec.Struct, frozen=True):
    site: SiteRef
    first_night: dt.date
    last_night: dt.date
    triggers: list[Decimal]
    simulations: int
    seed: int
