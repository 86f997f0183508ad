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
import asyncio
import calendar
import datetime as dt
import os
import sys
import tempfile
import time
import uuid
from decimal import Decimal
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
if "--database" in sys.argv or "--quote" in sys.argv:  # a private SQLite database, before any module reads the settings
    os.environ["PARAMETRIC_VAR_DIR"] = tempfile.mkdtemp(prefix="parametric-bench-portfolio-")
    os.environ.pop("DATABASE_URL", None)
    os.environ.setdefault("PICCOLO_CONF", "models.db.piccolo_conf")

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


async def write_book(sites, the_book) -> None:
    """The book as conversion and activation leave it: a target per site, a quote and an
    ACTIVE policy per policy, its line items with their covers' snapshots."""
    from models.db.core import bulk_insert, migrate, write_transaction
    from models.db.tables import LineItem, MonitoringTarget, Policy, Quote
    from models.domain.index_catalog import BY_CODE

    await migrate()
    now = dt.datetime.now(dt.UTC)
    tenant = uuid.uuid4()
    climate = load_climate_data(DATA_DIR)

    def snapshot(c) -> dict:
        return {
            "coverage_id": str(uuid.uuid5(uuid.NAMESPACE_URL, repr(c))), "index_code": c.index_code,
            "index_definition_id": str(BY_CODE[c.index_code].id), "start": c.risk_start.isoformat(),
            "end": c.risk_end.isoformat(), "direction": c.resolved_direction, "trigger": repr(c.trigger),
            "exit": None if c.exit is None else repr(c.exit), "currency": "INR", "limit_minor": int(c.limit * 100),
            "min_payout_minor": int(c.min_payout * 100), "payout_per_unit_minor": int(round(c.payout_per_unit * 100)),
            "gross_premium_pct": "0.05", "risk_premium_pct": "0.03", "pricing_version": 1, "data_set": None,
        }

    async with write_transaction():
        for pin, model, _ in sites:
            site = pincode_site(climate, pin)
            await bulk_insert(MonitoringTarget, [{
                "id": f"BENCH-{pin}", "name": pin, "longitude": site.longitude, "latitude": site.latitude,
                "district": site.query_district, "state": site.query_state, "pin_code_count": 1,
            }])
    for target in the_book:
        by_policy: dict[str, list] = {}
        for item in target.line_items:
            by_policy.setdefault(item.policy_id, []).append(item)
        quotes, policies, rows = [], [], []
        for items in by_policy.values():
            quote_id, policy_id = uuid.uuid4(), uuid.uuid4()
            quotes.append({"id": quote_id, "tenant_id": tenant, "kind": "TENANT", "name": "bench", "status": "CONVERTED",
                           "state": "ACCEPTED", "monitoring_target_id": f"BENCH-{target.target_id}", "currency": "INR",
                           "created_at": now, "updated_at": now})
            policies.append({"id": policy_id, "tenant_id": tenant, "quote_id": quote_id, "kind": "TENANT", "name": "bench",
                             "status": "ACTIVE", "inception_date": items[0].period_start, "expiry_date": items[-1].period_start,
                             "currency": "INR", "total_sum_insured_minor": sum(i.cap_minor for i in items),
                             "gross_premium_minor": 0, "activated_at": now, "created_at": now, "updated_at": now})
            for position, item in enumerate(items):
                c = item.covers[0]
                rows.append({"id": uuid.uuid4(), "tenant_id": tenant, "policy_id": policy_id, "position": position,
                             "name": item.month, "period_start": c.risk_start, "period_end": c.risk_end, "currency": "INR",
                             "quantity": item.quantity, "sum_insured_minor": item.cap_minor,
                             "total_sum_insured_minor": item.cap_minor, "min_payout_minor": 0,
                             "payout_per_unit_minor": 0, "premium_minor": 0,
                             "covers": [snapshot(x) for x in item.covers]})
        async with write_transaction():
            await bulk_insert(Quote, quotes)
            await bulk_insert(Policy, policies)
            await bulk_insert(LineItem, rows)


def database_run(sites, the_book) -> None:
    """Write the book to a private SQLite database, then time the activity's work on it:
    read the book, build its covers, simulate (activities/portfolio.py compute)."""
    from activities.portfolio import compute
    from models.temporal.portfolio import PortfolioJob

    t = time.perf_counter()
    asyncio.run(write_book(sites, the_book))
    print(f"database: the book written in {time.perf_counter() - t:.1f} s (not timed)")
    job = PortfolioJob(tenant_id=None, as_of=dt.date.today().isoformat(), workflow_id="bench")
    t = time.perf_counter()
    book, view = compute(job)
    took = time.perf_counter() - t
    print(f"activity's work (read the book, build its covers, simulate): {took:6.2f} s   "
          f"({view['policies']:,} policies, {view['lineItems']:,} line items)")


