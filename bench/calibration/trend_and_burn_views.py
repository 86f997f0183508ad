"""Trends that stay in the record, burn views, and the band's drivers (issue 26, findings 1, 3).

Part 1, from the raw records only (no engine code): for each subdivision-month the issue
names, the record mean, the last 30 years' mean and its standard error, the level the old
engine projected to 2027 (OLS on 1901-2015, slope shrunk by max(0, 1 - 1/t^2), line carried
to 2027, floored at 0.25) and the level of pricing-2026.4.0 (the line at most at the record's
last year, held within one standard error of the last 30 years' mean); and the named covers'
burn on the full record, its last 30 years and the detrended record (the record's own OLS
trend to 2015), at the district level and on the cell's scale (the documented CV factor and
dry-month shift, the margin fitted here with scipy), with their attachment frequencies.

Part 2, with the engines: each named cover priced by pricing-2026.3.1 (the frozen engine)
and pricing-2026.4.0: model EL, the band (5-95 %) and its drivers, the three views, the burn
check, gross premium and P(attach); then, over the catalogues of nine pin codes, how many
covers the hold rule holds (and how many the literal rule "view above the band top" would,
without the views' own sampling error).

    .venv/bin/python bench/calibration/trend_and_burn_views.py [--catalogues]

Reads /work/shared/data (the IMD subdivision record and district normals: both GODL-India,
shipped in models/data too). Nothing it prints is shipped: the engine derives the same
quantities from the record it ships.
"""

from __future__ import annotations

import argparse
import calendar
import csv
import sys
from datetime import date
from decimal import Decimal
from pathlib import Path

import numpy as np
from scipy import stats

DATA = Path("/work/shared/data")
MONTHS = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
FLOOR, RECENT, RISK_YEAR = 0.25, 30, 2027
# CV factor (cell / area) and logit shift of P(dry): calibration/rain_scale.json (Delhi-NCR, Colaba)
CV_FACTOR = {"monsoon": 1.454, "other": 1.122}
LOGIT_SHIFT = 1.47
# The covers the issue names: (label, pin, subdivision, normals district, month, trigger mm, exit mm)
COVERS = [
    ("Chennai January excess", "600001", "TAMIL NADU", "CHENNAI", 1, 15.1, 30.6),
    ("Bengaluru January excess", "560001", "SOUTH INTERIOR KARNATAKA", "BANGALORE URB", 1, 3.2, 7.9),
    ("Mumbai July excess", "400001", "KONKAN & GOA", "MUMBAI CITY", 7, None, None),
]
PINS = ["600001", "560001", "400001", "110001", "781001", "302001", "700001", "752001", "403001"]


def record(subdivision: str, m: int) -> tuple[np.ndarray, np.ndarray]:
    with (DATA / "rainfall_in_india_1901-2015.csv").open() as f:
        rows = [r for r in csv.DictReader(f) if r["SUBDIVISION"] == subdivision and r[MONTHS[m - 1]].strip()]
    rows.sort(key=lambda r: int(r["YEAR"]))
    return np.array([int(r["YEAR"]) for r in rows]), np.array([float(r[MONTHS[m - 1]]) for r in rows])


def normal(district: str, m: int) -> float:
    with (DATA / "district_wise_rainfall_normal.csv").open() as f:
        return next(float(r[MONTHS[m - 1]]) for r in csv.DictReader(f) if r["DISTRICT"] == district)


def levels(years: np.ndarray, x: np.ndarray) -> dict:
    """Record mean, recent climate, old and new levels (relative to the record mean)."""
    mu = x.mean()
    yc = years - years.mean()
    b = (yc * (x - mu)).sum() / (yc**2).sum()
    resid = x - mu - b * yc
    t = b / np.sqrt((resid**2).sum() / (x.size - 2) / (yc**2).sum())
    r = b * max(0.0, 1 - 1 / t**2) / mu
    recent = x[years > years.max() - RECENT]
    c, s = recent.mean() / mu, recent.std(ddof=1) / np.sqrt(recent.size) / mu
    line_end = 1 + r * (years.max() - years.mean())
    return {
        "mean_mm": mu, "t": t, "recent": c, "recent_se": s,
        "old": max(FLOOR, 1 + r * (RISK_YEAR - years.mean())),
        "new": max(FLOOR, min(max(line_end, c - s), c + s)),
        "ols_rel": b / mu, "ybar": years.mean(),
    }


