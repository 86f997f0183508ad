"""A simulated feed for `make dev`: daily values drawn from the same calibrated site models
the prices come from, so a newcomer sees covers monitored and settled without a data
contract. Every row is marked `simulated` (and so is every event settled on it, in the API,
the webhooks, the claim explanation and the settlement's workflow summary).

Deterministic: a month's values depend only on the target and the month (its seed), so
running the feed again changes nothing. Per month: the monthly rainfall total, the highest
daily maximum temperature and the highest wind are one path of the pricing model; rain is
spread over wet days (gamma weights), each wet day's rain over its 24 hours; the other
days' temperatures and winds fall below the month's highest. Heat and wind come in both data
sets the covers may settle on: the IMD 1° cell and the track wind (covers created from
pricing-2026.4.0 on; the track wind is 0 but on the day of the month's highest, 0 too when
the path brings no cyclone) and the reanalysis (covers sold before).
"""

from __future__ import annotations

import datetime as dt
import zlib
from decimal import Decimal

import numpy as np

from activities.providers.base import Target
from models.domain.observations import IBTRACS_WIND, IMD_TMAX, REANALYSIS, ObservationIn

SOURCE = "simulated: calibrated pricing model"


def _month_values(site_model, target_id: str, year: int, month: int) -> dict[str, np.ndarray]:
    from activities.pricing import simulate_index

    first = dt.date(year, month, 1)
    last = (dt.date(year + (month == 12), month % 12 + 1, 1) - dt.timedelta(days=1))
    days = (last - first).days + 1
    seed = zlib.crc32(f"{target_id}:{year}-{month:02d}".encode())
    rng = np.random.default_rng(seed)
    total = float(simulate_index(site_model, "RAINFALL_MONTHLY_TOTAL", first, last, n=32, seed=seed)[0])
    hottest = float(simulate_index(site_model, "TEMPERATURE_MAX", first, last, n=32, seed=seed)[0])
    windiest = float(simulate_index(site_model, "WIND_MAX_SPEED", first, last, n=32, seed=seed)[0])
    wet = rng.random(days) < (0.55 if 6 <= month <= 9 else 0.15)
    if total > 0 and not wet.any():
        wet[rng.integers(days)] = True
    weights = np.where(wet, rng.gamma(0.8, size=days), 0.0)
    rain = total * weights / weights.sum() if weights.sum() > 0 else np.zeros(days)
    peak = rng.integers(days)
    heat = hottest - np.abs(rng.normal(0, 1.5, days))
    heat[peak] = hottest
    calm = max(windiest, 20.0) * rng.uniform(0.25, 0.7, days)
    windy_day = rng.integers(days)
    calm[windy_day] = max(windiest, 20.0)
    cyclone = np.zeros(days)
    cyclone[windy_day] = windiest  # the pricing model's wind: 0 unless a cyclone came
    hours = rng.dirichlet(np.full(24, 0.5), size=days)
    return {"rain": rain, "heat": heat, "wind": calm, "cyclone": cyclone, "hours": hours, "first": first}


def _months(start: dt.date, end: dt.date) -> list[tuple[int, int]]:
    out, y, m = [], start.year, start.month
    while (y, m) <= (end.year, end.month):
        out.append((y, m))
        y, m = (y + 1, 1) if m == 12 else (y, m + 1)
    return out


def _d(x: float, places: str = "0.1") -> Decimal:
    return Decimal(f"{x:.6f}").quantize(Decimal(places))


class SimulatedProvider:
    name = "simulated"

    def __init__(self, site_models) -> None:
        """`site_models`: target id → calibrated SiteModel (activities.site_models)."""
        self._site_models = site_models

    async def fetch(self, targets: list[Target], start: dt.date, end: dt.date) -> list[ObservationIn]:
        rows: list[ObservationIn] = []
        for t in targets:
            model = await self._site_models(t.id)
            for year, month in _months(start, end):
                v = _month_values(model, t.id, year, month)
                for k in range(len(v["rain"])):
                    day = v["first"] + dt.timedelta(days=k)
                    if not start <= day <= end:
                        continue
                    rain = _d(v["rain"][k])
                    common = dict(source=SOURCE, simulated=True)
                    rows.append(ObservationIn(t.id, "IMD-RF-DAILY", "rainfall_mm", day, None, rain, **common))
                    rows.append(ObservationIn(t.id, IMD_TMAX, "temperature_c", day, None, _d(v["heat"][k]), **common))
                    rows.append(ObservationIn(t.id, IBTRACS_WIND, "wind_kmh", day, None, _d(v["cyclone"][k]), **common))
                    rows.append(ObservationIn(t.id, REANALYSIS, "temperature_c", day, None, _d(v["heat"][k]), **common))
                    rows.append(ObservationIn(t.id, REANALYSIS, "wind_kmh", day, None, _d(v["wind"][k]), **common))
                    for h in range(24):
                        rows.append(ObservationIn(t.id, "IMD-RF-HOURLY", "rainfall_mm", day, h,
                                                  _d(float(v["rain"][k]) * v["hours"][k][h], "0.01"), **common))
        return rows
