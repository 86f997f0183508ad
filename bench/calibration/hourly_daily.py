"""Fit the hotel-rain model's wet-hour persistence to Indian daily records, and check the
hotel index of a dry-season city (Delhi in January) against them.

The hourly rain model (:mod:`activities.pricing.hourly`) takes its structure from the only
clean-licence hourly series, Beijing 2013-2017, and its amounts from the target's monthly
model. Its lag-1 persistence of wet hours (Beijing: r = 0.670) decides how a month's rain is
spread over days: too little persistence spreads it over many short showers, and a day rarely
collects the 10-40 mm a hotel cover triggers on. Indian daily records show how a month's rain
falls into days; hourly records in India we do not have (the one week of IMD automatic
stations is a check, never shipped). So:

* Fit: for each complete month of the daily series, the hourly model is driven by that
  month's observed total (``REPLICATES`` simulated months each, common random numbers), its
  hours summed into IMD's days (08:00-08:00 local, the 24 h ending 08:30 IST); the
  persistence ``r`` per season (Jun-Sep, other months) minimises the squared log ratio of the
  simulated to the observed frequency of days at or above ``THRESHOLDS`` mm. Fit series:
  IMD 0.25 deg gridded daily rainfall averaged per district, 23 Delhi-NCR districts, 2013-2024
  (the settlement grid's product).
* Checks, printed: GHCN-Daily Bombay Colaba (1901-1970) and Mumbai Santacruz (1949-2004: from
  about 2005 its dry days are missing), two point gauges, with the fitted r; and the daytime
  share of wet days in the one IMD week of hourly stations (2018, "do not ship": printed only).
* Delhi in January, the hotel index (rain between 08:00 and 20:00): the daily-record estimate
  of P(a day's daytime rain >= 5, 10, 20 mm) = P(S D >= x), D a January day of the Delhi-NCR
  districts' record (all 23: the three Delhi districts alone hold 34 Januaries, too few for
  20 mm; printed beside it) and S the daytime share of a wet day's rain, drawn independently from the
  Beijing record's wet days (>= 1 mm; U-shaped: a day's rain mostly falls by day or by night;
  mean 0.44, as the India check measured); the fixed share 0.442 (a lower bound: it never puts
  a whole day's rain in the day) is printed beside it. A 90 % band of the estimate comes from
  resampling the record's years (``BOOT`` resamples). The hourly model driven by the record's
  own January totals is compared with it.
* The estimate given the month's total: the record's Januaries in ``BINS`` bins of their total
  (equal counts of wet months; dry months pay nothing), each bin's rate of days reaching the
  triggers. Averaged over a model's distribution of January totals, it is what the daily
  record implies at the model's monthly level: the hourly model is answerable for how a
  month's rain falls into days, the monthly model (normal, trend, cell scale) for how much
  falls. The 2013-2024 Januaries (23.7 mm on average) are wetter than the model's (the
  district normal projected by the subdivision's trend); the table is shipped so that a test
  can check the hotel index at Delhi against the record without the record.

Output: ``models/data/calibration/hourly_daily.json`` (parameters and statistics only: the
records are "derived only" and are not shipped). Deterministic (fixed seeds).
Run: ``.venv/bin/python bench/calibration/hourly_daily.py [--data ../shared/data] [--out F]``.
"""

from __future__ import annotations

import argparse
import calendar
import csv
import dataclasses
import datetime as dt
import gzip
import json
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from activities.pricing.climate_data import HOURLY_FILE, _load_hourly  # noqa: E402
from activities.pricing.hourly import HourlyRainModel, fit_hourly_model  # noqa: E402

