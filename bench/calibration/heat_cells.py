"""Derive the heat model's parameters per IMD 1° cell from the gridded daily maximum
temperature record, and check them against the record.

Input: ``imd_tmax_1deg_daily_1951-2024.csv.gz`` (IMD 1° gridded daily Tmax, Srivastava et al.
2009; "derived only": the file is never shipped, only what this script writes).
Output: ``models/data/calibration/heat_cells.csv`` and ``heat_partial.json``.

Per cell and calendar month, the monthly maximum of daily Tmax M_y (°C; months with more
than 3 missing days are skipped) is fitted as

    M_y = level_2024 + slope (y - 2024) + e_y,   e_y ~ Normal(0, resid_sd)

with the OLS slope shrunk by max(0, 1 - 1/t^2) (t its t-statistic: noise is dropped, a clear
warming trend kept) and the level refitted with that slope. ``heat_partial.json`` holds the
exponent theta of P(max over a fraction f of the month <= x) = F(x)^(f^theta), pooled over
cells and months at the month's 1-in-10 level (daily Tmax is autocorrelated: theta < 1).

Run: ``.venv/bin/python bench/calibration/heat_cells.py [--data ../shared/data]``; it prints
the validation (observed 1995-2024 exceedances of each year's 1-in-10 and 1-in-50 levels)
that docs/pricing-model.md quotes.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
from pathlib import Path

import numpy as np
from scipy.optimize import brentq
from scipy.stats import binomtest, norm

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "models" / "data" / "calibration"
REF_YEAR = 2024
MAX_MISSING_DAYS = 3
PANEL = {  # city: (lat, lon)
    "Delhi": (28.61, 77.21), "Chennai": (13.08, 80.27), "Mumbai": (19.08, 72.88), "Bengaluru": (12.97, 77.59),
    "Jaipur": (26.91, 75.79), "Kolkata": (22.57, 88.36), "Guwahati": (26.14, 91.74), "Puri": (19.81, 85.83),
    "Shimla": (31.10, 77.17),
}


def load(path: Path):
    with gzip.open(path, "rt") as fh:
        header = fh.readline().strip().split(",")[1:]
        dates, rows = [], []
        for line in fh:
            parts = line.rstrip("\n").split(",")
            dates.append(parts[0])
            rows.append([float(v) if v else np.nan for v in parts[1:]])
    d = np.array(dates, dtype="datetime64[D]")
    return header, d, np.array(rows)


def monthly_maxima(d, x):
    """(years, 12, cells) monthly maxima, NaN where too many days are missing; and the years."""
    years = d.astype("datetime64[Y]").astype(int) + 1970
    months = d.astype("datetime64[M]").astype(int) % 12
    ys = np.arange(years.min(), years.max() + 1)
    out = np.full((ys.size, 12, x.shape[1]), np.nan)
    first15 = np.full_like(out, np.nan)
    day = (d - d.astype("datetime64[M]")).astype(int) + 1
    for i, y in enumerate(ys):
        for m in range(12):
            sel = (years == y) & (months == m)
            block = x[sel]
            if not block.size:
                continue
            missing = np.isnan(block).sum(axis=0)
            with np.errstate(all="ignore"):
                mx = np.nanmax(np.where(np.isnan(block), -np.inf, block), axis=0)
                f15 = np.nanmax(np.where(np.isnan(block[day[sel] <= 15]), -np.inf, block[day[sel] <= 15]), axis=0)
            ok = missing <= MAX_MISSING_DAYS
            out[i, m, ok] = mx[ok]
            first15[i, m, ok] = f15[ok]
    return ys, out, first15


def fit(ys, v):
    ok = ~np.isnan(v)
    y, m = ys[ok].astype(float), v[ok]
    yc = y - y.mean()
    b = (yc * (m - m.mean())).sum() / (yc**2).sum()
    resid = m - m.mean() - b * yc
    se = np.sqrt((resid**2).sum() / (y.size - 2) / (yc**2).sum())
    t = b / se if se > 0 else 0.0
    bs = b * max(0.0, 1 - 1 / (t * t)) if t else 0.0
    level_mean = m.mean()  # at the mean year
    level_ref = level_mean + bs * (REF_YEAR - y.mean())
    sd = float(np.sqrt(((m - (level_mean + bs * yc)) ** 2).sum() / (y.size - 2)))
    return int(y.size), float(level_ref), float(bs), float(t), sd


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    args = ap.parse_args()
    cells, d, x = load(Path(args.data) / "imd_tmax_1deg_daily_1951-2024.csv.gz")
    ys, mm, f15 = monthly_maxima(d, x)
    rows, params = [], {}
    for c, cell in enumerate(cells):
        lat = float(cell.split("N_")[0])
        lon = float(cell.split("N_")[1].rstrip("E"))
        for m in range(12):
            n, level, slope, t, sd = fit(ys, mm[:, m, c])
            params[(c, m)] = (level, slope, sd)
            rows.append([cell, lat, lon, m + 1, n, round(level, 3), round(slope, 5), round(t, 2), round(sd, 3)])
    OUT.mkdir(parents=True, exist_ok=True)
    with (OUT / "heat_cells.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["cell_id", "lat", "lon", "month", "n_years", "level_2024_c", "slope_c_per_year", "slope_t", "resid_sd_c"])
        w.writerows(rows)

    # partial months: the first 15 days against the month's 1-in-10 level, pooled
    hit15, hitm, n = 0, 0, 0
    resid = []
    for (c, m), (level, slope, sd) in params.items():
        q = level + slope * (ys - REF_YEAR) + sd * norm.ppf(0.9)
        ok = ~np.isnan(mm[:, m, c]) & ~np.isnan(f15[:, m, c])
        hit15 += int((f15[ok, m, c] >= q[ok]).sum())
        hitm += int((mm[ok, m, c] >= q[ok]).sum())
        n += int(ok.sum())
        e = (mm[ok, m, c] - (level + slope * (ys[ok] - REF_YEAR))) / sd
        resid.append(e)
    resid = np.concatenate(resid)
    p15, pm = hit15 / n, hitm / n
    f = 15 / 30.4
    theta = brentq(lambda th: 1 - (1 - pm) ** (f**th) - p15, 0.01, 3.0)
    (OUT / "heat_partial.json").write_text(
        json.dumps(
            {
                "exponent": round(theta, 3),
                "method": (
                    "P(max over the first 15 days >= the month's 1-in-10 level) pooled over all cells and "
                    f"months 1951-2024 ({p15:.4f}; whole month {pm:.4f}) solved for theta in "
                    "1 - (1 - p_month)^(f^theta), f = 15/30.4"
                ),
            },
            indent=1,
        )
        + "\n"
    )
    skew = float(((resid - resid.mean()) ** 3).mean() / resid.std() ** 3)
    print(f"cells {len(cells)}; pooled standardised residual skewness {skew:.3f}; "
          f"P(e > 1.2816) = {(resid > norm.ppf(0.9)).mean():.4f} (normal 0.1000), "
          f"P(e > 2.0537) = {(resid > norm.ppf(0.98)).mean():.4f} (normal 0.0200)")
    print(f"partial months: first-15-day exceedance {p15:.4f}, month {pm:.4f}: theta = {theta:.3f}")

    # validation on the panel, 1995-2024
    lat_lon = np.array([[float(c.split("N_")[0]), float(c.split("N_")[1].rstrip("E"))] for c in cells])
    recent = (ys >= 1995) & (ys <= 2024)
    tot10 = tot50 = tot_n = 0
    print("city       cell        km   months with 1-in-10 exceedances in 1995-2024 (expected 3.0 each; * p<0.05)")
    for city, (la, lo) in PANEL.items():
        dist = 111.2 * np.hypot(lat_lon[:, 0] - la, (lat_lon[:, 1] - lo) * np.cos(np.radians(la)))
        c = int(np.argmin(dist))
        counts = []
        for m in range(12):
            level, slope, sd = params[(c, m)]
            mu = level + slope * (ys - REF_YEAR)
            ok = recent & ~np.isnan(mm[:, m, c])
            k10 = int((mm[ok, m, c] >= mu[ok] + sd * norm.ppf(0.9)).sum())
            k50 = int((mm[ok, m, c] >= mu[ok] + sd * norm.ppf(0.98)).sum())
            tot10, tot50, tot_n = tot10 + k10, tot50 + k50, tot_n + int(ok.sum())
            p = binomtest(k10, int(ok.sum()), 0.1).pvalue
            counts.append(f"{k10}{'*' if p < 0.05 else ''}")
        print(f"{city:10s} {cells[c]:11s} {dist[c]:4.0f}  {' '.join(counts)}")
    print(f"pooled panel: 1-in-10 {tot10}/{tot_n} = {tot10 / tot_n:.3f} (p={binomtest(tot10, tot_n, 0.1).pvalue:.2f}); "
          f"1-in-50 {tot50}/{tot_n} = {tot50 / tot_n:.3f} (p={binomtest(tot50, tot_n, 0.02).pvalue:.2f})")


if __name__ == "__main__":
    main()