def cell_mapped(x_rel: np.ndarray, monsoon: bool) -> np.ndarray:
    """District-level values (relative to their mean) at equal probability on the cell's margin."""
    wet = x_rel[x_rel >= 0.05 / 100]
    p0 = 1 - wet.size / x_rel.size
    k, _, scale = stats.gamma.fit(wet, floc=0)
    cv2 = (1 / k + p0) / (1 - p0) * CV_FACTOR["monsoon" if monsoon else "other"] ** 2
    p1 = p0 if p0 in (0.0, 1.0) else 1 / (1 + np.exp(-(np.log(p0 / (1 - p0)) + LOGIT_SHIFT)))
    k1 = 1 / max(cv2 * (1 - p1) - p1, 1 / k)
    theta1 = 1 / ((1 - p1) * k1)
    u = p0 + (1 - p0) * stats.gamma.cdf(x_rel, k, scale=scale)
    q = np.clip((u - p1) / (1 - p1), 0, 1 - 1e-12)
    return np.where((x_rel > 0) & (u > p1), stats.gamma.ppf(q, k1, scale=theta1), 0.0)


def burn(values: np.ndarray, trigger: float, exit_: float, limit: float = 1.0, minimum: float = 0.1) -> tuple[float, float, float]:
    slope = (limit - minimum) / (exit_ - trigger)
    pay = np.where(values > trigger, np.minimum(limit, minimum + slope * (values - trigger)), 0.0)
    return pay.mean(), pay.std(ddof=1) / np.sqrt(pay.size), (pay > 0).mean()


def part_one() -> None:
    print("Part 1: the record alone (no engine code)\n")
    print(f"{'subdivision, month':34} {'mean mm':>8} {'t':>6} {'last 30 y':>12} {'old 2027':>9} {'2026.4':>7}")
    for label, _, sub, _, m, _, _ in COVERS:
        years, x = record(sub, m)
        lv = levels(years, x)
        print(f"{sub + ', ' + MONTHS[m - 1]:34} {lv['mean_mm']:8.1f} {lv['t']:6.2f} "
              f"{lv['recent']:6.3f}±{lv['recent_se']:.3f} {lv['old']:9.3f} {lv['new']:7.3f}")
    print()
    for label, _, sub, district, m, trigger, exit_ in COVERS:
        if trigger is None:
            continue
        years, x = record(sub, m)
        lv = levels(years, x)
        n = normal(district, m)
        rel = x / x.mean()
        detrend = max(FLOOR, 1 + lv["ols_rel"] * (years.max() - lv["ybar"])) / np.maximum(
            FLOOR, 1 + lv["ols_rel"] * (years - lv["ybar"]))
        print(f"{label} (trigger {trigger} mm, exit {exit_} mm; district normal {n} mm)")
        for scale_name, values in (("district level", rel * n), ("cell scale", cell_mapped(rel, m in (6, 7, 8, 9)) * n)):
            rows = {
                "full record 1901-2015": values,
                "last 30 years 1986-2015": values[years > years.max() - RECENT],
                "detrended record (to 2015)": values * detrend,
            }
            for view, v in rows.items():
                b, se, freq = burn(v, trigger, exit_)
                print(f"  {scale_name:15} {view:28} burn {b:6.1%} ± {se:5.1%}   attaches {freq:5.1%}")
        print()


def _engines():
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    import activities.pricing as live
    from activities.pricing.frozen import engine_for

    return engine_for("pricing-2026.3.1"), live


