"""The Open-Meteo historical weather (archive) API, as documented at
open-meteo.com/en/docs/historical-weather-api: `GET /v1/archive` with `latitude`,
`longitude`, `start_date`, `end_date`, `daily=` and/or `hourly=` variable lists, `timezone`
and optionally `models=`; the answer holds `daily` / `hourly` objects of arrays keyed by
variable (`<variable>_<model>` when models are named), `null` for a missing value, days in
the requested timezone.

Mapped to the reanalysis data set (REAN-SFC-HOURLY) that the wind and heat covers sold
before pricing-2026.4.0 settle on (those created since settle on IMD's 1° temperature grid and
the cyclone track wind: imd_grid.py, ibtracs.py):
`temperature_2m_max` → temperature_c, `wind_speed_10m_max` → wind_kmh (km/h), and from hourly
values the day's maximum when all 24 hours are there; `precipitation_sum` (mm, the IST
day's total) → rainfall_mm: the **fallback rung** of IMD's daily rainfall (issue 34,
models/domain/settlement_basis.py `LADDERS`), used only for a day IMD still lacks at the
calculation deadline, after a calibration on their stored overlap. Rainfall is taken from
the daily total only (no hourly sums). The archive's last days are preliminary (ERA5T):
values younger than PRELIMINARY_DAYS are provisional.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from urllib.parse import urlencode

import httpx

from activities.providers.base import Target
from models.clock import utcnow
from models.domain.observations import ObservationIn

BASE_URL = "https://archive-api.open-meteo.com/v1/archive"
DATA_SET = "REAN-SFC-HOURLY"
DAILY = {"temperature_2m_max": "temperature_c", "wind_speed_10m_max": "wind_kmh", "precipitation_sum": "rainfall_mm"}
HOURLY = {"temperature_2m": "temperature_c", "wind_speed_10m": "wind_kmh"}
PRELIMINARY_DAYS = 7


def archive_url(latitude: float, longitude: float, start: dt.date, end: dt.date, model: str | None = None) -> str:
    query = {
        "latitude": f"{latitude:.4f}",
        "longitude": f"{longitude:.4f}",
        "start_date": start.isoformat(),
        "end_date": end.isoformat(),
        "daily": ",".join(DAILY),
        "timezone": "Asia/Kolkata",
        "wind_speed_unit": "kmh",
        "precipitation_unit": "mm",
    }
    if model:
        query["models"] = model
    return f"{BASE_URL}?{urlencode(query)}"


def _series(block: dict, variable: str, model: str | None) -> list | None:
    if model and f"{variable}_{model}" in block:
        return block[f"{variable}_{model}"]
    return block.get(variable)


def parse(body: dict, target_id: str, model: str | None = None, today: dt.date | None = None) -> list[ObservationIn]:
    """Rows of one archive answer for one target."""
    today = today or utcnow().date()
    source = f"open-meteo/{model or 'best_match'}"
    found: dict[tuple[str, dt.date], Decimal] = {}
    daily = body.get("daily") or {}
    for name, variable in DAILY.items():
        values = _series(daily, name, model)
        if values is None:
            continue
        for day_text, value in zip(daily["time"], values):
            if value is not None:
                found[(variable, dt.date.fromisoformat(day_text[:10]))] = Decimal(str(value))
    hourly = body.get("hourly") or {}
    for name, variable in HOURLY.items():
        values = _series(hourly, name, model)
        if values is None:
            continue
        by_day: dict[dt.date, list] = {}
        for stamp, value in zip(hourly["time"], values):
            by_day.setdefault(dt.date.fromisoformat(stamp[:10]), []).append(value)
        for day, hours in by_day.items():
            if len(hours) == 24 and all(v is not None for v in hours) and (variable, day) not in found:
                found[(variable, day)] = Decimal(str(max(hours)))
    return [
        ObservationIn(target_id, DATA_SET, variable, day, None, value, source,
                      provisional=(today - day).days < PRELIMINARY_DAYS)
        for (variable, day), value in sorted(found.items(), key=lambda kv: (kv[0][1], kv[0][0]))
    ]


class OpenMeteoProvider:
    name = "open-meteo"

    def __init__(self, model: str | None = "era5", transport: httpx.AsyncBaseTransport | None = None) -> None:
        self.model = model
        self._transport = transport

    async def fetch(self, targets: list[Target], start: dt.date, end: dt.date) -> list[ObservationIn]:
        rows: list[ObservationIn] = []
        async with httpx.AsyncClient(timeout=30, transport=self._transport) as http:
            for t in targets:
                response = await http.get(archive_url(t.latitude, t.longitude, start, end, self.model))
                response.raise_for_status()
                rows.extend(parse(response.json(), t.id, self.model))
        return rows
