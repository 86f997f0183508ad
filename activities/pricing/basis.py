"""What each index is priced on, what it settles on, and how the one maps to the other.

A price is only as good as the link between the record it is fitted on and the data the
cover is paid on. For each cover the engine says (``data_basis``):

* the **pricing data set**: the record the model is calibrated on;
* the **settlement data set**: the data set the cover is paid on (the coverage's own,
  models/domain/data_sets.py);
* the **mapping** between them, in words, and whether it is the identity (the record *is*
  the settlement product: the same cell of the same grid, the same wind field on the same
  agency's tracks). When it is not, the mapping's uncertainty belongs in the parameter band
  (its settlement-data component, zero for the identity).

Heat and wind (from pricing-2026.4.0) settle on their pricing product: identity. Rainfall is
priced on IMD's subdivision record mapped to the target's 0.25° cell by the cell-scale
factors fitted where both exist (a calibrated mapping whose range is a driver of the band).
Heat and wind covers sold before 2026.4.0 settle on reanalysis fields that no record at hand
overlaps with the pricing data: no mapping can be fitted, and the documents say so.
"""

from __future__ import annotations

from dataclasses import dataclass

from models.domain.cyclone_wind import DECAY_EXPONENT, INFLUENCE_KM, RADIUS_MAX_WIND_KM
from models.domain.data_sets import DATA_SETS, IBTRACS_WIND, IMD_TMAX, INDEX_DATA


@dataclass(frozen=True, slots=True)
class DataBasis:
    """The data behind one cover's price and payout (module docstring)."""

    index_code: str
    pricing_data_set: str  # id of the record the model is fitted on
    pricing_data: str  # that record in words: what, where, which years
    settlement_data_set: str  # id of the data set the cover is paid on
    settlement_data: str  # that data set in words
    mapping: str  # how the pricing record maps to the settlement data, in words
    identity: bool  # the pricing record is the settlement product (no mapping uncertainty)
    cell: str = ""  # a heat cover's IMD 1° cell ("12.5N_77.5E"), when known
    summary: str = ""  # the mapping in a few words (a fact sheet's room)


WIND_FIELD = (
    f"modified Rankine wind field (radius of maximum wind {RADIUS_MAX_WIND_KM:g} km, decay exponent "
    f"{DECAY_EXPONENT:g}, nothing beyond {INFLUENCE_KM:g} km; models/domain/cyclone_wind.py)"
)
_RAIN_RECORD = (
    "IMD-SUBDIV-MONTHLY",
    "IMD monthly rainfall of the target's meteorological subdivision, 1901–2015, rescaled to its district normal",
)
_RAIN_TO_CELL = (
    "calibrated: the subdivision record is widened to the scale of the target's 0.25° cell by the cell-scale "
    "factors fitted where area and cell records overlap (IMD 0.25° Delhi-NCR districts 2013–2024, GHCN-Daily "
    "Colaba 1901–1970; calibration/rain_scale.json); the factors' range is a driver of the parameter band"
)
_NO_OVERLAP = (
    "none fitted: no record at hand overlaps the pricing record and the reanalysis, so no calibration can map "
    "one to the other; a bias between them is basis risk the price does not hold (a 0.5 °C bias moves the "
    "mean burn of the heat covers from 6.4 % to 2.3 % or 15.1 %). Covers sold before pricing-2026.4.0 keep "
    "this data set; covers created since settle on the pricing record itself"
)


def data_basis(index_code: str, settlement_data_set: str | None = None, cell: str = "") -> DataBasis:
    """The data basis of a cover of `index_code` settling on `settlement_data_set` (None:
    what the index settles on now); `cell`: the heat cover's IMD 1° cell, when known."""
    settles = settlement_data_set or INDEX_DATA[index_code][0]
    described = DATA_SETS[settles].description if settles in DATA_SETS else settles
    if index_code == "TEMPERATURE_MAX":
        where = f"cell {cell}" if cell else "the target's nearest cell"
        pricing = (IMD_TMAX, f"IMD 1° gridded daily maximum temperature 1951–2024, {where} (level, trend and "
                             "spread per month: calibration/heat_cells.csv)")
        if settles == IMD_TMAX:
            mapping = f"identity: {where} of the same IMD 1° grid, as the price is fitted on it"
        else:
            mapping = _NO_OVERLAP
    elif index_code == "WIND_MAX_SPEED":
        pricing = (IBTRACS_WIND, f"IBTrACS North Indian Ocean best tracks 1982–2023 (IMD winds), cyclone wind at "
                                 f"the target by the {WIND_FIELD}")
        if settles == IBTRACS_WIND:
            mapping = f"identity: the same {WIND_FIELD} on the agency's track of the storm (best track when final)"
        else:
            mapping = _NO_OVERLAP
    elif index_code == "RAINFALL_DAYTIME_HOURS":
        pricing = ("IMD-SUBDIV-MONTHLY+BEIJING-HOURLY",
                   "the monthly rainfall record spread over wet days and hours by the hourly structure of one "
                   "station (Beijing Aotizhongxin 2013–2017)")
        mapping = "modelled: no Indian hourly record to calibrate the hourly structure on"
    else:
        pricing = _RAIN_RECORD
        mapping = _RAIN_TO_CELL
    identity = settles == pricing[0]
    summary = _SUMMARIES.get((index_code, identity), "")
    if identity and index_code == "TEMPERATURE_MAX" and cell:
        summary += f" ({cell})"
    return DataBasis(index_code, pricing[0], pricing[1], settles, described, mapping, identity,
                     cell if index_code == "TEMPERATURE_MAX" else "", summary)


_SUMMARIES = {
    ("TEMPERATURE_MAX", True): "the same data, the same 1° cell",
    ("TEMPERATURE_MAX", False): "no mapping to the settlement data could be fitted (basis risk)",
    ("WIND_MAX_SPEED", True): "the same data, the same wind field on the storm's track",
    ("WIND_MAX_SPEED", False): "no mapping to the settlement data could be fitted (basis risk)",
    ("RAINFALL_MONTHLY_TOTAL", False): "mapped to the 0.25° cell by calibrated scale factors",
    ("RAINFALL_DEFICIT", False): "mapped to the 0.25° cell by calibrated scale factors",
    ("RAINFALL_DAYTIME_HOURS", False): "spread over the hours by a modelled hourly structure",
}

