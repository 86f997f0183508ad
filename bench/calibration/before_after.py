"""Before and after issue 26: the covers the issue names, priced by pricing-2026.3.1 (the frozen
engine, "before") and by the live engine ("after"), as the table in docs/pricing-model.md.

For each cover: the terms each engine proposes (trigger, exit; or why the live engine does not
offer it), the model expected loss, the three burn views of the record (full record, last 30
years, detrended record: computed by the live engine's burn analysis on each engine's terms,
so before and after are read against the same record), the parameter band (5-95 %), the
gross premium and the attachment frequency, all per 100 of limit; the data set it settles on;
and the burn check (HELD keeps it off sale until an actuary publishes it).

    .venv/bin/python bench/calibration/before_after.py [--markdown]

Findings 5 (one package, one price) and 6 (travel) are measured over the service by their own
scripts (bench/package_loss_ratio.py, bench/calibration/hourly_daily.py); this one covers the
catalogue's covers (findings 1-4). Prices are the first pricing of a 2027 month at the pin
code's target, seed 1, 2^17 paths (the catalogue's run).
"""

from __future__ import annotations

import argparse
import calendar
import importlib
import sys
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

RISK_YEAR = 2027
LIMIT = Decimal(100)
# (finding, label, pin code, index code, month)
COVERS = [
    (1, "Chennai January excess", "600001", "RAINFALL_MONTHLY_TOTAL", 1),
    (1, "Bengaluru January excess", "560001", "RAINFALL_MONTHLY_TOTAL", 1),
    (2, "Delhi May heat", "110001", "TEMPERATURE_MAX", 5),
    (2, "Jaipur June heat", "302001", "TEMPERATURE_MAX", 6),
    (2, "Puri October wind", "752001", "WIND_MAX_SPEED", 10),
    (2, "Chennai November wind", "600001", "WIND_MAX_SPEED", 11),
    (3, "Mumbai July excess", "400001", "RAINFALL_MONTHLY_TOTAL", 7),
    (3, "Kolkata August excess", "700001", "RAINFALL_MONTHLY_TOTAL", 8),
    *[(4, f"Mumbai {calendar.month_name[m]} excess", "400001", "RAINFALL_MONTHLY_TOTAL", m) for m in (1, 2, 3, 4)],
    *[(4, f"{city} {calendar.month_name[m]} deficit", pin, "RAINFALL_DEFICIT", m) for city, pin, months in (
        ("Chennai", "600001", (1, 3)),
        ("Guwahati", "781001", (11, 12, 1)),
        ("Bengaluru", "560001", (3,)),
        ("Jaipur", "302001", (5, 6, 9)),
        ("Kolkata", "700001", (2, 3)),
        ("Delhi", "110001", (5, 6, 9)),
        ("Puri", "752001", (3,)),
    ) for m in months],
]
SIMULATIONS = 1 << 17


@dataclass
class Row:
    finding: int
    label: str
    version: str
    terms: str
    el: float | None = None
    views: str = ""
    band: str = ""
    gross: float | None = None
    attach: float | None = None
    settles_on: str = ""
    check: str = ""


def _month(m: int) -> tuple[date, date]:
    return date(RISK_YEAR, m, 1), date(RISK_YEAR, m, calendar.monthrange(RISK_YEAR, m)[1])


def _views(live, model, terms, priced) -> str:
    """The live engine's three record views of `terms` (burn rate, attachment frequency)."""
    from activities.pricing.composition import decide
    from activities.pricing.loading import LoadParameters
    from activities.pricing.uncertainty import parameter_bands

    band = parameter_bands(model, [terms], seed=1)[0]
    d = decide(model, terms, priced, band, LoadParameters())
    return "; ".join(f"{v.name} {v.burn_cost_rate:.1%} (attaches {v.payout_frequency:.0%})" for v in d.burn.views)


def _live_terms(live, old_terms):
    return live.CoverTerms(index_code=old_terms.index_code, risk_start=old_terms.risk_start, risk_end=old_terms.risk_end,
                           trigger=old_terms.trigger, exit=old_terms.exit, limit=old_terms.limit,
                           min_payout=old_terms.min_payout, payout_per_unit=old_terms.payout_per_unit)


