"""The NASA POWER daily point API, as documented at power.larc.nasa.gov/docs/services/api:
`GET /api/temporal/daily/point` with `parameters`, `community`, `longitude`, `latitude`,
`start`/`end` (YYYYMMDD), `format=csv` and `time-standard` (LST: the place's solar day).
The CSV answer opens with a header block between `-BEGIN HEADER-` and `-END HEADER-`, then
`YEAR,DOY,<PARAMETER>...` rows (some communities answer `YEAR,MO,DY,...`: both are read);
-999 marks a missing value.

Mapped to the reanalysis data set (MERRA-2 is a reanalysis) that heat and wind covers sold
before pricing-2026.4.0 settle on: `T2M_MAX` → temperature_c,
`WS10M_MAX` (m/s) → wind_kmh (× 3.6), and `PRECTOTCORR` (MERRA-2 precipitation bias-corrected
against gauges, mm/day) → rainfall_mm: the fallback rung of IMD's daily rainfall, as
Open-Meteo's `precipitation_sum` is (issue 34; the day is the place's solar day with
`time-standard=LST`, not IMD's day ending 08:30 IST: the calibration absorbs the mean
offset, not the day-to-day one). Other parameters are ignored. POWER's daily values are
final when published.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from decimal import Decimal
from urllib.parse import urlencode

import httpx

from activities.providers.base import Target
from models.domain.observations import ObservationIn

BASE_URL = "https://power.larc.nasa.gov/api/temporal/daily/point"
DATA_SET = "REAN-SFC-HOURLY"
MAPPED = {
    "T2M_MAX": ("temperature_c", Decimal(1)),
    "WS10M_MAX": ("wind_kmh", Decimal("3.6")),
    "PRECTOTCORR": ("rainfall_mm", Decimal(1)),
}
MISSING = Decimal(-999)


def daily_url(latitude: float, longitude: float, start: dt.date, end: dt.date,
              parameters: tuple[str, ...] = tuple(MAPPED), community: str = "ag", time_standard: str = "LST") -> str:
    query = {
        "parameters": ",".join(parameters),
        "community": community,
        "start": start.strftime("%Y%m%d"),
        "end": end.strftime("%Y%m%d"),
        "longitude": f"{longitude:g}",
        "latitude": f"{latitude:g}",
        "format": "csv",
        "time-standard": time_standard,
    }
    return f"{BASE_URL}?{urlencode(query)}"


def parse_csv(body: str, target_id: str) -> list[ObservationIn]:
    """Rows of one POWER CSV answer for one target."""
    text = body.split("-END HEADER-", 1)[1] if "-END HEADER-" in body else body
    reader = csv.DictReader(io.StringIO(text.strip()))
    rows = []
    for rec in reader:
        day = _day(rec)
        for name, (variable, factor) in MAPPED.items():
            raw = (rec.get(name) or "").strip()
            if not raw:
                continue
            value = Decimal(raw)
            if value == MISSING:
                continue
            rows.append(ObservationIn(target_id, DATA_SET, variable, day, None, (value * factor).normalize(), "nasa-power/merra2"))
    return rows


def _day(rec: dict) -> dt.date:
    """A row's day: `YEAR,DOY` or `YEAR,MO,DY`."""
    if rec.get("DOY"):
        return dt.date(int(rec["YEAR"]), 1, 1) + dt.timedelta(days=int(rec["DOY"]) - 1)
    return dt.date(int(rec["YEAR"]), int(rec["MO"]), int(rec["DY"]))


class NasaPowerProvider:
    name = "nasa-power"

    def __init__(self, transport: httpx.AsyncBaseTransport | None = None) -> None:
        self._transport = transport

    async def fetch(self, targets: list[Target], start: dt.date, end: dt.date) -> list[ObservationIn]:
        rows: list[ObservationIn] = []
        async with httpx.AsyncClient(timeout=60, transport=self._transport) as http:
            for t in targets:
                response = await http.get(daily_url(t.latitude, t.longitude, start, end))
                response.raise_for_status()
                rows.extend(parse_csv(response.text, t.id))
        return rows
