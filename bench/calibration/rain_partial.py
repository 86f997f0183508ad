"""Derive the time-scale law of partial months: how a rainfall total over part of a calendar
month varies, relative to the whole month's.

Rain over half a month is more variable than half the month's rain, and more often nil: a
cover on 1-15 July is not half of a July cover. From real daily series ("derived only"
files: never shipped, only the table below is):

* IMD 0.25° daily rainfall averaged per district, 23 Delhi-NCR districts, 2013-2024;
* GHCN-Daily Bombay Colaba 1901-1970 (complete months).

For each series and calendar month with at least 10 complete years and 5 wet months, and for
each day fraction ``f`` = 0.1 … 0.9 (``d = round(f n)`` days of an ``n``-day month, taken from
the start and from the end of the month: a quote starting or ending mid-month), over the years:

* ``log(CV(T_f) / CV(T_1))``: the log ratio of the coefficients of variation of the partial
  total and of the month total;
* ``pi(f) = P(T_f < 0.05 mm | T_1 >= 0.05 mm)``: a wet month's partial period is dry.

Both pooled per season (monsoon Jun-Sep, other months), weighted by the series-month's number
of wet years. The power law ``CV_f / CV_1 = f^-h`` summarises the first (``h`` by weighted
least squares through the origin), and a 90 % band on ``h`` comes from a bootstrap over the
series-months. The pricing model interpolates the tables linearly in ``f`` (``f = 1``:
ratio 1, ``pi = 0``; ``f = 0``: ``pi = 1``), see :mod:`activities.pricing.rainfall`.

Output: ``models/data/calibration/rain_partial.json``.
Run: ``.venv/bin/python bench/calibration/rain_partial.py [--data ../shared/data] [--out F]``.
"""

from __future__ import annotations

import argparse
import calendar
import csv
import gzip
import json
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "models" / "data" / "calibration" / "rain_partial.json"
MONSOON = (6, 7, 8, 9)
DRY_MM = 0.05
FRACTIONS = tuple(round(i / 10, 1) for i in range(1, 10))
MIN_YEARS, MIN_WET = 10, 5
BOOT = 400


def delhi_ncr(path: Path) -> dict[str, dict[str, float]]:
    """district -> {iso date: mm}."""
    out: dict[str, dict[str, float]] = defaultdict(dict)
    with gzip.open(path, "rt") as fh:
        for r in csv.DictReader(fh):
            out[r["district"]][r["date"]] = float(r["rain_mm"] or 0)
    return out


def colaba(path: Path) -> dict[str, dict[str, float]]:
    """{"Colaba": {iso date: mm}} (GHCN PRCP is in tenths of mm; blank = missing)."""
    days: dict[str, float] = {}
    with gzip.open(path, "rt") as fh:
        for r in csv.DictReader(fh):
            v = r["PRCP"].strip()
            if v:
                days[r["DATE"]] = float(v) / 10.0
    return {"Colaba": days}


def complete_months(series: dict[str, dict[str, float]]):
    """(series, month) -> list of daily arrays, one per complete year-month."""
    out = defaultdict(list)
    for name, days in series.items():
        for y in sorted({int(k[:4]) for k in days}):
            for m in range(1, 13):
                n = calendar.monthrange(y, m)[1]
                vals = [days.get(f"{y:04d}-{m:02d}-{i:02d}") for i in range(1, n + 1)]
                if None not in vals:
                    out[(name, m)].append(np.array(vals))
    return out


def series_month_stats(months) -> list[tuple[str, np.ndarray, np.ndarray, int]]:
    """Per usable series-month: (season, log CV ratio per fraction, pi per fraction, wet years)."""
    rows = []
    for (_, m), arrs in sorted(months.items()):
        t1 = np.array([a.sum() for a in arrs])
        wet = t1 >= DRY_MM
        if len(arrs) < MIN_YEARS or wet.sum() < MIN_WET:
            continue
        cv1 = t1.std(ddof=1) / t1.mean()
        logr, pi = [], []
        for f in FRACTIONS:
            lr, pp = [], []
            for head in (True, False):
                tf = np.array([(a[: max(1, round(f * a.size))] if head else a[a.size - max(1, round(f * a.size)) :]).sum() for a in arrs])
                if tf.mean() > 0:
                    lr.append(np.log(tf.std(ddof=1) / tf.mean() / cv1))
                pp.append(float((tf[wet] < DRY_MM).mean()))
            logr.append(np.mean(lr) if lr else np.nan)
            pi.append(np.mean(pp))
        rows.append(("monsoon" if m in MONSOON else "other", np.array(logr), np.array(pi), int(wet.sum())))
    return rows


def pooled(rows, season: str):
    sel = [r for r in rows if r[0] == season]
    w = np.array([r[3] for r in sel], dtype=float)
    lr = np.array([r[1] for r in sel])
    pi = np.array([r[2] for r in sel])
    ok = ~np.isnan(lr)
    logr = np.array([np.average(lr[ok[:, j], j], weights=w[ok[:, j]]) for j in range(len(FRACTIONS))])
    p = np.average(pi, axis=0, weights=w)
    x = -np.log(np.array(FRACTIONS))
    h = float((x * logr).sum() / (x * x).sum())
    return logr, p, h, len(sel)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    ap.add_argument("--out", default=str(OUT), help="where to write the json (default: the shipped file)")
    args = ap.parse_args()
    d = Path(args.data)
    series = delhi_ncr(d / "imd_rain025_delhi_ncr_district_daily_2013-2024.csv.gz")
    series.update(colaba(d / "ghcn_daily_IN012070300_bombay_colaba_1901-1970.csv.gz"))
    rows = series_month_stats(complete_months(series))
    rng = np.random.default_rng(20261124)
    out = {
        "source": "IMD 0.25\u00b0 gridded daily rainfall per district, 23 Delhi-NCR districts 2013-2024 "
        "(Pai et al. 2014); GHCN-Daily Bombay Colaba 1901-1970 (Menne et al. 2012)",
        "method": "per series and calendar month (>= 10 complete years, >= 5 wet months), the first and the last "
        "round(f n) days of each month: log(CV partial / CV month) and P(partial < 0.05 mm | month wet), "
        "averaged over the two ends, pooled per season weighted by wet years; h = weighted LS slope of the log "
        f"ratio on -log f through the origin, 90 % band from {BOOT} bootstrap resamples of series-months",
        "fractions": list(FRACTIONS),
    }
    for season in ("monsoon", "other"):
        logr, pi, h, n = pooled(rows, season)
        sel = [r for r in rows if r[0] == season]
        boots = [pooled([sel[i] for i in rng.integers(0, len(sel), len(sel))], season)[2] for _ in range(BOOT)]
        out[season] = {
            "cv_ratio": [round(float(np.exp(v)), 3) for v in logr],
            "p_dry_given_wet_month": [round(float(v), 3) for v in pi],
            "h": round(h, 3),
            "h_band": [round(float(np.quantile(boots, q)), 3) for q in (0.05, 0.95)],
            "series_months": n,
        }
    out_path = Path(args.out)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(json.dumps(out, indent=1) + "\n")
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
