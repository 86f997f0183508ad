"""Time the book's risk (activities/pricing/portfolio.py simulate_book) for a large book.

The book: 10,000 policies at 20 targets (500 each), every policy a tenant quote's 12 months
of the next year (one line item a month, the month's two preferred viable covers as the
tenant surface builds them: models/domain/quotes.py COVER_PREFERENCE), sums insured from
10,000 to 200,000 INR in steps of 5,000 (random, fixed seed): 120,000 line items. Terms are
those the engine proposes for each target and month (propose_terms), as the catalogue does.

Timed: `simulate_book` (the portfolio run's computation: the joint simulation of every target,
AEP/OEP with their batch-means errors, totals, the as-if years of the record) at the default
paths; beside it, in the same run, numpy drawing the same number of standard normals (the
paths' dimensions summed over the targets) and the engine's simulation alone. The database
read of the book and the result's write are not in the figure.

Run from the repo: ``.venv/bin/python bench/portfolio.py [--policies 10000] [--targets 20]``
"""

from __future__ import annotations

import argparse
import calendar
import datetime as dt
import sys
import time
from decimal import Decimal
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from activities.pricing import (
    build_site_model,
    load_climate_data,
    pincode_site,
    propose_terms,
)
from activities.pricing.montecarlo import _Plan
from activities.pricing.portfolio import (
    PORTFOLIO_PATHS,
    BookLineItem,
    BookTarget,
    as_if_years,
    simulate_book,
)
from models.domain.quotes import COVER_PREFERENCE
from models.settings import DATA_DIR

PINS = [
    "560001", "400001", "110001", "600001", "700001", "500001", "411001", "380001", "302001", "226001",
    "800001", "751001", "682001", "641001", "440001", "462001", "781001", "160017", "144001", "530001",
    "495001", "834001", "248001", "190001", "403001", "570001",
]


def targets(count: int, year: int):
    climate = load_climate_data(DATA_DIR)
    out, seen = [], set()
    for pin in PINS:
        try:
            site = pincode_site(climate, pin)
            model = build_site_model(climate, site.query_district, site.query_state, site.latitude, site.longitude)
        except Exception as err:  # noqa: BLE001 - a pin code the data does not know: the next one
            print(f"  {pin}: skipped ({err})")
            continue
        key = (model.site.subdivision, site.query_district)
        if key in seen:
            continue
        seen.add(key)
        months = []
        for m in range(1, 13):
            start, end = dt.date(year, m, 1), dt.date(year, m, calendar.monthrange(year, m)[1])
            covers = []
            for code in COVER_PREFERENCE:
                p = propose_terms(model, code, start, end, Decimal(1000))
                if p.viable:
                    covers.append(p.terms)
                if len(covers) == 2:
                    break
            if len(covers) == 2:
                months.append(tuple(covers))
        out.append((pin, model, months))
        if len(out) == count:
            break
    return out


def book(sites, policies: int, seed: int = 27, sum_insured: int | None = None):
    rng = np.random.default_rng(seed)
    per = policies // len(sites)
    built = []
    line_items = 0
    fixed = sum_insured
    for pin, model, months in sites:
        items = []
        for p in range(per):
            sum_insured = fixed or int(rng.integers(2, 41)) * 5_000  # INR
            q = Decimal(sum_insured) / Decimal(1000)  # units of 1,000 INR covers
            for covers in months:  # premium not priced here (0): the figures are the losses'
                items.append(BookLineItem(f"{pin}-{p}", covers, q, sum_insured * 100, 0, covers[0].risk_start))
        line_items += len(items)
        built.append(BookTarget(pin, model, tuple(items)))
    return built, line_items


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--policies", type=int, default=10_000)
    ap.add_argument("--targets", type=int, default=20)
    ap.add_argument("--paths", type=int, default=PORTFOLIO_PATHS)
    ap.add_argument("--year", type=int, default=dt.date.today().year + 1)
    ap.add_argument("--demo", action="store_true",
                    help="the issue's demo book instead: the four demo pin codes, 1,000 policies each, "
                         "200,000 INR a month (the book's figures beside the as-if years)")
    args = ap.parse_args()

    t0 = time.perf_counter()
    if args.demo:
        sites = targets(4, args.year)
        the_book, line_items = book(sites, 4_000, sum_insured=200_000)
    else:
        sites = targets(args.targets, args.year)
        the_book, line_items = book(sites, args.policies)
    policies = 4_000 if args.demo else args.policies
    print(f"book: {policies:,} policies, {line_items:,} line items at {len(the_book)} targets "
          f"(built in {time.perf_counter() - t0:.1f} s, not timed)")

    simulate_book(the_book[:1], n=1 << 13, seed=1)  # first use of the engine's per-process tables
    t = time.perf_counter()
    risk = simulate_book(the_book, n=args.paths, seed=20261126)
    total = time.perf_counter() - t

    t = time.perf_counter()
    as_if_years(the_book)
    as_if = time.perf_counter() - t

    dims = sum(_Plan(model, [(c.index_code, c.risk_start, c.risk_end) for m in months for c in m]).dim
               for _, model, months in sites)
    normals = risk.n_paths * dims
    rng = np.random.default_rng(0)
    t = time.perf_counter()
    rng.standard_normal(normals)
    draw = time.perf_counter() - t

    print(f"paths: {risk.n_paths:,} x {dims} normal scores over the targets = {normals:,} normals")
    print(f"portfolio run (simulate_book):          {total:6.2f} s   (goal <= 10 s)")
    print(f"  the as-if years alone (exact):        {as_if:6.2f} s  ({risk.as_if_year_count} years)")
    print(f"numpy drawing the same normals:         {draw:6.2f} s   (ratio {total / draw:.1f}x)")
    print(f"insured {risk.insured_minor / 100:,.0f} INR, EL {risk.expected_loss:,.0f} +/- {risk.expected_loss_se:,.0f} INR")
    for name, curve in (("AEP", risk.aep), ("OEP", risk.oep)):
        print(f"{name}: " + "; ".join(f"1-in-{p.return_period} {p.loss:,.0f} (TVaR {p.tvar:,.0f}, se {p.standard_error:,.0f})"
                                      for p in curve))
    print("worst as-if years: " + "; ".join(f"{y.year} {y.loss_minor / 100:,.0f}" for y in risk.as_if_years[:5]))
    if args.demo:
        print(f"as-if record: {risk.as_if_year_count} years {risk.as_if_first_year}-{risk.as_if_last_year}; "
              "worst year by target: " + ", ".join(f"{t} {m / 100:,.0f}" for t, m in risk.as_if_years[0].by_target_minor))


if __name__ == "__main__":
    main()
