"""Benchmark: joint pricing of a 24-cover quote against numpy's raw draw time.

The quote is one target (default pin code 600001, Chennai) with, for each month of a year,
an excess-rainfall cover (RAINFALL_MONTHLY_TOTAL) and a deficit cover (RAINFALL_DEFICIT),
terms proposed by the model (1-in-10 trigger, 1-in-50 exit). Each row prices all 24 covers
jointly on N shared paths (12 monthly variates per path) and compares with the time numpy
takes to draw the same N x 12 standard normals (``Generator.standard_normal``, PCG64) and
uniforms (``Generator.random``). Times are the best of ``--repeat`` runs.

Run:  .venv/bin/python bench/pricing.py [--pincode 600001] [--repeat 3] [--method sobol]
"""

from __future__ import annotations

import argparse
import calendar
import os
import sys
import time
from datetime import date
from decimal import Decimal
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from activities.pricing import (  # noqa: E402
    DEFAULT_N,
    build_site_model,
    load_climate_data,
    pincode_site,
    price_covers,
    propose_terms,
)
from models.settings import DATA_DIR  # noqa: E402


def quote_covers(model, year: int, limit: Decimal):
    covers = []
    for month in range(1, 13):
        start = date(year, month, 1)
        end = date(year, month, calendar.monthrange(year, month)[1])
        for code in ("RAINFALL_MONTHLY_TOTAL", "RAINFALL_DEFICIT"):
            p = propose_terms(model, code, start, end, limit, cover_id=f"{code}:{year}-{month:02d}")
            if p.viable:
                covers.append(p.terms)
            else:
                print(f"  skipped {code} {year}-{month:02d}: {p.reason}")
    return covers


def best_time(fn, repeat: int):
    """(best wall seconds, best CPU seconds of this process, last result) over ``repeat`` runs."""
    wall, cpu, out = float("inf"), float("inf"), None
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        wall = min(wall, time.perf_counter() - t0)
        cpu = min(cpu, time.process_time() - c0)
    return wall, cpu, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pincode", default="600001")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--method", default="sobol", choices=["sobol", "antithetic", "mc"])
    ap.add_argument("--sizes", default=f"10000,100000,{DEFAULT_N},1000000")
    args = ap.parse_args()

    climate = load_climate_data(DATA_DIR)
    site = pincode_site(climate, args.pincode)
    model = build_site_model(climate, site.query_district, site.query_state, site.latitude, site.longitude)
    print(
        f"target {args.pincode}: {site.normals_district} ({site.subdivision}, {site.match_kind}); "
        f"model {model.model_version}; data {model.data_hash[:19]}…; method {args.method}; "
        f"cpus {os.cpu_count()}"
    )
    covers = quote_covers(model, 2026, Decimal("100000"))
    print(f"{len(covers)} covers priced jointly, 12 monthly variates per path\n")

    rng = np.random.default_rng(12345)
    header = (
        f"{'N':>9} {'price s':>8} {'paths/s':>11} {'normals s':>9} {'x normal':>8} "
        f"{'cpu x':>6} {'uniform s':>9} {'x unif':>7} {'max relSE':>9} {'agg relSE':>9} {'min VRF':>7}"
    )
    print(header)
    print("-" * len(header))
    for n in (int(s) for s in args.sizes.split(",")):
        w_price, c_price, res = best_time(
            lambda: price_covers(model, covers, n=n, seed=1, method=args.method), args.repeat
        )
        w_norm, c_norm, _ = best_time(lambda: rng.standard_normal((res.n_paths, 12)), args.repeat)
        w_unif, _, _ = best_time(lambda: rng.random((res.n_paths, 12)), args.repeat)
        rel = max(c.metrics.relative_se for c in res.covers)
        vrf = min(c.metrics.variance_reduction for c in res.covers)
        mark = " (default N)" if n == DEFAULT_N else ""
        print(
            f"{res.n_paths:>9} {w_price:>8.3f} {res.n_paths / w_price:>11,.0f} {w_norm:>9.3f} "
            f"{w_price / w_norm:>8.2f} {c_price / max(c_norm, 1e-9):>6.2f} {w_unif:>9.3f} "
            f"{w_price / w_unif:>7.2f} {rel:>9.2%} {res.aggregate.relative_se:>9.3%} {vrf:>7.1f}{mark}"
        )
    print(
        "\nprice s: wall time of price_covers (best of --repeat); paths/s = N / price s."
        "\nx normal: price s / wall time of numpy drawing the same N x 12 standard normals;"
        " cpu x: the same ratio in process CPU time (robust on a busy machine);"
        " x unif: against N x 12 uniforms."
        "\nrelSE: Monte Carlo standard error / expected loss (max over the covers; aggregate = sum of covers)."
        "\nVRF: variance reduction factor vs plain Monte Carlo at the same N (min over the covers)."
    )


if __name__ == "__main__":
    main()
