"""Triggers with meaning (issue 26, finding 4): the evidence behind the rule of
:mod:`activities.pricing.triggers` and what it does to the covers the issue names.

1. Two gauges of one city (GHCN-Daily Bombay Colaba and Mumbai Santacruz, about 24 km apart,
   complete months of 1949-1970; "derived only": nothing of it ships): per calendar month, the
   mean totals and the correlation of the two gauges' monthly totals. In the months whose
   totals are a millimetre or two, the two gauges do not agree on the month: a trigger there
   is not a measurement of the weather.
2. The monthly rainfall covers (excess, deficit) of the nine reference pin codes (Delhi,
   Chennai, Mumbai, Bengaluru, Jaipur, Kolkata, Guwahati, Puri, Shimla), every month of 2027:
   the terms of the old engine (pricing-2026.3.1, frozen) with its expected loss and burn cost
   (% of the limit: the record taken to the cell scale as that engine did, and the record as
   the area average it is, scaled to the district normal), beside what the live engine proposes (terms, or why not offered). The
   covers the issue names are marked with *.

Run: ``.venv/bin/python bench/calibration/trigger_rules.py [--data ../shared/data] [--all]``
(``--all``: every cover of the panel, not only those whose offer or terms changed).
"""

from __future__ import annotations

import argparse
import calendar
import csv
import gzip
import sys
from collections import defaultdict
from datetime import date
from decimal import Decimal
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

PINS = {
    "Delhi": "110001", "Chennai": "600001", "Mumbai": "400001", "Bengaluru": "560001", "Jaipur": "302001",
    "Kolkata": "700001", "Guwahati": "781001", "Puri": "752001", "Shimla": "171001",
}
# (city, index, months) the issue names (finding 4)
NAMED = {
    ("Mumbai", "RAINFALL_MONTHLY_TOTAL"): (1, 2, 3, 4),
    ("Chennai", "RAINFALL_DEFICIT"): (1, 3),
    ("Guwahati", "RAINFALL_DEFICIT"): (11, 12, 1),
    ("Bengaluru", "RAINFALL_DEFICIT"): (3,),
    ("Jaipur", "RAINFALL_DEFICIT"): (5, 6, 9),
    ("Kolkata", "RAINFALL_DEFICIT"): (2, 3),
    ("Delhi", "RAINFALL_DEFICIT"): (5, 6, 9),
    ("Puri", "RAINFALL_DEFICIT"): (3,),
}
YEAR = 2027
LIMIT = Decimal("100000")
N, SEED = 1 << 14, 20261126


def gauge_months(path: Path, last_year: int) -> dict[tuple[int, int], float]:
    days: dict[str, float] = {}
    with gzip.open(path, "rt") as fh:
        for r in csv.DictReader(fh):
            v = r["PRCP"].strip()
            if v and int(r["DATE"][:4]) <= last_year:
                days[r["DATE"]] = float(v) / 10.0
    months: dict[tuple[int, int], list[float]] = defaultdict(list)
    for k, v in days.items():
        months[(int(k[:4]), int(k[5:7]))].append(v)
    return {k: sum(v) for k, v in months.items() if len(v) == calendar.monthrange(*k)[1]}


def gauges(data: Path) -> None:
    colaba = gauge_months(data / "ghcn_daily_IN012070300_bombay_colaba_1901-1970.csv.gz", 1970)
    santacruz = gauge_months(data / "ghcn_daily_IN012070800_mumbai_santacruz_1949-2019.csv.gz", 1970)
    both = sorted(set(colaba) & set(santacruz))
    print(f"Colaba and Santacruz, {len(both)} months with both complete ({both[0][0]}-{both[-1][0]})")
    print("month  years  mean Colaba  mean Santacruz  correlation")
    for m in range(1, 13):
        keys = [k for k in both if k[1] == m]
        a = np.array([colaba[k] for k in keys])
        b = np.array([santacruz[k] for k in keys])
        r = np.corrcoef(a, b)[0, 1] if a.std() > 0 and b.std() > 0 else float("nan")
        print(f"{m:5d}  {len(keys):5d}  {a.mean():11.1f}  {b.mean():14.1f}  {r:11.2f}")


def terms_text(p) -> str:
    if p.terms is None:
        return f"not offered: {p.reason}"
    return f"trigger {p.terms.trigger:g}, exit {p.terms.exit:g} (P attach {p.trigger_probability:.3f})"


def covers(show_all: bool) -> None:
    from activities import pricing as live
    from activities.pricing.frozen import engine_for
    from models.settings import DATA_DIR

    old = engine_for("pricing-2026.3.1")
    c_new, c_old = live.load_climate_data(DATA_DIR), old.load_climate_data(DATA_DIR)
    changed = offered_before = offered_now = 0
    for city, pin in PINS.items():
        s_new, s_old = live.pincode_site(c_new, pin), old.pincode_site(c_old, pin)
        m_new = live.build_site_model(c_new, s_new.query_district, s_new.query_state, s_new.latitude, s_new.longitude)
        m_old = old.build_site_model(c_old, s_old.query_district, s_old.query_state, s_old.latitude, s_old.longitude)
        for code in ("RAINFALL_MONTHLY_TOTAL", "RAINFALL_DEFICIT"):
            for month in range(1, 13):
                start, end = date(YEAR, month, 1), date(YEAR, month, calendar.monthrange(YEAR, month)[1])
                p_old = old.propose_terms(m_old, code, start, end, LIMIT)
                p_new = live.propose_terms(m_new, code, start, end, LIMIT)
                offered_before += p_old.viable
                offered_now += p_new.viable
                named = month in NAMED.get((city, code), ())
                moved = p_old.viable != p_new.viable
                changed += moved
                if not (show_all or moved or named):
                    continue
                figures = ""
                if p_old.terms is not None:
                    priced = old.price_cover(m_old, p_old.terms, n=N, seed=SEED)
                    burn = old.burn_analysis(m_old, p_old.terms, priced)
                    area = np.array(list(old.historical_index(m_old, code, start, end).values()))
                    area_burn = float(np.mean(old.payout(p_old.terms, area))) / float(LIMIT)
                    figures = (f"; EL {priced.risk_premium_rate * 100:.1f} %, burn on the cell scale "
                               f"{burn.burn_cost_rate * 100:.1f} %, on the area average {area_burn * 100:.1f} %")
                kind = "excess" if code == "RAINFALL_MONTHLY_TOTAL" else "deficit"
                print(f"{'*' if named else ' '} {city:9s} {kind:7s} {calendar.month_abbr[month]}: "
                      f"old {terms_text(p_old)}{figures}\n{'':23s}now {terms_text(p_new)}")
    print(f"monthly rainfall covers of the panel: {offered_before} offered before, {offered_now} now "
          f"({changed} changed)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    ap.add_argument("--all", action="store_true")
    args = ap.parse_args()
    gauges(Path(args.data))
    covers(args.all)


if __name__ == "__main__":
    main()
