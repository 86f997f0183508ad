"""Benchmark: where a cold quote's pricing time goes (issue 26, "Cold quotes <= 1 s"), the
engine's part, phase by phase, beside pricing-2026.3.1 measured in the same run.

A target never priced before is priced when its first quote asks for it: the catalogue's
`propose_and_price_coverages` activity (pricing pool) loads the reference data, fits the
target's site model, proposes each month's terms and prices the viable covers jointly (the
Monte Carlo, the parameter band, the burn views and the premium of each). This script runs
exactly those engine calls for a 12-month catalogue (2027, every index the catalogue offers)
in a FRESH process per target (no warm cache: what the first quote meets), and prints each
phase's time per target and their p50, for the live engine and for the frozen 2026.3.1 one.
What it does not hold (the Temporal round trips, the database writes, HTTP) is what the
end-to-end figure of bench/api.py ("catalogue warm: first POST /quotes ...") adds on top.

    .venv/bin/python bench/cold_quote.py [--pins 600001,400001,...] [--simulations 131072]

Measure on a quiet machine: the figures are wall-clock seconds of one process.
"""

from __future__ import annotations

import argparse
import calendar
import json
import statistics
import subprocess
import sys
import time
from datetime import date
from decimal import Decimal
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PINS = ["600001", "560001", "400001", "110001", "781001", "302001", "700001", "752001", "403001"]
CODES = ("RAINFALL_MONTHLY_TOTAL", "RAINFALL_DEFICIT", "TEMPERATURE_MAX", "WIND_MAX_SPEED")
PHASES = ("import", "data", "fit", "terms", "simulation", "band", "burn and premium")


def _one(version: str, pin: str, simulations: int) -> dict[str, float]:
    """The phases of one cold pricing of `pin`'s 2027 catalogue (seconds), in this process."""
    t = time.perf_counter()
    sys.path.insert(0, str(REPO))
    import importlib

    from activities.pricing.frozen import engine_for
    from models.settings import DATA_DIR

    engine = engine_for(version)
    uncertainty = importlib.import_module(f"{engine.__name__}.uncertainty")
    from activities.pricing.composition import decide
    from activities.pricing_runs import load_parameters
    out = {"import": time.perf_counter() - t}

    t = time.perf_counter()
    climate = engine.load_climate_data(DATA_DIR)
    site = engine.pincode_site(climate, pin)
    out["data"] = time.perf_counter() - t

    t = time.perf_counter()
    model = engine.build_site_model(climate, site.query_district, site.query_state, site.latitude, site.longitude)
    out["fit"] = time.perf_counter() - t

    t = time.perf_counter()
    covers = []
    for m in range(1, 13):
        start, end = date(2027, m, 1), date(2027, m, calendar.monthrange(2027, m)[1])
        for code in CODES:
            proposal = engine.propose_terms(model, code, start, end, Decimal(100000))
            if proposal.viable:
                covers.append(proposal.terms)
    out["terms"] = time.perf_counter() - t
    out["covers"] = len(covers)

    t = time.perf_counter()
    sample = engine.simulate_payouts(model, covers, simulations, 1)
    priced = engine.price_sample(model, covers, sample, 1, 0.65).covers
    out["simulation"] = time.perf_counter() - t

    t = time.perf_counter()
    bands = uncertainty.parameter_bands(model, covers, 1)
    out["band"] = time.perf_counter() - t

    t = time.perf_counter()
    if engine.__name__ == "activities.pricing":  # the live composition (activities/pricing_runs.py)
        for c, p, b in zip(covers, priced, bands):
            decide(model, c, p, b, load_parameters())
    else:  # 2026.3.1's: the model-basis burn check and the stand-alone load
        loading = importlib.import_module(f"{engine.__name__}.loading")
        for c, p, b in zip(covers, priced, bands):
            burn = engine.burn_analysis(model, c, p, b.sd)
            adjusted = float(burn.credibility_expected_loss if burn.review else p.risk_premium)
            loading.risk_loaded_premium(adjusted, b.sd, float(p.metrics.var_99), float(c.limit), loading.LoadParameters())
    out["burn and premium"] = time.perf_counter() - t
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pins", default=",".join(PINS))
    parser.add_argument("--simulations", type=int, default=131072)
    parser.add_argument("--child", nargs=2, metavar=("VERSION", "PIN"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(_one(args.child[0], args.child[1], args.simulations)))
        return
    sys.path.insert(0, str(REPO))
    from activities.pricing.version import MODEL_VERSION

    versions = ("pricing-2026.3.1", MODEL_VERSION)
    results: dict[str, list[dict[str, float]]] = {v: [] for v in versions}
    print(f"command: {' '.join([sys.executable, *sys.argv])}")
    for pin in args.pins.split(","):
        for version in versions:  # alternating, so both meet the same machine
            t = time.perf_counter()
            done = subprocess.run(
                [sys.executable, __file__, "--child", version, pin, "--simulations", str(args.simulations)],
                capture_output=True, text=True, check=True, cwd=REPO,
            )
            phases = json.loads(done.stdout.strip().splitlines()[-1])
            phases["process"] = time.perf_counter() - t
            results[version].append(phases)
            engine_s = sum(phases[p] for p in PHASES if p != "import")
            print(f"{pin} {version:18} {int(phases['covers']):3d} covers  "
                  + "  ".join(f"{p} {phases[p]:.3f}" for p in PHASES)
                  + f"  engine {engine_s:.3f} s  (process {phases['process']:.2f} s)", flush=True)
    print("\np50 over the targets (seconds):")
    for version in versions:
        rows = results[version]
        p50 = {p: statistics.median(r[p] for r in rows) for p in PHASES}
        engine = statistics.median(sum(r[p] for p in PHASES if p != "import") for r in rows)
        print(f"  {version:18} " + "  ".join(f"{p} {p50[p]:.3f}" for p in PHASES) + f"  engine {engine:.3f}")


if __name__ == "__main__":
    main()
