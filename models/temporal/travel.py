"""Names and payloads of the travel coverages' workflow (docs/travel.md)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import msgspec

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


class StayNights(msgspec.Struct, frozen=True):
    """One trigger's simulated distribution: `night_counts[k]` paths had k nights whose
    daytime rain reached the trigger."""

    trigger: Decimal
    night_counts: list[int]


class PricedStay(msgspec.Struct, frozen=True):
    site: SiteRef
    first_night: dt.date
    last_night: dt.date
    by_trigger: list[StayNights]
    simulations: int  # paths
    seed: int
    model_version: str
    data_hash: str
    workflow_id: str = ""
