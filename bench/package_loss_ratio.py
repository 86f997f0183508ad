"""The loss ratio of the demo catalogues' 12-month packages, on the old basis and the new.

For each demo pin code (560001 Bengaluru, 400001 Mumbai, 110001 Delhi, 600001 Chennai) and a
12-month risk year, the tenant quote's package: one line item per month, the month's two
preferred viable covers (models/domain/quotes.py), sum insured S per line item.

* **old** (pricing-2026.3.1, the engine frozen in activities/pricing/frozen/v2026_3_1): the
  catalogue's first pricing of the target's slots as the service ran it (terms proposed, the
  viable covers priced jointly with the seed of the first coverage, each cover's stand-alone
  risk-loaded premium: 0.67 sigma_param + 6 % (VaR99 - EL), / 0.8). The tenant quote charged
  the sum of its covers' stand-alone premiums; the fast quote of the same covers priced them
  jointly without the line-item cap (frozen quote_pricing.price_quote, total sum insured
  24 S). Both charged the same risk premium (the covers' signed-off EL).
* **new** (the live engine): the same slots through the live catalogue activity
  (activities/catalogue.py: propose_and_price_coverages, run in Temporal's activity test
  environment), then the package's price, as both surfaces now charge it
  (activities/packages.py: package_price_of; models/domain/packages.py: apply_package_price):
  joint, each line item capped at S, capital on the package's TVaR99 Euler-allocated.

Prints per target: risk premium (EL), gross premium and EL / gross of each; then the
loss ratio over the four packages (sum of EL / sum of gross).

Run from the repo: ``.venv/bin/python bench/package_loss_ratio.py [--year 2027] [--sum 250000]``
(about a minute: the old and the new catalogue pricing of 4 targets x 12 months).
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
import time
import uuid
from decimal import ROUND_HALF_EVEN, ROUND_UP, Decimal
from pathlib import Path

import msgspec

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != BENCH_DIR]
sys.path.insert(0, str(REPO))

from models.db.reference_data import build_targets, read_pin_codes  # noqa: E402
from models.domain.packages import PACKAGE_SEED, apply_package_price, canonical_lines  # noqa: E402
from models.domain.pricing_runs import coverage_seed  # noqa: E402
from models.domain.quotes import CoverSnapshot, QuoteError, build_quote, fallback_slots, month_segments, slots_for  # noqa: E402
from models.domain.terms import SiteRef, catalogue_coverage_id  # noqa: E402
from models.settings import DATA_DIR  # noqa: E402

PIN_CODES = {"560001": "Bengaluru", "400001": "Mumbai", "110001": "Delhi", "600001": "Chennai"}
UNIT_LIMIT = Decimal("100000")
SIMULATIONS = 1 << 17
CENT = Decimal("0.01")
FRACTION = Decimal("0.00000001")


def _minor(amount: Decimal) -> int:
    return int((amount * 100).quantize(Decimal(1), rounding=ROUND_HALF_EVEN))


def site_of(pin: str) -> SiteRef:
    target = next(t for t in build_targets(read_pin_codes()) if pin in t.pin_codes)
    return SiteRef(
        target_id=target.id, target_name=target.name, district=target.district, state=target.state,
        latitude=target.latitude, longitude=target.longitude,
    )


def snapshot(site: SiteRef, slot, terms, risk_pct: Decimal, gross_pct: Decimal) -> CoverSnapshot:
    return CoverSnapshot(
        coverage_id=catalogue_coverage_id(site.target_id, slot),
        index_code=slot.index_code,
        index_definition_id=uuid.uuid5(uuid.NAMESPACE_URL, slot.index_code),
        start=slot.start,
        end=slot.end,
        direction=terms.direction,
        trigger=terms.trigger,
        exit=terms.exit,
        currency="INR",
        limit_minor=_minor(terms.limit),
        min_payout_minor=_minor(terms.min_payout),
        payout_per_unit_minor=_minor(terms.payout_per_unit),
        gross_premium_pct=gross_pct,
        risk_premium_pct=risk_pct,
        pricing_version=1,
    )


def quote(site: SiteRef, year: int, covers: dict, sum_minor: int):
    """The tenant quote's draft of the year (models/domain/quotes.py: build_quote), leaving out
    the months with fewer than two viable covers (listed in `skipped`)."""
    start, end = dt.date(year, 1, 1), dt.date(year, 12, 31)
    qid = uuid.uuid5(uuid.NAMESPACE_URL, f"bench:{site.target_id}:{year}")
    items, skipped = [], []
    for first, last in month_segments(start, end):
        try:
            month = build_quote(
                quote_id=qid, line_item_ids=[uuid.uuid5(qid, str(first))], tenant_id=str(uuid.uuid4()),
                monitoring_target_id=site.target_id, start=first, end=last, currency="INR",
                sum_insured_minor=sum_minor, external_ref=None, covers_by_slot=covers, today=dt.date(year - 1, 1, 1),
            )
        except QuoteError:
            skipped.append(first.strftime("%b"))
            continue
        items.append(msgspec.structs.replace(month.line_items[0], position=len(items)))
    whole = build_quote(
        quote_id=qid, line_item_ids=[uuid.uuid5(qid, "x")], tenant_id=str(uuid.uuid4()),
        monitoring_target_id=site.target_id, start=items[0].start, end=items[0].end, currency="INR",
        sum_insured_minor=sum_minor, external_ref=None, covers_by_slot=covers, today=dt.date(year - 1, 1, 1),
    )
    draft = msgspec.structs.replace(
        whole,
        line_items=items,
        total_sum_insured_minor=sum(i.total_sum_insured_minor for i in items),
        gross_premium_minor=sum(i.premium_minor for i in items),
        risk_premium_minor=int(
            (sum((c.risk_premium_pct for i in items for c in i.covers), Decimal(0)) * sum_minor).quantize(
                Decimal(1), rounding=ROUND_HALF_EVEN
            )
        ),
    )
    return draft, skipped


# --- old: pricing-2026.3.1 ------------------------------------------------------------------------


def old_basis(site: SiteRef, year: int, sum_minor: int) -> tuple[Decimal, Decimal, Decimal, list[str]]:
    """(risk premium, tenant gross, fast-quote gross, months left out) of the package on the
    frozen engine."""
    from activities.pricing.frozen import engine_for

    eng = engine_for("pricing-2026.3.1")
    from activities.pricing.frozen.v2026_3_1 import loading, quote_pricing, uncertainty

    model = eng.build_site_model(eng.load_climate_data(DATA_DIR), site.district, site.state, site.latitude, site.longitude)
    slots = slots_for(dt.date(year, 1, 1), dt.date(year, 12, 31))
    proposals = {s: eng.propose_terms(model, s.index_code, s.start, s.end, UNIT_LIMIT) for s in slots}
    extra = fallback_slots(slots, {s for s, p in proposals.items() if p.terms is not None})
    proposals |= {s: eng.propose_terms(model, s.index_code, s.start, s.end, UNIT_LIMIT) for s in extra}
    viable = [(s, p.terms) for s, p in proposals.items() if p.terms is not None]
    domain_terms = {s: _domain_terms(s, t) for s, t in viable}
    covers = [eng.CoverTerms.of(domain_terms[s], cover_id=str(catalogue_coverage_id(site.target_id, s))) for s, _ in viable]
    seed = coverage_seed(catalogue_coverage_id(site.target_id, viable[0][0]))
    sample = eng.simulate_payouts(model, covers, SIMULATIONS, seed)
    priced = eng.price_sample(model, covers, sample, seed, 0.65).covers
    bands = uncertainty.parameter_bands(model, covers, seed)
    params = loading.LoadParameters()  # the settings' defaults
    snaps = {}
    for (slot, _), cover, p, band in zip(viable, covers, priced, bands):
        burn = eng.burn_analysis(model, cover, p, parameter_sd=band.sd)
        adjusted = float(burn.credibility_expected_loss if burn.review else p.metrics.expected_loss)
        premium = loading.risk_loaded_premium(adjusted, band.sd, float(p.metrics.var_99), float(cover.limit), params)
        rp = Decimal(float(premium.adjusted_expected_loss)).quantize(CENT, rounding=ROUND_HALF_EVEN)
        gp = Decimal(float(premium.gross_premium)).quantize(CENT, rounding=ROUND_HALF_EVEN)
        snaps[slot] = snapshot(site, slot, domain_terms[slot], _rate(float(rp) / float(cover.limit)), _rate(float(gp) / float(cover.limit)))
    draft, skipped = quote(site, year, snaps, sum_minor)
    chosen = [c for item in draft.line_items for c in item.covers]
    q = float(Decimal(sum_minor) / Decimal(chosen[0].limit_minor))
    adjusted = float(sum(c.risk_premium_pct * Decimal(c.limit_minor) / 100 for c in chosen) * Decimal(repr(q)))
    fast = quote_pricing.price_quote(
        model, [eng.CoverTerms.of(c.terms, cover_id=str(c.coverage_id)) for c in chosen], q, SIMULATIONS, PACKAGE_SEED,
        params, adjusted,
    )
    fast_gross = Decimal(float(fast.premium.gross_premium)).quantize(CENT, rounding=ROUND_HALF_EVEN)
    return Decimal(draft.risk_premium_minor) / 100, Decimal(draft.gross_premium_minor) / 100, fast_gross, skipped


def _rate(x: float) -> Decimal:
    return Decimal(repr(float(x))).quantize(FRACTION)


def _domain_terms(slot, t):
    from models.domain.terms import CoverTerms

    return CoverTerms(
        index_code=slot.index_code, start=slot.start, end=slot.end, direction=t.resolved_direction,
        trigger=Decimal(repr(float(t.trigger))), exit=None if t.exit is None else Decimal(repr(float(t.exit))),
        limit=t.limit.quantize(CENT), min_payout=t.min_payout.quantize(CENT),
        payout_per_unit=t.payout_per_unit.quantize(CENT, rounding=ROUND_UP), currency="INR",
    )


# --- new: the live engine, as the service prices now ----------------------------------------------


def new_basis(site: SiteRef, year: int, sum_minor: int) -> tuple[Decimal, Decimal, dict, list[str]]:
    """(risk premium, gross premium, package report, months left out) of the package on the
    live engine."""
    from temporalio.testing import ActivityEnvironment

    from activities.catalogue import propose_and_price_coverages
    from activities.packages import package_price_of, _key
    from activities.pricing_runs import load_parameters
    from activities.site_models import site_model
    from models.temporal.pricing import ProposeAndPriceInput
    from models.temporal.catalogue import ProposeTermsInput
    from models.temporal.quotes import PackagePricingInput

    slots = slots_for(dt.date(year, 1, 1), dt.date(year, 12, 31))
    found = ActivityEnvironment().run(
        propose_and_price_coverages,
        ProposeAndPriceInput(
            proposal=ProposeTermsInput(site=site, slots=slots, unit_limit=UNIT_LIMIT, currency="INR", fallbacks=True),
            simulations=SIMULATIONS, expected_loss_ratio=Decimal("0.65"), requested_by="bench",
        ),
    )
    terms = {p.slot: p for p in found.proposals if p.viable}
    snaps = {}
    for priced in found.priced:
        slot = next(s for s in terms if catalogue_coverage_id(site.target_id, s) == priced.run.coverage_id)
        o = priced.outcome
        snaps[slot] = snapshot(site, slot, terms[slot], o.risk_premium_pct, o.gross_premium_indication_pct)
    draft, skipped = quote(site, year, snaps, sum_minor)
    request = PackagePricingInput(site.target_id, draft.line_items, SIMULATIONS, PACKAGE_SEED)
    params = load_parameters()
    _, key = _key(request, params)
    price = package_price_of(site_model(site), canonical_lines(draft.line_items), key, SIMULATIONS, PACKAGE_SEED, params)
    priced_draft = apply_package_price(draft, price)
    return Decimal(priced_draft.risk_premium_minor) / 100, Decimal(priced_draft.gross_premium_minor) / 100, price.report, skipped


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--year", type=int, default=2027)
    ap.add_argument("--sum", type=int, default=250_000, help="sum insured per line item, INR")
    ap.add_argument("--only", choices=("old", "new"), default=None)
    args = ap.parse_args()
    sum_minor = args.sum * 100
    t0 = time.perf_counter()
    totals = {"old": [0, 0, 0], "new": [0, 0]}
    print(f"12-month packages Jan-Dec {args.year}, sum insured {args.sum:,} INR per line item (one line item a month, two covers each)\n")
    print(f"{'target':<10} {'basis':<26} {'risk premium':>14} {'gross':>14} {'EL/gross':>9}")
    for pin, name in PIN_CODES.items():
        site = site_of(pin)
        if args.only in (None, "old"):
            risk, tenant, fast, skipped = old_basis(site, args.year, sum_minor)
            totals["old"][0] += risk
            totals["old"][1] += tenant
            totals["old"][2] += fast
            print(f"{name:<10} {'old: tenant (stand-alone)':<26} {risk:>14,.2f} {tenant:>14,.2f} {risk / tenant:>9.3f}")
            print(f"{'':<10} {'old: fast quote (no cap)':<26} {risk:>14,.2f} {fast:>14,.2f} {risk / fast:>9.3f}"
                  + (f"   (left out, fewer than two viable covers: {', '.join(skipped)})" if skipped else ""))
        if args.only in (None, "new"):
            risk, gross, report, skipped = new_basis(site, args.year, sum_minor)
            totals["new"][0] += risk
            totals["new"][1] += gross
            p = report["premium"]
            s = Decimal(args.sum)
            print(f"{'':<10} {'new: package (both)':<26} {risk:>14,.2f} {gross:>14,.2f} {risk / gross:>9.3f}"
                  f"   (uncertainty {float(p['uncertaintyLoad']) * float(s):,.0f}, capital load "
                  f"{float(p['capitalLoad']) * float(s):,.0f}, expenses {float(p['expenses']) * float(s):,.0f}; "
                  f"cap saves {(report['uncappedExpectedPayout'] - report['expectedPayout']) * float(s):,.0f} of EL)"
                  + (f"   (left out, fewer than two viable covers: {', '.join(skipped)})" if skipped else ""))
    print()
    if args.only in (None, "old"):
        r, t, f = totals["old"]
        print(f"old basis, all four: EL/gross {r / t:.3f} as tenant quotes, {r / f:.3f} as fast quotes")
    if args.only in (None, "new"):
        r, g = totals["new"]
        print(f"new basis, all four: EL/gross {r / g:.3f} on both surfaces")
    print(f"({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
