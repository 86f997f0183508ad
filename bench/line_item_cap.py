"""What the line item's aggregate cap is worth: a tenant line item of sum insured S pays at
most S (``models.domain.payout.line_item_payout``), but its premium is the sum of its two
covers' prices. Excess and deficit rainfall never both pay; the heat (or wind) cover that
stands in for a deficit cover can pay in the same month as excess rainfall, and the cap then
keeps part of the sum. This prints, for the pricing panel and the twelve months of a risk
year, the pair's expected loss without the cap (the sum of the covers'), with it
(``E[min(S, X + Y)]`` on shared Monte Carlo paths), the difference as a share of the pair's
expected loss, and P(both pay).

Run from the repo: ``.venv/bin/python bench/line_item_cap.py [--paths 65536] [--year 2027]``.
"""

from __future__ import annotations

import argparse
import calendar
import time
from datetime import date
from decimal import Decimal

import numpy as np

from activities.pricing import build_site_model, load_climate_data, pincode_site, propose_terms
from activities.pricing.montecarlo import simulate_payouts
from models.domain.quotes import COVER_PREFERENCE, COVERS_PER_LINE_ITEM
from models.settings import DATA_DIR

PANEL = {
    "110001": "Delhi", "400001": "Mumbai", "600001": "Chennai", "560001": "Bengaluru", "302001": "Jaipur",
    "700001": "Kolkata", "781001": "Guwahati", "752001": "Puri", "171001": "Shimla",
}
LIMIT = Decimal("100000")


def dense(sample, i: int) -> np.ndarray:
    out = np.zeros(sample.n)
    out[sample.idx[i]] = sample.vals[i]
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--paths", type=int, default=1 << 16)
    ap.add_argument("--year", type=int, default=2027)
    args = ap.parse_args()
    t0 = time.perf_counter()
    climate = load_climate_data(DATA_DIR)
    limit = float(LIMIT)
    print(f"{'target':<10} {'month':>5} {'pair':<16} {'EL sum':>9} {'EL capped':>9} {'credit %':>8} {'P(both)':>7}")
    total_sum = total_cap = 0.0
    fallback_sum = fallback_cap = 0.0
    for pin, name in PANEL.items():
        site = pincode_site(climate, pin)
        model = build_site_model(climate, site.query_district, site.query_state, site.latitude, site.longitude)
        for m in range(1, 13):
            period = (date(args.year, m, 1), date(args.year, m, calendar.monthrange(args.year, m)[1]))
            covers = []
            for code in COVER_PREFERENCE:
                p = propose_terms(model, code, *period, LIMIT)
                if p.viable:
                    covers.append(p.terms)
                if len(covers) == COVERS_PER_LINE_ITEM:
                    break
            if len(covers) < COVERS_PER_LINE_ITEM:
                print(f"{name:<10} {m:>5} not quotable")
                continue
            s = simulate_payouts(model, covers, n=args.paths, seed=20261124)
            x, y = dense(s, 0), dense(s, 1)
            el_sum, el_cap = float((x + y).mean()), float(np.minimum(limit, x + y).mean())
            pair = "+".join(c.index_code.split("_")[0].lower()[:6] for c in covers)
            credit = 100 * (el_sum - el_cap) / el_sum if el_sum else 0.0
            print(f"{name:<10} {m:>5} {pair:<16} {el_sum:>9.0f} {el_cap:>9.0f} {credit:>8.2f} {((x > 0) & (y > 0)).mean():>7.4f}")
            total_sum += el_sum
            total_cap += el_cap
            if covers[1].index_code != "RAINFALL_DEFICIT":
                fallback_sum += el_sum
                fallback_cap += el_cap
    print(f"\npooled credit of the cap: {100 * (total_sum - total_cap) / total_sum:.2f} % of the pairs' expected loss")
    if fallback_sum:
        print(f"pairs with a fallback cover: {100 * (fallback_sum - fallback_cap) / fallback_sum:.2f} %")
    print(f"({args.paths} paths per pair, {time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
