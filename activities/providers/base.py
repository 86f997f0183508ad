"""What every provider is given and gives back."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Protocol

from models.domain.observations import ObservationIn


@dataclass(frozen=True, slots=True)
class Target:
    id: str
    latitude: float  # the 0.25° cell's centre, decimal degrees
    longitude: float


class Provider(Protocol):
    name: str

    async def fetch(self, targets: list[Target], start: dt.date, end: dt.date) -> list[ObservationIn]:
        """Observations of the targets for the days [start, end] that the source has."""
        ...