OUT = ROOT / "models" / "data" / "calibration" / "hourly_daily.json"
MONSOON = (6, 7, 8, 9)
THRESHOLDS = (2.5, 5.0, 10.0, 20.0, 40.0)  # mm a day: IMD's rainy day up to heavy rain
HOTEL_TRIGGERS = (5.0, 10.0, 20.0)  # mm of daytime rain: the travel surface's covers
REPLICATES = 32
SEED = 20261126
GRID = tuple(round(0.50 + 0.01 * i, 2) for i in range(46))  # r = 0.50 ... 0.95
DAY_START_HOUR = 8  # IMD's day: the 24 h ending 08:30 IST
FIXED_SHARE = 0.442  # the India check (docs/pricing-model.md): 44.2 % of the rain fell 08-20 IST
BINS = 8
DELHI = ("North East Delhi", "North West Delhi", "South East Delhi", "West")
SHARE_DRAWS = 4096
BOOT = 400


def delhi_ncr(path: Path) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = defaultdict(dict)
    with gzip.open(path, "rt") as fh:
        for r in csv.DictReader(fh):
            out[r["district"]][r["date"]] = float(r["rain_mm"] or 0)
    return out


def ghcn(path: Path, last_year: int = 9999) -> dict[str, float]:
    """{iso date: mm} (PRCP in tenths of mm; blank = missing), up to ``last_year``."""
    days: dict[str, float] = {}
    with gzip.open(path, "rt") as fh:
        for r in csv.DictReader(fh):
            v = r["PRCP"].strip()
            if v and int(r["DATE"][:4]) <= last_year:
                days[r["DATE"]] = float(v) / 10.0
    return days


def complete_months(days: dict[str, float]) -> list[tuple[int, int, np.ndarray]]:
    """(year, month, daily mm) of every month with all its days."""
    out = []
    for y in sorted({int(k[:4]) for k in days}):
        for m in range(1, 13):
            n = calendar.monthrange(y, m)[1]
            vals = [days.get(f"{y:04d}-{m:02d}-{i:02d}") for i in range(1, n + 1)]
            if None not in vals:
                out.append((y, m, np.array(vals)))
    return out


def simulated_days(model: HourlyRainModel, months, seed: int) -> np.ndarray:
    """Daily totals (IMD days, 08-08) of the hourly model driven by each month's observed
    total, ``REPLICATES`` times; months of one length are simulated together."""
    rng = np.random.default_rng(seed)
    out = []
    by_len = defaultdict(list)
    for _, _, d in months:
        by_len[d.size].append(d.sum())
    for n in sorted(by_len):
        totals = np.repeat(np.array(by_len[n]), REPLICATES)
        hours = model.simulate_hours(totals, n, rng)  # (n * 24, paths)
        h = hours[DAY_START_HOUR : DAY_START_HOUR + (n - 1) * 24]
        out.append(h.reshape(n - 1, 24, -1).sum(axis=1, dtype=np.float64).ravel())
    return np.concatenate(out)


def exceedance(x: np.ndarray, thresholds=THRESHOLDS) -> np.ndarray:
    return np.array([(x >= t).mean() for t in thresholds])


def with_persistence(model: HourlyRainModel, r: float) -> HourlyRainModel:
    return dataclasses.replace(model, persistence=float(r), persistence_by_month=None)


def fit_season(model: HourlyRainModel, months, seed: int) -> tuple[float, dict]:
    """The r of ``GRID`` minimising the squared log ratio of exceedance frequencies."""
    observed = exceedance(np.concatenate([d for _, _, d in months]))
    losses = {}
    for r in GRID:
        sim = exceedance(simulated_days(with_persistence(model, r), months, seed))
        losses[r] = float(np.sum(np.log(np.maximum(sim, 1e-9) / observed) ** 2))
    best = min(losses, key=losses.get)
    return best, {"observed": observed.tolist(), "loss": losses}


