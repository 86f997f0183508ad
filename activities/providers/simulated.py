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

The source ladder (issue 34, models/domain/settlement_basis.py): IMD's daily rainfall, the
1° maximum temperature and the track wind come **provisional** first (the simulated
real-time product: the path plus a revision noise, `provisional: true`) and **final** once
the month's simulated archive is published (the path itself; models/domain/simulated_archive.py:
40 days after the month, or when the demo publishes it). The reanalysis (`REAN-SFC-HOURLY`,
the fallback rung) carries rainfall too, and its rainfall and temperature are the same path
seen by another product: rain partly shifted by a day (its IST day against IMD's day ending
08:30 IST) with a multiplicative noise and drizzle on dry days; temperature 0.6 °C cooler
with a 0.8 °C noise. Its last 7 days are provisional (ERA5T). The noise has its own seed, so
the path (and every final value) is what it was before the ladder.
"""

from __future__ import annotations

import datetime as dt
import zlib
from decimal import Decimal
from pathlib import Path

import numpy as np

from activities.providers.base import Target
from models.clock import business_today
from models.domain.observations import IBTRACS_WIND, IMD_TMAX, REANALYSIS, ObservationIn
from models.domain.simulated_archive import is_published, published_months

SOURCE = "simulated: calibrated pricing model"  # the final values (the simulated archive) and the hourly rain
REAL_TIME_SOURCE = "simulated: real-time product"  # the model's path + revision noise (provisional)
FALLBACK_SOURCE = "simulated: reanalysis"  # the model's path + the product's own noise
FALLBACK_PROVISIONAL_DAYS = 7  # ERA5T: the reanalysis's last week is provisional (open_meteo.PRELIMINARY_DAYS)


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


def _other_products(v: dict, target_id: str, year: int, month: int) -> dict[str, np.ndarray]:
    """The month's path as the real-time product and the reanalysis see it (own seed: the path
    is untouched). Rain in mm, temperature in °C, wind in km/h; never negative rain or wind."""
    rng = np.random.default_rng(zlib.crc32(f"{target_id}:{year}-{month:02d}:products".encode()))
    rain, heat, cyclone = v["rain"], v["heat"], v["cyclone"]
    days = len(rain)
    real_time_rain = rain * np.exp(rng.normal(0, 0.15, days))
    previous = np.concatenate(([0.0], rain[:-1]))
    drizzle = np.where(rng.random(days) < 0.3, rng.gamma(0.5, 0.6, days), 0.0)
    fallback_rain = (0.75 * rain + 0.25 * previous) * np.exp(rng.normal(0, 0.3, days)) + drizzle
    return {
        "rain": real_time_rain,
        "heat": heat + rng.normal(0, 0.3, days),
        "cyclone": np.where(cyclone > 0, np.maximum(cyclone + rng.normal(0, 4.0, days), 0.0), 0.0),
        "fallback_rain": fallback_rain,
        "fallback_heat": heat - 0.6 + rng.normal(0, 0.8, days),
    }


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

    def __init__(self, site_models, archive_dir: Path | None = None, today: dt.date | None = None) -> None:
        """`site_models`: target id → calibrated SiteModel (activities.site_models);
        `archive_dir`: where the months published early are (simulated_archive.publish);
        `today`: the run's day (which months are archived, which reanalysis days provisional)."""
        self._site_models = site_models
        self._archive_dir = archive_dir
        self._today = today

    async def fetch(self, targets: list[Target], start: dt.date, end: dt.date) -> list[ObservationIn]:
        today = self._today or business_today()
        published = published_months(self._archive_dir)
        rows: list[ObservationIn] = []
        for t in targets:
            model = await self._site_models(t.id)
            for year, month in _months(start, end):
                v = _month_values(model, t.id, year, month)
                o = _other_products(v, t.id, year, month)
                final = is_published(year, month, today, published)
                for k in range(len(v["rain"])):
                    day = v["first"] + dt.timedelta(days=k)
                    if not start <= day <= end:
                        continue
                    rows += _primary_rows(t.id, day, k, v if final else o, final)
                    fallback = dict(source=FALLBACK_SOURCE, simulated=True,
                                    provisional=(today - day).days < FALLBACK_PROVISIONAL_DAYS)
                    rows.append(ObservationIn(t.id, REANALYSIS, "rainfall_mm", day, None, _d(o["fallback_rain"][k]), **fallback))
                    rows.append(ObservationIn(t.id, REANALYSIS, "temperature_c", day, None, _d(o["fallback_heat"][k]), **fallback))
                    rows.append(ObservationIn(t.id, REANALYSIS, "wind_kmh", day, None, _d(v["wind"][k]), **fallback))
                    for h in range(24):
                        rows.append(ObservationIn(t.id, "IMD-RF-HOURLY", "rainfall_mm", day, h,
                                                  _d(float(v["rain"][k]) * v["hours"][k][h], "0.01"), source=SOURCE, simulated=True))
        return rows


def _primary_rows(target_id: str, day: dt.date, k: int, values: dict, final: bool) -> list[ObservationIn]:
    """The day's values of the data sets with a ladder: the archive's (final) or the real-time product's."""
    common = dict(source=SOURCE if final else REAL_TIME_SOURCE, simulated=True, provisional=not final)
    return [
        ObservationIn(target_id, "IMD-RF-DAILY", "rainfall_mm", day, None, _d(values["rain"][k]), **common),
        ObservationIn(target_id, IMD_TMAX, "temperature_c", day, None, _d(values["heat"][k]), **common),
        ObservationIn(target_id, IBTRACS_WIND, "wind_kmh", day, None, _d(values["cyclone"][k]), **common),
    ]
