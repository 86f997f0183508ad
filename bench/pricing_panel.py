"""The pricing review's panel: for each target and cover, the model's expected loss, the burn
cost, their z-score, the parameter band, and the probability of attachment against the
observed frequency (rainfall and wind: the shipped records; heat: the IMD 1° record 1995-2024
when ../shared/data has it).

Run from the repo: ``.venv/bin/python bench/pricing_panel.py [--months 1,4,5,7,10,11]``.
It only uses the pricing core's public calls, so the same script runs on an older commit
(``git worktree add /tmp/before <commit>`` and run it there) to give the "before" column;
fields the older engine lacks print as "-" (there: ``PYTHONPATH=. SHARED_DATA=/work/shared/data``).
"""

from __future__ import annotations

import argparse
import calendar
import gzip
import os
import time
from datetime import date
from decimal import Decimal
from pathlib import Path

import numpy as np

from activities.pricing import build_site_model, burn_analysis, load_climate_data, pincode_site, price_cover, propose_terms
from models.settings import DATA_DIR

PANEL = {
    "110001": "Delhi", "400001": "Mumbai", "600001": "Chennai", "560001": "Bengaluru", "302001": "Jaipur",
    "700001": "Kolkata", "781001": "Guwahati", "752001": "Puri", "171001": "Shimla",
}
CODES = ("RAINFALL_MONTHLY_TOTAL", "RAINFALL_DEFICIT", "TEMPERATURE_MAX", "WIND_MAX_SPEED")
SHORT = {"RAINFALL_MONTHLY_TOTAL": "excess", "RAINFALL_DEFICIT": "deficit", "TEMPERATURE_MAX": "heat", "WIND_MAX_SPEED": "wind"}
SHARED = Path(os.environ.get("SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
TMAX = SHARED / "imd_tmax_1deg_daily_1951-2024.csv.gz"
LIMIT = Decimal("100000")
YEAR = 2027


def heat_record(lat: float, lon: float) -> dict[tuple[int, int], float] | None:
    """Monthly maxima 1995-2024 at the 1° cell nearest (lat, lon), or None without the file."""
    if not TMAX.exists():
        return None
    with gzip.open(TMAX, "rt") as fh:
        header = fh.readline().strip().split(",")
        cells = [(float(c.split("N_")[0]), float(c.split("N_")[1].rstrip("E"))) for c in header[1:]]
        d = [111.2 * np.hypot(a - lat, (b - lon) * np.cos(np.radians(lat))) for a, b in cells]
        col = 1 + int(np.argmin(d))
        out: dict[tuple[int, int], float] = {}
        for line in fh:
            if line[:4] < "1995":
                continue
            parts = line.split(",")
            v = parts[col].strip()
            if v:
                k = (int(parts[0][:4]), int(parts[0][5:7]))
                out[k] = max(out.get(k, -99.0), float(v))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--months", default="1,4,5,7,10,11")
    months = [int(m) for m in ap.parse_args().months.split(",")]
    try:
        from activities.pricing.uncertainty import parameter_bands
    except ImportError:  # an engine from before the parameter band
        parameter_bands = None
    climate = load_climate_data(DATA_DIR)
    started = time.perf_counter()
    print("target     cover    m  trigger    exit   EL%   band%         burn%    z     P(attach) observed")
    heat_hits = heat_years = heat_expected = 0.0
    for pin, name in PANEL.items():
        s = pincode_site(climate, pin)
        model = build_site_model(climate, s.query_district, s.query_state, s.latitude, s.longitude)
        record = heat_record(s.latitude, s.longitude)
        for m in months:
            start, end = date(YEAR, m, 1), date(YEAR, m, calendar.monthrange(YEAR, m)[1])
            for code in CODES:
                p = propose_terms(model, code, start, end, LIMIT)
                if not p.viable:
                    print(f"{name:10s} {SHORT[code]:8s} {m:2d}  not offered: {p.reason[:70]}")
                    continue
                t = p.terms
                priced = price_cover(model, t, seed=7)
                el = float(priced.risk_premium)
                band = parameter_bands(model, [t], 7)[0] if parameter_bands else None
                burn = burn_analysis(model, t, priced, **({"parameter_sd": band.sd} if band else {}))
                observed = "-"
                if code == "TEMPERATURE_MAX" and record is not None:
                    years = [y for y in range(1995, 2025) if (y, m) in record]
                    hits = sum(record[(y, m)] >= t.trigger for y in years)
                    observed = f"{hits}/{len(years)}"
                    heat_hits += hits
                    heat_years += len(years)
                    heat_expected += priced.metrics.prob_attach * len(years)
                elif burn.n_years:
                    observed = f"{burn.payout_frequency:.3f}"
                band_txt = f"{band.low / 1000:5.1f}-{band.high / 1000:5.1f}" if band else "     -     "
                z = f"{burn.z_score:5.2f}" if burn.z_score is not None else "    -"
                flag = " REVIEW" if getattr(burn, "review", False) else ""
                print(
                    f"{name:10s} {SHORT[code]:8s} {m:2d} {t.trigger:8.1f} {t.exit if t.exit is not None else float('nan'):7.1f} "
                    f"{el / 1000:5.2f} {band_txt} {float(burn.burn_cost) / 1000:5.2f} {z} "
                    f"{priced.metrics.prob_attach:8.3f}  {observed}{flag}"
                )
    if heat_years:
        print(
            f"heat, all panel months: observed attachments {heat_hits:.0f} of {heat_years:.0f} years "
            f"({heat_hits / heat_years:.3f}); model expects {heat_expected:.1f} ({heat_expected / heat_years:.3f})"
        )
    print(f"EL%, band%, burn% are per cent of the limit; {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