def beijing_day_shares(model_station) -> np.ndarray:
    """Daytime (08-20) share of each Beijing wet day's rain (IMD-style day 08-08, >= 1 mm)."""
    st = model_station
    tot: dict = defaultdict(float)
    day: dict = defaultdict(float)
    for y, m, d, h, r in zip(st.year, st.month, st.day, st.hour, st.rain_mm):
        if np.isnan(r):
            continue
        k = (dt.datetime(int(y), int(m), int(d), int(h)) - dt.timedelta(hours=DAY_START_HOUR)).date()
        tot[k] += r
        if DAY_START_HOUR <= h < 20:
            day[k] += r
    return np.sort(np.array([day[k] / tot[k] for k in sorted(tot) if tot[k] >= 1.0]))


def daytime_estimate(days: np.ndarray, shares: np.ndarray) -> list[float]:
    """P(S D >= x) for the hotel triggers, S independent of D (module docstring); ``shares``
    sorted."""
    d = days[days > 0]
    out = []
    for x in HOTEL_TRIGGERS:
        below = np.searchsorted(shares, x / d, side="left")  # shares < x / d
        out.append(float((shares.size - below).sum() / shares.size / days.size))
    return out


def year_band(months, shares: np.ndarray, seed: int) -> list[list[float]]:
    """5-95 % band of the daily-record estimate over resamples of the record's years."""
    by_year = defaultdict(list)
    for y, _, d in months:
        by_year[y].append(d)
    years = sorted(by_year)
    rng = np.random.default_rng(seed)
    reps = []
    for _ in range(BOOT):
        pick = rng.choice(years, len(years))
        reps.append(daytime_estimate(np.concatenate([d for y in pick for d in by_year[y]]), shares))
    reps = np.array(reps)
    return [[float(np.quantile(reps[:, i], 0.05)), float(np.quantile(reps[:, i], 0.95))] for i in range(reps.shape[1])]


def by_total(months, shares: np.ndarray) -> dict:
    """The record's daytime rates per bin of the month's total (module docstring)."""
    totals = np.array([d.sum() for _, _, d in months])
    rates = np.array([daytime_estimate(d, shares) for _, _, d in months])
    wet = totals >= 0.05
    edges = np.quantile(totals[wet], np.linspace(0, 1, BINS + 1))
    edges[0] = 0.05
    idx = np.clip(np.digitize(totals, edges) - 1, 0, BINS - 1)
    return {
        "edges_mm": [round(float(e), 2) for e in edges[:-1]],  # bin b: [edges[b], edges[b+1]); the last is open
        "months": [int(((idx == b) & wet).sum()) for b in range(BINS)],
        "dry_months": int((~wet).sum()),
        "rates": [rates[(idx == b) & wet].mean(axis=0).tolist() for b in range(BINS)],
    }


def model_daytime(model: HourlyRainModel, months, seed: int) -> list[float]:
    """The hotel index (08-20 of each calendar day) of the hourly model driven by the
    months' observed totals: P(day >= x) for the hotel triggers."""
    rng = np.random.default_rng(seed)
    parts = []
    for _, m, d in months:
        hours = model.simulate_hours(np.full(REPLICATES * 8, d.sum()), d.size, rng, month=m)
        parts.append(hours.reshape(d.size, 24, -1)[:, 8:20].sum(axis=1, dtype=np.float64).ravel())
    x = np.concatenate(parts)
    return [float((x >= t).mean()) for t in HOTEL_TRIGGERS]


