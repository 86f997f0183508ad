"""Which months a 12-month tenant quote covers at targets across India (issue 33, 1).

For each target: the catalogue's proposals for the year's slots, as the quote asks for them
(the two preferred indices of each month, then the fallbacks of months short of viable covers:
models/domain/quotes.py `slots_for`, `fallback_slots`; the terms from the same calibrated site
model the catalogue activity uses, activities/site_models.py), then `build_quote` on the viable
ones with a stand-in price. Prints per target the covers of each month (2, 1 or 0) and whether
the quote is made; no Monte Carlo pricing, so it runs in seconds per target. The covers' prices
do not decide which months a quote covers (held covers aside), so this is what `POST /quotes`
answers once the catalogue is priced.

Run from the repo: ``.venv/bin/python bench/quote_months_survey.py [--random 40] [--year 2027]``
(default: a panel of 15 pin codes across India; `--random N`: N targets drawn from the pin-code
mapping with a fixed seed).
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import sys
import time
import uuid
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from activities.pricing import propose_terms  # noqa: E402
from activities.site_models import site_model  # noqa: E402
from models.db.reference_data import build_targets, read_pin_codes  # noqa: E402
from models.domain.quotes import (  # noqa: E402
    CoverSnapshot,
    QuoteError,
    build_quote,
    fallback_slots,
    month_segments,
    slots_for,
)
from models.domain.terms import CoverageSlot, SiteRef  # noqa: E402

PANEL = {
    "400001": "Mumbai", "600001": "Chennai", "411001": "Pune", "560001": "Bengaluru", "110001": "Delhi",
    "700001": "Kolkata", "500001": "Hyderabad", "380001": "Ahmedabad", "302001": "Jaipur", "226001": "Lucknow",
    "800001": "Patna", "781001": "Guwahati", "682001": "Kochi", "751001": "Bhubaneswar", "160017": "Chandigarh",
}
LIMIT = Decimal("100000")


def _snapshot(slot: CoverageSlot) -> CoverSnapshot:
    return CoverSnapshot(
        coverage_id=uuid.uuid5(uuid.NAMESPACE_URL, f"{slot}"), index_code=slot.index_code,
        index_definition_id=uuid.uuid5(uuid.NAMESPACE_URL, slot.index_code), start=slot.start, end=slot.end,
        direction="ABOVE", trigger=Decimal(1), exit=None, currency="INR", limit_minor=10_000_000,
        min_payout_minor=1_000_000, payout_per_unit_minor=1, gross_premium_pct=Decimal("0.1"),
        risk_premium_pct=Decimal("0.05"), pricing_version=1,
    )


def survey(site: SiteRef, year: int) -> tuple[list[int], str]:
    """(covers per month, outcome) of a 12-month quote at `site`."""
    start, end = dt.date(year, 1, 1), dt.date(year, 12, 31)
    model = site_model(site)

    def viable(slots: list[CoverageSlot]) -> set[CoverageSlot]:
        return {s for s in slots if propose_terms(model, s.index_code, s.start, s.end, LIMIT).viable}

    slots = slots_for(start, end)
    found = viable(slots)
    extra = fallback_slots(slots, found)
    found |= viable(extra)
    found |= viable(fallback_slots(slots + extra, found))  # heat not viable beside one rain cover: wind
    try:
        draft = build_quote(
            quote_id=uuid.uuid4(), line_item_ids=[uuid.uuid4() for _ in range(12)], tenant_id="t",
            monitoring_target_id=site.target_id, start=start, end=end, currency="INR", sum_insured_minor=10_000_000,
            external_ref=None, covers_by_slot={s: _snapshot(s) for s in found}, today=dt.date(year - 1, 11, 1),
        )
    except QuoteError as err:
        return [0] * 12, f"refused: {err}"
    by_month = {i.start.month: len(i.covers) for i in draft.line_items}
    counts = [by_month.get(s.month, 0) for s, _ in month_segments(start, end)]
    return counts, f"{len(draft.line_items)} line items, uncovered {[f'{m.start:%b}' for m in draft.uncovered_months]}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--year", type=int, default=2027)
    ap.add_argument("--random", type=int, default=0, help="draw N targets from the pin-code mapping instead")
    args = ap.parse_args()
    targets = build_targets(read_pin_codes())
    target_of = {pc: t for t in targets for pc in t.pin_codes}
    if args.random:
        picked = [(t.pin_codes[0], t.name) for t in random.Random(33).sample(targets, args.random)]
    else:
        picked = list(PANEL.items())
    made = short = 0
    t0 = time.perf_counter()
    for pin, label in picked:
        t = target_of[pin]
        site = SiteRef(target_id=t.id, target_name=t.name, district=t.district, state=t.state,
                       latitude=t.latitude, longitude=t.longitude)
        counts, outcome = survey(site, args.year)
        made += not outcome.startswith("refused")
        short += any(c < 2 for c in counts)
        print(f"{pin} {label[:28]:<28} {t.id} {''.join(map(str, counts))}  {outcome}", flush=True)
    print(f"{made} of {len(picked)} quoted ({short} with a month of fewer than two covers, which the old rule "
          f"refused) in {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