def rows() -> list[Row]:
    from activities.pricing.composition import decide
    from activities.pricing.frozen import engine_for
    from activities.pricing.loading import LoadParameters
    from activities.pricing.uncertainty import parameter_bands
    from models.domain.index_catalog import BY_CODE
    from models.settings import DATA_DIR

    old = engine_for("pricing-2026.3.1")
    live = importlib.import_module("activities.pricing")
    old_load = importlib.import_module(f"{old.__name__}.loading")
    old_unc = importlib.import_module(f"{old.__name__}.uncertainty")
    climates = old.load_climate_data(DATA_DIR), live.load_climate_data(DATA_DIR)
    models: dict[tuple[int, str], object] = {}

    def model(i: int, pin: str):
        engine, climate = (old, live)[i], climates[i]
        if (i, pin) not in models:
            s = engine.pincode_site(climate, pin)
            models[i, pin] = engine.build_site_model(climate, s.query_district, s.query_state, s.latitude, s.longitude)
        return models[i, pin]

    out: list[Row] = []
    for finding, label, pin, code, m in COVERS:
        start, end = _month(m)
        # before: pricing-2026.3.1 as the catalogue priced it, settled on the index's data set then
        before = Row(finding, label, "2026.3.1", "")
        proposal = old.propose_terms(model(0, pin), code, start, end, LIMIT)
        old_terms = proposal.terms if proposal.viable else None
        if old_terms is None:
            before.terms = f"not offered ({proposal.reason})"
        else:
            p = old.price_cover(model(0, pin), old_terms, n=SIMULATIONS, seed=1)
            b = old_unc.parameter_bands(model(0, pin), [old_terms], seed=1)[0]
            burn = old.burn_analysis(model(0, pin), old_terms, p, b.sd)
            adjusted = float(burn.credibility_expected_loss if burn.review else p.risk_premium)
            g = old_load.risk_loaded_premium(adjusted, b.sd, float(p.metrics.var_99), float(LIMIT), old_load.LoadParameters())
            before.terms = f"{old_terms.trigger:g}-{old_terms.exit:g}"
            before.el, before.gross, before.attach = float(p.risk_premium), g.gross_premium, p.metrics.prob_attach
            before.band = f"{b.low:.2f}-{b.high:.2f} (sampling)"
            before.check = "NO_HISTORY" if burn.z_score is None else "DISAGREES" if burn.review else "AGREES"
            before.views = _views(live, model(1, pin), _live_terms(live, old_terms),
                                  live.price_cover(model(1, pin), _live_terms(live, old_terms), n=SIMULATIONS, seed=1))
        before.settles_on = _old_settlement(code)
        out.append(before)

        after = Row(finding, label, "2026.4.0", "", settles_on=BY_CODE[code].data_set_id)
        proposal = live.propose_terms(model(1, pin), code, start, end, LIMIT)
        if not proposal.viable:
            after.terms = f"not offered ({proposal.reason})"
        else:
            t = proposal.terms
            p = live.price_cover(model(1, pin), t, n=SIMULATIONS, seed=1)
            band = parameter_bands(model(1, pin), [t], seed=1)[0]
            d = decide(model(1, pin), t, p, band, LoadParameters())
            after.terms = f"{t.trigger:g}-{t.exit:g}"
            after.el, after.gross, after.attach = float(p.risk_premium), d.premium.gross_premium, p.metrics.prob_attach
            after.band = f"{band.low:.2f}-{band.high:.2f} (" + ", ".join(f"{x.name} {x.share:.0%}" for x in band.drivers) + ")"
            after.views = "; ".join(f"{v.name} {v.burn_cost_rate:.1%} (attaches {v.payout_frequency:.0%})" for v in d.burn.views)
            after.check = d.burn_check
        out.append(after)
    return out


def _old_settlement(code: str) -> str:
    """What the index settled on under 2026.3.1 (finding 2: heat and wind were priced on the IMD
    grid and IBTrACS but settled on the hourly reanalysis; models.domain.data_sets keeps it)."""
    from models.domain.data_sets import LEGACY_DATA_SETS
    from models.domain.index_catalog import BY_CODE

    return LEGACY_DATA_SETS.get(code, BY_CODE[code].data_set_id)


def _pct(x: float | None) -> str:
    return "" if x is None else f"{x:.2f}"


def _attach(x: float | None) -> str:
    return "" if x is None else f"{x:.1%}"


def print_table(table: list[Row], markdown: bool) -> None:
    head = ["finding", "cover", "model", "trigger-exit", "EL", "band 5-95 %", "gross", "attaches", "record views",
            "settles on", "burn check"]
    if markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
    for r in table:
        cells = [str(r.finding), r.label, r.version, r.terms, _pct(r.el), r.band, _pct(r.gross), _attach(r.attach),
                 r.views, r.settles_on, r.check]
        print("| " + " | ".join(cells) + " |" if markdown else "  ".join(cells))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--markdown", action="store_true", help="print the table as markdown (docs/pricing-model.md)")
    print_table(rows(), parser.parse_args().markdown)
