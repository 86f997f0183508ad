"""The data sets measured index values come in, their variables, units, plausible ranges
and latency, and which data set a cover settles on (docs/observations.md).

Heat and wind covers settle on the products their prices are fitted on (issue 26): the
target's IMD 1° daily maximum temperature cell (`IMD-TMAX-1DEG`) and the cyclone wind the
storm's track gives at the target by the pricing's own wind field (`IBTRACS-WIND`). A
coverage records the data set it settles on when it is created, and every quote and policy
sold on it copies it; a coverage or snapshot recorded before pricing-2026.4.0 has none and
settles on what its index settled on then (`LEGACY_DATA_SETS`: heat and wind on the
reanalysis, `REAN-SFC-HOURLY`). No other module of the project is imported here.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal


@dataclass(frozen=True, slots=True)
class DataSet:
    id: str
    description: str
    hourly: bool
    # variable → (unit, plausible minimum, plausible maximum), per day or per hour
    variables: dict[str, tuple[str, Decimal, Decimal]]
    # When its values come, in words: provisional (the source may still change them) and
    # final (settlement pays on final values only). The documents quote it; `final` is the
    # short form a fact sheet has room for.
    latency: str = ""
    final: str = ""


IMD_TMAX = "IMD-TMAX-1DEG"
IBTRACS_WIND = "IBTRACS-WIND"
REANALYSIS = "REAN-SFC-HOURLY"

DATA_SETS: dict[str, DataSet] = {
    d.id: d
    for d in (
        DataSet(
            "IMD-RF-DAILY",
            "IMD daily rainfall, 0.25° grid (day ending 08:30 IST)",
            False,
            {"rainfall_mm": ("mm", Decimal(0), Decimal(2000))},
            "provisional from IMD's real-time grid the next day; final in IMD's yearly archive",
            "final in IMD's yearly archive",
        ),
        DataSet(
            "IMD-RF-HOURLY",
            "Hourly rainfall, nearest automatic weather station (hour starting, IST)",
            True,
            {"rainfall_mm": ("mm", Decimal(0), Decimal(500))},
            "as the station reports, hour by hour",
            "final as reported",
        ),
        DataSet(
            REANALYSIS,
            "Reanalysis surface fields (ERA5): daily maximum of the hourly temperature and wind, daily total "
            "rainfall (IST day); the fallback rung of IMD's data sets (models/domain/settlement_basis.py)",
            False,
            {
                "wind_kmh": ("km/h", Decimal(0), Decimal(400)),
                "temperature_c": ("°C", Decimal(-40), Decimal(60)),
                "rainfall_mm": ("mm", Decimal(0), Decimal(2000)),
            },
            "ERA5T within about five days (provisional for a week); ERA5 final after two to three months",
            "final after a week",
        ),
        DataSet(
            IMD_TMAX,
            "IMD 1° gridded daily maximum temperature, the target's 1° cell (Srivastava et al. 2009)",
            False,
            {"temperature_c": ("°C", Decimal(-40), Decimal(60))},
            "provisional the next day (IMD's real-time 0.5° analysis at the cell's centre); final when IMD "
            "publishes the year's quality-controlled 1° archive (Maxtemp_MaxT_<year>.GRD), early in the next year",
            "final when IMD publishes the year's quality-controlled archive",
        ),
        DataSet(
            IBTRACS_WIND,
            "Cyclone wind at the target from the storm tracks (modified Rankine field, models/domain/"
            "cyclone_wind.py), daily maximum, UTC day; 0 km/h when no storm is within 500 km",
            False,
            {"wind_kmh": ("km/h", Decimal(0), Decimal(400))},
            "provisional from the agency's operational track (IMD RSMC New Delhi, in IBTrACS within days); final "
            "from the best track, when IBTrACS carries the agency's best track of the season (months after it)",
            "final with the season's best track",
        ),
    )
}

# The data set each index definition settles on, and its variable: what the covers created
# from pricing-2026.4.0 on settle on (heat and wind: the very products their prices are
# fitted on, issue 26). A coverage carries its own data set (`coverage.data_set`, frozen into
# every quote and policy sold on it), so covers sold before keep theirs (`LEGACY_DATA_SETS`).
INDEX_DATA = {
    "RAINFALL_MONTHLY_TOTAL": ("IMD-RF-DAILY", "rainfall_mm"),
    "RAINFALL_DEFICIT": ("IMD-RF-DAILY", "rainfall_mm"),
    "WIND_MAX_SPEED": (IBTRACS_WIND, "wind_kmh"),
    "TEMPERATURE_MAX": (IMD_TMAX, "temperature_c"),
    "RAINFALL_DAYTIME_HOURS": ("IMD-RF-HOURLY", "rainfall_mm"),
}
# What covers recorded without a data set settle on: those priced before pricing-2026.4.0
# (heat and wind on the reanalysis; the others on what they settle on now).
LEGACY_DATA_SETS = {
    "RAINFALL_MONTHLY_TOTAL": "IMD-RF-DAILY",
    "RAINFALL_DEFICIT": "IMD-RF-DAILY",
    "WIND_MAX_SPEED": REANALYSIS,
    "TEMPERATURE_MAX": REANALYSIS,
    "RAINFALL_DAYTIME_HOURS": "IMD-RF-HOURLY",
}


def settles_on(index_code: str, data_set: str | None) -> str:
    """The data set a cover settles on: its own (`data_set`), or, for a cover recorded
    without one (sold before pricing-2026.4.0), the one its index settled on then."""
    return data_set or LEGACY_DATA_SETS[index_code]


def data_of(index_code: str, data_set: str | None) -> tuple[str, str]:
    """(data set, variable) a cover settles on (`settles_on`); the variable is the index's."""
    return settles_on(index_code, data_set), INDEX_DATA[index_code][1]
