"""Check the hotel-rain model's diurnal shape (Beijing's hourly structure) against one week of
IMD automatic stations and rain gauges (30 Aug - 5 Sep 2018, monsoon; "tests and checks only,
do not ship": nothing from it enters the product).

Prints the share of rain falling between 08:00 and 20:00 local time (the hotel index's
window): IMD stations in IST (UTC + 5:30), against the Beijing record (local time) that the
model's diurnal cycle comes from, over all its wet hours and over its monsoon months (Jul-Aug).

Run: ``.venv/bin/python bench/calibration/diurnal_check.py [--data ../shared/data]``.
"""

from __future__ import annotations

import argparse
import csv
import gzip
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def imd_daytime_share(path: Path) -> tuple[float, int]:
    """Share of hourly rain (mm) whose hour ends within 08:00-20:00 IST, and station count."""
    by_hour = defaultdict(float)
    stations = set()
    with gzip.open(path, "rt") as fh:
        for r in csv.DictReader(fh):
            v = (r["RAIN HOURLY CUMULATIVE (mm)"] or "").strip()
            try:
                mm = float(v)
            except ValueError:
                continue
            if not 0 <= mm < 300:
                continue
            h_utc = int(r["TIME (UTC)"][:2])
            ist_end = (h_utc * 60 + 330) / 60.0  # hour ending, IST, fractional (xx:30)
            by_hour[ist_end % 24] += mm
            stations.add((r["STATION"], r["DISTRICT"]))
    total = sum(by_hour.values())
    day = sum(v for h, v in by_hour.items() if 8 < h <= 20)
    return day / total, len(stations)


def beijing_daytime_share(path: Path, months: set[int] | None = None) -> float:
    day = total = 0.0
    with path.open() as fh:
        for r in csv.DictReader(fh):
            if r["RAIN"] in ("", "NA") or (months and int(r["month"]) not in months):
                continue
            mm = float(r["RAIN"])
            total += mm
            if 8 <= int(r["hour"]) < 20:
                day += mm
    return day / total


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    d = Path(ap.parse_args().data)
    share, n = imd_daytime_share(d / "imd_aws_arg_hourly_2018-08-30_2018-09-05.csv.gz")
    beijing = d / "beijing_aotizhongxin_hourly_weather_2013-2017.csv"
    print(f"IMD AWS/ARG, {n} stations, 30 Aug-5 Sep 2018: {share:.1%} of rain fell 08-20 IST")
    print(f"Beijing Aotizhongxin 2013-2017: {beijing_daytime_share(beijing):.1%} (all months), "
          f"{beijing_daytime_share(beijing, {7, 8}):.1%} (Jul-Aug) fell 08-20 local time")


if __name__ == "__main__":
    main()