def part_two(catalogues: bool) -> None:
    import importlib

    from activities.pricing.composition import decide
    from activities.pricing.loading import LoadParameters
    from models.settings import DATA_DIR

    old, live = _engines()
    print("Part 2: the engines (terms: what pricing-2026.3.1 proposed; EL and premium per 100 of limit)\n")
    params = LoadParameters()
    old_load = importlib.import_module(f"{old.__name__}.loading")
    old_unc = importlib.import_module(f"{old.__name__}.uncertainty")
    from activities.pricing.uncertainty import parameter_bands

    climates = old.load_climate_data(DATA_DIR), live.load_climate_data(DATA_DIR)
    for label, pin, _, _, m, _, _ in COVERS:
        start, end = date(RISK_YEAR, m, 1), date(RISK_YEAR, m, calendar.monthrange(RISK_YEAR, m)[1])
        models = []
        for engine, climate in zip((old, live), climates):
            s = engine.pincode_site(climate, pin)
            models.append(engine.build_site_model(climate, s.query_district, s.query_state, s.latitude, s.longitude))
        t_old = old.propose_terms(models[0], "RAINFALL_MONTHLY_TOTAL", start, end, Decimal(100)).terms
        p_old = old.price_cover(models[0], t_old, seed=1)
        b_old = old_unc.parameter_bands(models[0], [t_old], seed=1)[0]
        burn_old = old.burn_analysis(models[0], t_old, p_old, b_old.sd)
        el = float(p_old.risk_premium)
        adjusted = float(burn_old.credibility_expected_loss if burn_old.review else el)
        g_old = old_load.risk_loaded_premium(adjusted, b_old.sd, float(p_old.metrics.var_99), 100.0, old_load.LoadParameters())
        print(f"{label}: trigger {t_old.trigger} mm")
        print(f"  2026.3.1  EL {el:5.2f}  band {b_old.low:5.2f}-{b_old.high:5.2f} (sampling only)  "
              f"burn check {'DISAGREES' if burn_old.review else 'AGREES'} (model-basis burn {burn_old.burn_cost_rate:.1%})  "
              f"gross {g_old.gross_premium:5.2f}  P(attach) {p_old.metrics.prob_attach:.1%}")
        t = live.CoverTerms(index_code=t_old.index_code, risk_start=start, risk_end=end, trigger=t_old.trigger,
                            exit=t_old.exit, limit=t_old.limit, min_payout=t_old.min_payout,
                            payout_per_unit=t_old.payout_per_unit)
        p = live.price_cover(models[1], t, seed=1)
        band = parameter_bands(models[1], [t], seed=1)[0]
        d = decide(models[1], t, p, band, params)
        drivers = ", ".join(f"{x.name} {x.low:.2f}-{x.high:.2f} ({x.share:.0%})" for x in band.drivers)
        print(f"  2026.4.0  EL {float(p.risk_premium):5.2f}  band {band.low:5.2f}-{band.high:5.2f}  [{drivers}]")
        views = "; ".join(f"{v.name} {v.burn_cost_rate:.1%}±{v.burn_cost_se_rate:.1%} (attaches {v.payout_frequency:.0%})"
                          for v in d.burn.views)
        print(f"            views: {views}")
        print(f"            burn check {d.burn_check}  gross {d.premium.gross_premium:5.2f}  "
              f"P(attach) {p.metrics.prob_attach:.1%}\n")
    if catalogues:
        _catalogues(live, climates[1], params)


def _catalogues(live, climate, params) -> None:
    """Every viable cover of the 12 months of 2027 at the nine pin codes, proposed and priced
    by the live engine: how many the views hold, and how many the literal rule would."""
    from activities.pricing.composition import decide
    from activities.pricing.uncertainty import parameter_bands

    total = held = literal = 0
    names = []
    for pin in PINS:
        s = live.pincode_site(climate, pin)
        model = live.build_site_model(climate, s.query_district, s.query_state, s.latitude, s.longitude)
        covers = []
        for m in range(1, 13):
            start, end = date(RISK_YEAR, m, 1), date(RISK_YEAR, m, calendar.monthrange(RISK_YEAR, m)[1])
            for code in ("RAINFALL_MONTHLY_TOTAL", "RAINFALL_DEFICIT", "TEMPERATURE_MAX", "WIND_MAX_SPEED"):
                proposal = live.propose_terms(model, code, start, end, Decimal(100000))
                if proposal.viable:
                    covers.append(proposal.terms)
        priced = live.price_covers(model, covers, n=1 << 15, seed=1).covers
        for t, p, band in zip(covers, priced, parameter_bands(model, covers, seed=1)):
            d = decide(model, t, p, band, params)
            if not d.burn.views:
                continue
            total += 1
            held += d.held
            literal += any(float(v.burn_cost) > band.high for v in d.burn.views)
            if d.held:
                names.append(f"{pin} {t.index_code} {t.risk_start:%b}")
    print(f"Catalogues of {len(PINS)} pin codes, 2027: {total} covers with a record; held {held} ({', '.join(names)}); "
          f"the literal rule (a view above the band's top, no sampling error) would hold {literal}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--catalogues", action="store_true", help="count the holds over nine pin codes' catalogues")
    args = parser.parse_args()
    part_one()
    part_two(args.catalogues)
