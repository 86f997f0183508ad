"""The index definitions the service sells covers on.

One source of truth shared by the database seed, the pricing engine and the API. Ids are
UUIDv5 of the code, so they are stable across databases and releases: a client may keep
them, and a coverage id derived from them is reproducible.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Literal

INDEX_NAMESPACE = uuid.UUID("6f1c3c4e-5a52-4f43-9d1c-2f7c1b0a9e11")

Direction = Literal["ABOVE", "BELOW"]
Aggregation = Literal["SUM", "MAX", "DAILY_COUNT"]


@dataclass(frozen=True, slots=True)
class IndexDefinitionSpec:
    """What is measured and how it aggregates over a risk period."""

    code: str
    name: str
    description: str
    unit: str
    risk_type_id: str  # RAINFALL | WIND | TEMPERATURE
    risk_type: str  # hierarchical label, ` > ` separated (internal coverage form)
    aggregation: Aggregation
    direction: Direction  # ABOVE: pays when index >= trigger; BELOW: when index <= trigger
    data_source_id: str
    data_source_description: str
    data_set_id: str
    data_set: str
    trigger_label: str
    # Hours of the day (local, [start, end)) for hourly indices; None for whole days.
    hours: tuple[int, int] | None = None
    type: str = "WEATHER"

    @property
    def id(self) -> uuid.UUID:
        return uuid.uuid5(INDEX_NAMESPACE, self.code)


_IMD = ("IMD", "India Meteorological Department gridded and station rainfall")
_IMD_SET = ("IMD-RF-DAILY", "IMD daily rainfall, 0.25° grid")
# Heat and wind settle on the products their prices are fitted on (issue 26; until
# pricing-2026.4.0 both settled on reanalysis surface fields, "REAN-SFC-HOURLY", which the
# covers sold then keep: models/domain/observations.py, LEGACY_DATA_SETS).
_IMD_TMAX = ("IMD", "India Meteorological Department gridded daily maximum temperature (1° cells)")
_IMD_TMAX_SET = ("IMD-TMAX-1DEG", "IMD 1° gridded daily maximum temperature, the target's cell")
_IBTRACS = ("IBTRACS", "Tropical-cyclone tracks of the regional agency (IMD RSMC New Delhi), via IBTrACS (NOAA)")
_IBTRACS_SET = ("IBTRACS-WIND", "Cyclone wind at the target from the storm's track (modified Rankine field)")

INDEX_DEFINITIONS: tuple[IndexDefinitionSpec, ...] = (
    IndexDefinitionSpec(
        code="RAINFALL_MONTHLY_TOTAL",
        name="Monthly total rainfall",
        description="Total rainfall over the risk period (sum of daily rainfall), excess cover",
        unit="mm",
        risk_type_id="RAINFALL",
        risk_type="Weather > Rainfall > Excess rainfall",
        aggregation="SUM",
        direction="ABOVE",
        data_source_id=_IMD[0],
        data_source_description=_IMD[1],
        data_set_id=_IMD_SET[0],
        data_set=_IMD_SET[1],
        trigger_label="Total rainfall at or above",
    ),
    IndexDefinitionSpec(
        code="RAINFALL_DEFICIT",
        name="Rainfall deficit",
        description="Total rainfall over the risk period (sum of daily rainfall), deficit cover",
        unit="mm",
        risk_type_id="RAINFALL",
        risk_type="Weather > Rainfall > Rainfall deficit",
        aggregation="SUM",
        direction="BELOW",
        data_source_id=_IMD[0],
        data_source_description=_IMD[1],
        data_set_id=_IMD_SET[0],
        data_set=_IMD_SET[1],
        trigger_label="Total rainfall at or below",
    ),
    IndexDefinitionSpec(
        code="WIND_MAX_SPEED",
        name="Maximum wind speed",
        description="Highest daily maximum sustained wind at the target over the risk period",
        unit="km/h",
        risk_type_id="WIND",
        risk_type="Weather > Wind > Maximum wind speed",
        aggregation="MAX",
        direction="ABOVE",
        data_source_id=_IBTRACS[0],
        data_source_description=_IBTRACS[1],
        data_set_id=_IBTRACS_SET[0],
        data_set=_IBTRACS_SET[1],
        trigger_label="Maximum wind speed at or above",
    ),
    IndexDefinitionSpec(
        code="TEMPERATURE_MAX",
        name="Maximum temperature",
        description="Highest daily maximum temperature at the target over the risk period",
        unit="°C",
        risk_type_id="TEMPERATURE",
        risk_type="Weather > Temperature > Heat",
        aggregation="MAX",
        direction="ABOVE",
        data_source_id=_IMD_TMAX[0],
        data_source_description=_IMD_TMAX[1],
        data_set_id=_IMD_TMAX_SET[0],
        data_set=_IMD_TMAX_SET[1],
        trigger_label="Maximum temperature at or above",
    ),
    IndexDefinitionSpec(
        code="RAINFALL_DAYTIME_HOURS",
        name="Daytime rainfall (08:00-20:00)",
        description="Rainfall between 08:00 and 20:00 local time, per day; a day counts when it reaches the trigger",
        unit="mm",
        risk_type_id="RAINFALL",
        risk_type="Weather > Rainfall > Rain during set hours",
        aggregation="DAILY_COUNT",
        direction="ABOVE",
        data_source_id=_IMD[0],
        data_source_description=_IMD[1],
        data_set_id="IMD-RF-HOURLY",
        data_set="Hourly rainfall, nearest automatic weather station",
        trigger_label="Daytime rainfall on a day at or above",
        hours=(8, 20),
    ),
)

BY_CODE: dict[str, IndexDefinitionSpec] = {d.code: d for d in INDEX_DEFINITIONS}
BY_ID: dict[uuid.UUID, IndexDefinitionSpec] = {d.id: d for d in INDEX_DEFINITIONS}
# The monthly catalogue every tenant buys from. The travel surface's hotel-rain covers (the
# hourly index) are coverage rows too, but each is priced for one stay of one tenant's
# guest: they are never listed, read or repriced as catalogue coverages (issue 24).
CATALOGUE_INDEX_IDS: tuple[uuid.UUID, ...] = tuple(d.id for d in INDEX_DEFINITIONS if d.hours is None)
