"""Derive the spatial-scale correction of the rainfall margins: how much more a district or
a point varies, month to month, than the IMD subdivision average the margins are fitted to.

Two real comparisons ("derived only" files: never shipped, only the factors below are):

* Delhi-NCR: IMD 0.25° daily rainfall averaged per district, 23 districts, 2013-2024. Per
  calendar month the coefficient of variation (CV) of each district's monthly totals over
  the 12 years, against the CV of the 23-district mean (an area average of the same days):
  the like-for-like district/area ratio. Also the dry-month frequency (total < 0.05 mm).
* Mumbai: GHCN-Daily Colaba 1901-1970 (complete months) against the KONKAN & GOA
  subdivision series of the same years: the CV ratio, the correlation of the monthly totals
  (basis risk) and how often the station's 1-in-10 month is not one for the subdivision.

Output: ``models/data/calibration/rain_scale.json``: a CV factor for the monsoon (Jun-Sep) and
the other months (median over districts and months, with a 90 % bootstrap band over
districts/years), the shift of logit P(dry month), and the basis-risk figures.

Run: ``.venv/bin/python bench/calibration/rain_scale.py [--data ../shared/data]``.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "models" / "data" / "calibration" / "rain_scale.json"
MONSOON = (6, 7, 8, 9)
DRY_MM = 0.05
BOOT = 400


def delhi_ncr(path: Path):
    """(districts, years, 12) monthly totals, mm."""
    tot = defaultdict(float)
    with gzip.open(path, "rt") as fh:
        for r in csv.DictReader(fh):
            tot[(r["district"], int(r["date"][:4]), int(r["date"][5:7]))] += float(r["rain_mm"] or 0)
    districts = sorted({k[0] for k in tot})
    years = sorted({k[1] for k in tot})
    x = np.array([[[tot[(d, y, m)] for m in range(1, 13)] for y in years] for d in districts])
    return districts, years, x


def cv(a, axis=0):
    with np.errstate(invalid="ignore", divide="ignore"):
        return a.std(axis=axis, ddof=1) / a.mean(axis=axis)


def colaba(path: Path):
    """{(year, month): total mm} of complete months."""
    days, tot = defaultdict(int), defaultdict(float)
    with gzip.open(path, "rt") as fh:
        for r in csv.DictReader(fh):
            v = r["PRCP"].strip()
            if v == "":
                continue
            k = (int(r["DATE"][:4]), int(r["DATE"][5:7]))
            days[k] += 1
            tot[k] += float(v) / 10.0
    import calendar

    return {k: t for k, t in tot.items() if days[k] == calendar.monthrange(*k)[1]}


def subdivision(path: Path, name: str):
    out = {}
    with path.open() as fh:
        for r in csv.DictReader(fh):
            if r["SUBDIVISION"].strip() == name:
                for m, col in enumerate(("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"), 1):
                    if r[col].strip() not in ("", "NA"):
                        out[(int(r["YEAR"]), m)] = float(r[col])
    return out


def logit(p):
    p = np.clip(p, 1e-3, 1 - 1e-3)
    return np.log(p / (1 - p))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    ap.add_argument("--out", default=str(OUT), help="where to write the json (default: the shipped file)")
    args = ap.parse_args()
    d = Path(args.data)
    out_path = Path(args.out)
    rng = np.random.default_rng(20261124)

    districts, years, x = delhi_ncr(d / "imd_rain025_delhi_ncr_district_daily_2013-2024.csv.gz")
    area = x.mean(axis=0)  # (years, 12)

    def factors(xs, area_s):
        ratio = cv(xs, axis=1) / cv(area_s, axis=0)[None, :]  # (districts, 12)
        mons = [m - 1 for m in MONSOON]
        other = [m for m in range(12) if m + 1 not in MONSOON and area_s[:, m].mean() > 5]
        with np.errstate(invalid="ignore", divide="ignore"):
            return float(np.nanmedian(ratio[:, mons])), float(np.nanmedian(ratio[:, other]))

    mon, oth = factors(x, area)
    boots = []
    for _ in range(BOOT):
        yi = rng.integers(0, len(years), len(years))
        di = rng.integers(0, len(districts), len(districts))
        boots.append(factors(x[di][:, yi], area[yi]))
    boots = np.array(boots)
    # dry months: only calendar months in which the area mean itself is sometimes dry carry
    # information on the shift (elsewhere both are ~0); pooled over those months
    sometimes = [m for m in range(12) if 0 < (area[:, m] < DRY_MM).mean() < 1]
    dry_district = float((x[:, :, sometimes] < DRY_MM).mean())
    dry_area = float((area[:, sometimes] < DRY_MM).mean())

    st = colaba(d / "ghcn_daily_IN012070300_bombay_colaba_1901-1970.csv.gz")
    sub = subdivision(d / "rainfall_in_india_1901-2015.csv", "KONKAN & GOA")
    pairs = defaultdict(list)
    for k, v in st.items():
        if k in sub:
            pairs[k[1]].append((v, sub[k]))
    mumbai_ratio, corr_m, corr_o, miss_x, miss_d = {}, [], [], [], []
    for m, pv in sorted(pairs.items()):
        a = np.array(pv)
        if len(a) < 30 or a[:, 1].mean() < 5:
            continue
        mumbai_ratio[m] = float(cv(a[:, 0]) / cv(a[:, 1]))
        r = float(np.corrcoef(a[:, 0], a[:, 1])[0, 1])
        (corr_m if m in MONSOON else corr_o).append(r)
        if m in MONSOON:
            hi_s, hi_a = np.quantile(a[:, 0], 0.9), np.quantile(a[:, 1], 0.9)
            lo_s, lo_a = np.quantile(a[:, 0], 0.1), np.quantile(a[:, 1], 0.1)
            loss = a[:, 0] >= hi_s
            miss_x.append(((a[loss, 1] < hi_a).sum(), loss.sum()))
            loss = a[:, 0] <= lo_s
            miss_d.append(((a[loss, 1] > lo_a).sum(), loss.sum()))
    px = sum(k for k, _ in miss_x) / sum(n for _, n in miss_x)
    pd = sum(k for k, _ in miss_d) / sum(n for _, n in miss_d)
    mum_mon = float(np.median([mumbai_ratio[m] for m in MONSOON if m in mumbai_ratio]))

    out = {
        "source": "IMD 0.25° gridded daily rainfall per district, 23 Delhi-NCR districts 2013-2024 (Pai et al. 2014); "
        "GHCN-Daily Bombay Colaba 1901-1970 (Menne et al. 2012) against IMD subdivision KONKAN & GOA",
        "method": "CV of a district's monthly totals / CV of the 23-district area mean, same years, median over "
        f"districts and months (monsoon Jun-Sep; other months with area mean > 5 mm); 90 % band from {BOOT} "
        "bootstrap resamples of years and districts. Colaba/KONKAN & GOA CV ratio checks the monsoon factor. "
        "Dry-month shift: logit of the district dry-month frequency minus that of the area mean, pooled over "
        "the calendar months in which the area mean is sometimes dry (elsewhere neither is).",
        "cv_factor": {"monsoon": round(mon, 3), "other": round(oth, 3)},
        "cv_factor_band": {
            "monsoon": [round(float(np.quantile(boots[:, 0], q)), 3) for q in (0.05, 0.95)],
            "other": [round(float(np.quantile(boots[:, 1], q)), 3) for q in (0.05, 0.95)],
        },
        "logit_p0_shift": round(float(logit(dry_district) - logit(dry_area)), 3),
        "dry_month_frequency": {"district": round(float(dry_district), 4), "area_mean": round(float(dry_area), 4)},
        "mumbai_colaba_cv_ratio_monsoon": round(mum_mon, 3),
        "basis_risk": {
            "correlation_point_vs_subdivision": {
                "monsoon": round(float(np.mean(corr_m)), 3),
                "other": round(float(np.mean(corr_o)), 3),
            },
            "p_no_payout_given_local_loss_excess": round(px, 3),
            "p_no_payout_given_local_loss_deficit": round(pd, 3),
            "note": "Colaba vs KONKAN & GOA, 1901-1970, monsoon months, 1-in-10 levels of each series",
        },
    }
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(json.dumps(out, indent=1) + "\n")
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