def india_week_shares(path: Path) -> np.ndarray:
    """Daytime (08-20 IST) share of each wet station-day (08-08 IST, >= 1 mm) of the one IMD
    week of automatic stations and gauges (a check, never shipped: nothing of it is written)."""
    tot: dict = defaultdict(float)
    day: dict = defaultdict(float)
    with gzip.open(path, "rt") as fh:
        for r in csv.DictReader(fh):
            try:
                mm = float((r["RAIN HOURLY CUMULATIVE (mm)"] or "").strip())
            except ValueError:
                continue
            if not 0 <= mm < 300:
                continue
            end = dt.datetime.fromisoformat(f"{r['DATE(YYYY-MM-DD)']}T{r['TIME (UTC)']}") + dt.timedelta(hours=5, minutes=30)
            start = end - dt.timedelta(hours=1)
            k = (r["STATION"], r["DISTRICT"], (start - dt.timedelta(hours=DAY_START_HOUR)).date())
            tot[k] += mm
            if DAY_START_HOUR <= start.hour < 20:
                day[k] += mm
    return np.array([day[k] / tot[k] for k in tot if tot[k] >= 1.0])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    ap.add_argument("--out", default=str(OUT), help="where to write the json (default: the shipped file)")
    args = ap.parse_args()
    d = Path(args.data)
    station = _load_hourly(ROOT / "models" / "data" / HOURLY_FILE)
    beijing = fit_hourly_model(station)
    ncr = delhi_ncr(d / "imd_rain025_delhi_ncr_district_daily_2013-2024.csv.gz")
    fit_months = [x for days in ncr.values() for x in complete_months(days)]
    seasons = {
        "monsoon": [x for x in fit_months if x[1] in MONSOON],
        "other": [x for x in fit_months if x[1] not in MONSOON],
    }
    fitted, diagnostics = {}, {}
    for i, (season, months) in enumerate(seasons.items()):
        fitted[season], diagnostics[season] = fit_season(beijing, months, SEED + i)
        sim_base = exceedance(simulated_days(beijing, months, SEED + i))
        sim_fit = exceedance(simulated_days(with_persistence(beijing, fitted[season]), months, SEED + i))
        diagnostics[season]["beijing_r"] = sim_base.tolist()
        diagnostics[season]["fitted_r"] = sim_fit.tolist()
        diagnostics[season]["months"] = len(months)
        print(f"{season}: {len(months)} district-months, r = {fitted[season]:.2f} (Beijing {beijing.persistence:.3f})")
        for t, o, b, f in zip(THRESHOLDS, diagnostics[season]["observed"], sim_base, sim_fit):
            print(f"  P(day >= {t:4g} mm): record {o:.4f}   Beijing r {b:.4f} ({b / o:.2f}x)   fitted {f:.4f} ({f / o:.2f}x)")

    checks = {}
    for name, path, last in (
        ("Colaba 1901-1970", "ghcn_daily_IN012070300_bombay_colaba_1901-1970.csv.gz", 1970),
        ("Santacruz 1949-2004", "ghcn_daily_IN012070800_mumbai_santacruz_1949-2019.csv.gz", 2004),
    ):
        months = complete_months(ghcn(d / path, last))
        checks[name] = {}
        for i, season in enumerate(("monsoon", "other")):
            sel = [x for x in months if (x[1] in MONSOON) == (season == "monsoon")]
            obs = exceedance(np.concatenate([x[2] for x in sel]))
            sim_b = exceedance(simulated_days(beijing, sel, SEED + 10 + i))
            sim_f = exceedance(simulated_days(with_persistence(beijing, fitted[season]), sel, SEED + 10 + i))
            checks[name][season] = {"observed": obs.tolist(), "beijing_r": sim_b.tolist(), "fitted_r": sim_f.tolist()}
            print(f"check {name} {season}: " + "  ".join(
                f">={t:g}: {o:.4f} b {b / o if o else float('nan'):.2f}x f {f / o if o else float('nan'):.2f}x"
                for t, o, b, f in zip(THRESHOLDS, obs, sim_b, sim_f)))

    shares = beijing_day_shares(station)
    rng = np.random.default_rng(SEED)
    share_draws = np.sort(rng.choice(shares, SHARE_DRAWS))
    delhi_jan = [x for x in fit_months if x[1] == 1]
    days = np.concatenate([x[2] for x in delhi_jan])
    delhi_only = [x for k in DELHI for x in complete_months(ncr.get(k, {})) if x[1] == 1]
    delhi_only_est = daytime_estimate(np.concatenate([x[2] for x in delhi_only]), share_draws)
    band = year_band(delhi_jan, share_draws, SEED + 30)
    record_mean = float(np.mean([x[2].sum() for x in delhi_jan]))
    table = by_total(delhi_jan, share_draws)
    own = daytime_estimate(days, share_draws)
    fixed = [float((FIXED_SHARE * days >= x).mean()) for x in HOTEL_TRIGGERS]
    calibrated = dataclasses.replace(beijing, persistence_by_month=tuple(
        fitted["monsoon" if m in MONSOON else "other"] for m in range(1, 13)))
    driven_b = model_daytime(beijing, delhi_jan, SEED + 20)
    driven_f = model_daytime(calibrated, delhi_jan, SEED + 20)
    week = d / "imd_aws_arg_hourly_2018-08-30_2018-09-05.csv.gz"
    if week.exists():
        india = india_week_shares(week)
        print(f"daytime share of a wet day: Beijing {shares.size} days, < 20 % {np.mean(shares < 0.2):.0%}, "
              f"> 80 % {np.mean(shares > 0.8):.0%}; IMD week 2018 {india.size} station-days, "
              f"< 20 % {np.mean(india < 0.2):.0%}, > 80 % {np.mean(india > 0.8):.0%} (mean {india.mean():.3f})")
    print(f"Delhi-NCR January, {len(delhi_jan)} district-Januaries, mean total {record_mean:.1f} mm; "
          f"Beijing wet days {shares.size}, mean daytime share {shares.mean():.3f}")
    for i, x in enumerate(HOTEL_TRIGGERS):
        print(f"  P(daytime >= {x:g} mm): record {own[i]:.4f} (90 % band {band[i][0]:.4f}-{band[i][1]:.4f}; fixed share "
              f"{fixed[i]:.4f}; Delhi's 3 districts {delhi_only_est[i]:.4f}); hourly model driven by "
              f"the record's totals: Beijing r {driven_b[i]:.4f} ({own[i] / max(driven_b[i], 1e-9):.1f}x below), "
              f"fitted {driven_f[i]:.4f} ({driven_f[i] / own[i]:.2f}x)")

    out = {
        "source": "IMD 0.25\u00b0 gridded daily rainfall per district, 23 Delhi-NCR districts 2013-2024 "
        "(Pai et al. 2014), derived only; checks: GHCN-Daily Bombay Colaba 1901-1970 and Mumbai Santacruz "
        "1949-2004 (Menne et al. 2012), derived only; daytime shares: Beijing Aotizhongxin 2013-2017 "
        "(Zhang et al. 2017, CC BY 4.0)",
        "method": "per season, the lag-1 wet-hour persistence r of the hourly model (grid 0.50-0.95) minimising "
        "sum over thresholds of log(simulated / observed P(daily total >= t))^2, the model driven by each "
        f"complete month's observed total ({REPLICATES} replicates, seed {SEED}), days 08-08 local "
        "(bench/calibration/hourly_daily.py)",
        "thresholds_mm": list(THRESHOLDS),
        "persistence": {"monsoon": fitted["monsoon"], "other": fitted["other"]},
        "beijing_persistence": round(beijing.persistence, 4),
        "fit": diagnostics,
        "checks": checks,
        "delhi_january": {
            "districts": "all 23 Delhi-NCR districts",
            "januaries": len(delhi_jan),
            "record_mean_total_mm": round(record_mean, 2),
            "hotel_triggers_mm": list(HOTEL_TRIGGERS),
            "daytime_share": "Beijing wet days >= 1 mm (days 08-08), "
            f"{shares.size} days, mean {shares.mean():.3f}, independent of the day's total",
            "record_estimate": own,
            "record_estimate_band_90": band,
            "record_estimate_delhi_districts": delhi_only_est,
            "record_estimate_fixed_share": fixed,
            "record_estimate_by_total": table,
            "model_driven_by_record_beijing_r": driven_b,
            "model_driven_by_record_fitted_r": driven_f,
        },
    }
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