def quote_run(sites, the_book) -> None:
    """After `database_run`: the whole-book result stored with its losses per path, then the
    capital of a new quote from the book (activities/book_capital.py against_book) timed beside
    the package's own pricing (package_price_of) in the same run. The quote: 12 months of the
    first target's covers, 100,000 INR a line item."""
    import msgspec

    from activities.book_capital import _kept, against_book
    from activities.packages import package_price_of
    from activities.portfolio import compute_with_paths
    from activities.pricing_runs import load_parameters
    from models.db import portfolio as portfolio_db
    from models.db.core import run_sync
    from models.domain.index_catalog import BY_CODE
    from models.domain.packages import PACKAGE_SEED, canonical_lines
    from models.domain.quotes import CoverSnapshot, LineItemDraft
    from models.temporal.portfolio import PortfolioJob

    job = PortfolioJob(tenant_id=None, as_of=dt.date.today().isoformat(), workflow_id="bench-quote")
    book, view, paths = compute_with_paths(job)
    run_sync(lambda: portfolio_db.store_result("all", book.book_hash, book.as_of, view, job.workflow_id, paths,
                                               view["simulation"]["paths"]))
    stored_mb = sum(len(b) for b in paths.values()) / 1e6
    pin, model, months = sites[0]
    target = f"BENCH-{pin}"
    sum_minor = 100_000 * 100
    items = []
    for position, covers in enumerate(months):
        snaps = [msgspec.convert({
            "coverage_id": str(uuid.uuid5(uuid.NAMESPACE_URL, repr(c))), "index_code": c.index_code,
            "index_definition_id": str(BY_CODE[c.index_code].id), "start": c.risk_start.isoformat(), "end": c.risk_end.isoformat(), "currency": "INR",
            "limit_minor": int(c.limit * 100), "min_payout_minor": int(c.min_payout * 100),
            "payout_per_unit_minor": int(round(c.payout_per_unit * 100)), "direction": c.resolved_direction,
            "trigger": repr(c.trigger), "exit": None if c.exit is None else repr(c.exit),
            "gross_premium_pct": "0.05", "risk_premium_pct": "0.03", "pricing_version": 1,
        }, CoverSnapshot, strict=False) for c in covers]
        items.append(LineItemDraft(
            id=uuid.uuid4(), position=position, start=covers[0].risk_start, end=covers[0].risk_end, currency="INR",
            quantity=Decimal(sum_minor) / snaps[0].limit_minor, sum_insured_minor=sum_minor,
            total_sum_insured_minor=sum_minor, min_payout_minor=0, payout_per_unit_minor=0, premium_minor=0,
            covers=snaps,
        ))
    params = load_parameters()
    t = time.perf_counter()
    price = package_price_of(model, canonical_lines(items), "bench", 1 << 14, PACKAGE_SEED, params)
    own = time.perf_counter() - t
    _kept.clear()
    t = time.perf_counter()
    first = against_book(price, target, items, params)
    cold = time.perf_counter() - t
    t = time.perf_counter()
    again = against_book(price, target, items, params)
    same = time.perf_counter() - t
    assert again.covers == first.covers
    bigger = [msgspec.structs.replace(i, sum_insured_minor=2 * sum_minor, total_sum_insured_minor=2 * sum_minor,
                                      quantity=2 * i.quantity) for i in items]
    t = time.perf_counter()
    against_book(price, target, bigger, params)
    warm = time.perf_counter() - t
    b = first.report["bookCapital"]
    print(f"a quote's capital from the book (12 months at {pin}, 100,000 INR a line item; the book: "
          f"{view['policies']:,} policies, {stored_mb:.1f} MB of paths stored):")
    print(f"  the package's own pricing (package_price_of, 2^14 paths):     {own:6.2f} s")
    print(f"  against the book, first after a run (reads the paths):          {cold:6.2f} s")
    print(f"  against the book, another sum insured (paths, book kept):       {warm:6.2f} s")
    print(f"  against the book, the same quote again (kept):                  {same:6.2f} s")
    t = time.perf_counter()
    run_sync(lambda: portfolio_db.book_hash(None, dt.date.today()))
    hashed = time.perf_counter() - t
    print(f"  of each, the book's hash (one select of the policies in force):  {hashed:6.2f} s")
    print(f"  capital share {b['capitalShare']:.3f}; capital {b['capital'] * 1000:,.0f} +/- "
          f"{b['capitalStandardError'] * 1000:,.0f} of stand-alone {b['standAloneCapital'] * 1000:,.0f} INR")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--policies", type=int, default=10_000)
    ap.add_argument("--targets", type=int, default=20)
    ap.add_argument("--paths", type=int, default=PORTFOLIO_PATHS)
    ap.add_argument("--year", type=int, default=dt.date.today().year + 1)
    ap.add_argument("--database", action="store_true",
                    help="also write the book to a private SQLite database and time the activity's whole work on it")
    ap.add_argument("--quote", action="store_true",
                    help="with the database: store the whole book's result with its paths and time a new quote's "
                         "capital from the book beside the package's own pricing")
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
    if args.database or args.quote:
        database_run(sites, the_book)
    if args.quote:
        quote_run(sites, the_book)
    if args.demo:
        print(f"as-if record: {risk.as_if_year_count} years {risk.as_if_first_year}-{risk.as_if_last_year}; "
              "worst year by target: " + ", ".join(f"{t} {m / 100:,.0f}" for t, m in risk.as_if_years[0].by_target_minor))


if __name__ == "__main__":
    main()
