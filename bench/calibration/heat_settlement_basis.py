"""How much the heat covers' burn depends on the data they settle on (issue 26, finding 2).

Heat covers were priced on IMD's 1° gridded daily maximum temperature and settled on a
reanalysis (`REAN-SFC-HOURLY`): a different product, with no record at hand overlapping
both to fit a mapping on. This script measures what a bias between the two would do: for
the heat covers the engine proposes at the panel's cities (risk year 2027, every month it
offers one), the burn on the IMD record itself (the cell's monthly maximum of daily Tmax,
1995–2024, the last 30 years as they were: no trend applied), and on the same record
shifted by −0.5 °C and +0.5 °C, as a settlement data set biased by that much would read it.
It also prints each cover's payout range (exit − trigger) against the record's year-to-year
spread: the narrower the range against the spread, the more all-or-nothing the cover and
the more a bias moves its burn.

Independent of the engine but for the terms: the record is read here, the payout worked out
here (linear from the minimum payout at the trigger to the limit at the exit). Terms come
from the engine of `--version` (default pricing-2026.3.1, the engine the issue measured).

Run: ``.venv/bin/python bench/calibration/heat_settlement_basis.py [--data ../shared/data]``.
Prints per city-month and the mean burn over all covers for the three readings; quoted in
docs/pricing-model.md ("Heat", "What it settles on").
"""

from __future__ import annotations

import argparse
import datetime as dt
import gzip
from decimal import Decimal
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
PANEL = {  # city: (lat, lon), as bench/calibration/heat_cells.py
    "Delhi": (28.61, 77.21), "Chennai": (13.08, 80.27), "Mumbai": (19.08, 72.88), "Bengaluru": (12.97, 77.59),
    "Jaipur": (26.91, 75.79), "Kolkata": (22.57, 88.36), "Guwahati": (26.14, 91.74), "Puri": (19.81, 85.83),
    "Shimla": (31.10, 77.17),
}
FIRST, LAST = 1995, 2024
BIASES = (0.0, -0.5, 0.5)


def monthly_maxima(path: Path, cells: set[str]) -> dict[str, dict[tuple[int, int], float]]:
    """cell → (year, month) → the month's highest daily maximum (°C), months of FIRST..LAST
    with at most 3 days missing."""
    with gzip.open(path, "rt") as fh:
        header = fh.readline().strip().split(",")
        cols = {c: i for i, c in enumerate(header) if c in cells}
        days: dict[str, dict[tuple[int, int], list[float]]] = {c: {} for c in cols}
        for line in fh:
            year = int(line[:4])
            if not FIRST <= year <= LAST:
                continue
            parts = line.rstrip("\n").split(",")
            key = (year, int(parts[0][5:7]))
            for c, i in cols.items():
                days[c].setdefault(key, []).append(float(parts[i]) if parts[i] else np.nan)
    out: dict[str, dict[tuple[int, int], float]] = {}
    for c, by_month in days.items():
        out[c] = {k: float(np.nanmax(v)) for k, v in by_month.items() if np.isnan(v).sum() <= 3}
    return out


def paid_fraction(x: float, trigger: float, exit_: float | None, min_payout: float, per_unit: float, limit: float) -> float:
    if x < trigger:
        return 0.0
    if exit_ is not None and x >= exit_:
        return 1.0
    return min(min_payout + per_unit * (x - trigger), limit) / limit


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--version", default="pricing-2026.3.1")
    args = parser.parse_args()

    from activities.pricing.frozen import engine_for
    from models.settings import DATA_DIR

    engine = engine_for(args.version)
    climate = engine.load_climate_data(DATA_DIR)
    models = {city: engine.build_site_model(climate, None, None, lat, lon) for city, (lat, lon) in PANEL.items()}
    cells = {city: m.temperature.cell_id for city, m in models.items()}
    record = monthly_maxima(args.data / "imd_tmax_1deg_daily_1951-2024.csv.gz", set(cells.values()))

    burns = {b: [] for b in BIASES}
    ranges, spreads = [], []
    print(f"{'city':<10} {'mon':>3} {'cell':>12} {'trigger':>8} {'exit':>6} {'range':>6} {'spread':>6}  "
          + "  ".join(f"burn{b:+.1f}" for b in BIASES))
    for city, model in models.items():
        for month in range(1, 13):
            start = dt.date(2027, month, 1)
            end = (dt.date(2027 + month // 12, month % 12 + 1, 1) - dt.timedelta(days=1))
            proposal = engine.propose_terms(model, "TEMPERATURE_MAX", start, end, Decimal(100_000))
            t = proposal.terms
            if t is None:
                continue
            series = np.array([v for (y, m), v in sorted(record[cells[city]].items()) if m == month])
            trigger, exit_ = float(t.trigger), None if t.exit is None else float(t.exit)
            row = []
            for b in BIASES:
                paid = [paid_fraction(x + b, trigger, exit_, float(t.min_payout), float(t.payout_per_unit), float(t.limit))
                        for x in series]
                burn = float(np.mean(paid))
                burns[b].append(burn)
                row.append(burn)
            width = (exit_ - trigger) if exit_ is not None else float("nan")
            spread = float(np.std(series, ddof=1))
            ranges.append(width)
            spreads.append(spread)
            print(f"{city:<10} {month:>3} {cells[city]:>12} {trigger:8.2f} {exit_ or float('nan'):6.2f} {width:6.2f} "
                  f"{spread:6.2f}  " + "  ".join(f"{r:7.1%}" for r in row))
    print(f"\n{len(burns[0.0])} heat covers at {len(PANEL)} cities ({args.version}), IMD record {FIRST}-{LAST}:")
    print(f"exit - trigger {np.nanmin(ranges):.2f}-{np.nanmax(ranges):.2f} °C; year-to-year spread "
          f"{min(spreads):.2f}-{max(spreads):.2f} °C")
    for b in BIASES:
        print(f"mean burn with the settlement data {b:+.1f} °C off the pricing record: {np.mean(burns[b]):.1%}")


if __name__ == "__main__":
    main()
