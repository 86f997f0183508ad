"""A pricing run reproduces bit for bit under its own model version (issue 26).

`golden/pricing-runs-2026.3.1.json` holds pricing runs as the pricing activity of
`pricing-2026.3.1` stored them (`activities.pricing_runs.price_coverages` at commit aaa29db,
the last one before 2026.4: its inputs (site, terms, seed, simulations, expected loss ratio)
and every figure of its outcome: risk premium, gross premium, metrics, burn analysis and
report). A rerun of those inputs under `pricing-2026.3.1` must give the same outcome to the
last digit, whatever the live engine has become; under the live version the figures move.

`python -m tests.pricing.test_pricing_run_versions --write` captured them (once, on the
2026.3.1 code)."""

from __future__ import annotations

import datetime as dt
import inspect
import json
import sys
import uuid
from decimal import Decimal
from pathlib import Path

import msgspec
import pytest

from models.domain.terms import CoverTerms, SiteRef
from models.temporal.pricing import PriceCoverageInput

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "golden" / "pricing-runs-2026.3.1.json"
OLD = "pricing-2026.3.1"
SIMULATIONS = 16384
# (pin, [(index code, month of 2027)], expected loss ratio override or None, fit summaries)
CASES = [
    ("600001", [("RAINFALL_MONTHLY_TOTAL", 1)], None, True),
    ("560001", [("RAINFALL_MONTHLY_TOTAL", 1), ("RAINFALL_DEFICIT", 7), ("TEMPERATURE_MAX", 4)], None, False),
    ("600001", [("RAINFALL_DEFICIT", 7)], "0.65", True),
]


class _NoProgress:
    def stage(self, *args) -> None:
        pass

    def __call__(self, done: int, total: int) -> None:
        pass


def _site(pin: str) -> SiteRef:
    from activities.pricing import load_climate_data, pincode_site
    from models.settings import DATA_DIR

    s = pincode_site(load_climate_data(DATA_DIR), pin)
    return SiteRef(target_id=f"T-{pin}", target_name=pin, district=s.query_district, state=s.query_state,
                   latitude=s.latitude, longitude=s.longitude)


def _runs(pin: str, covers: list, elr: str | None) -> list[PriceCoverageInput]:
    return [
        PriceCoverageInput(
            coverage_id=uuid.uuid5(uuid.NAMESPACE_URL, f"golden:{pin}:{code}:{month}"),
            version=1,
            simulations=SIMULATIONS,
            seed=20261126,
            expected_loss_ratio=Decimal(elr or "0.65"),
            requested_by="staff:golden",
            expected_loss_ratio_override=elr is not None,
        )
        for code, month in covers
    ]


def _price(site: SiteRef, terms: list[CoverTerms], runs: list[PriceCoverageInput], fits: bool, version: str | None):
    from activities.pricing_runs import price_coverages
    from activities.site_models import site_model

    kwargs = {}
    if "model_version" in inspect.signature(price_coverages).parameters:
        kwargs["model_version"] = version
        model = site_model(site, version)
    else:  # the 2026.3.1 code the golden figures were captured on
        model = site_model(site)
    outcomes = price_coverages(model, terms, runs, runs[0].seed, SIMULATIONS, _NoProgress(), 0.0, fits=fits, **kwargs)
    return [_stored(o) for o in outcomes]


def _stored(outcome) -> dict:
    """What a pricing run stores of its outcome (its duration is not a figure)."""
    out = json.loads(msgspec.json.encode(outcome))
    out.pop("seconds")
    if out.get("hold_reason", "") is None:  # a field added after 2026.3.1, at its default
        out.pop("hold_reason")
    return out


def _capture() -> list[dict]:
    from activities.catalogue import _propose
    from activities.site_models import site_model
    from models.domain.terms import CoverageSlot
    from models.temporal.catalogue import ProposeTermsInput

    cases = []
    for pin, covers, elr, fits in CASES:
        site = _site(pin)
        slots = []
        for code, month in covers:
            last = (dt.date(2027 + month // 12, month % 12 + 1, 1) - dt.timedelta(days=1))
            slots.append(CoverageSlot(index_code=code, start=dt.date(2027, month, 1), end=last))
        request = ProposeTermsInput(site=site, slots=slots, unit_limit=Decimal("100000"), currency="INR", fallbacks=False)
        from unittest import mock

        with mock.patch("activities.catalogue.activity"):
            proposals = _propose(site_model(site), request, slots)
        terms = [p.terms for p in proposals]
        runs = _runs(pin, covers, elr)
        cases.append({
            "site": msgspec.to_builtins(site),
            "terms": msgspec.to_builtins(terms),
            "runs": msgspec.to_builtins(runs),
            "fits": fits,
            "outcomes": _price(site, terms, runs, fits, OLD),
        })
    return cases


def _cases() -> list[dict]:
    return json.loads(GOLDEN.read_text())


def _inputs(case: dict):
    site = msgspec.convert(case["site"], SiteRef)
    terms = msgspec.convert(case["terms"], list[CoverTerms])
    runs = msgspec.convert(case["runs"], list[PriceCoverageInput])
    return site, terms, runs


@pytest.mark.parametrize("case", range(len(CASES)))
def test_a_2026_3_1_run_reproduces_bit_for_bit_under_its_version(case):
    golden = _cases()[case]
    site, terms, runs = _inputs(golden)
    for outcome in golden["outcomes"]:
        assert outcome["model_version"] == OLD
    assert _price(site, terms, runs, golden["fits"], OLD) == golden["outcomes"]


def test_the_live_version_prices_the_same_inputs_anew():
    """The live engine is another model: the same inputs give other figures, under its name."""
    from activities.pricing.version import MODEL_VERSION

    golden = _cases()[0]
    site, terms, runs = _inputs(golden)
    live = _price(site, terms, runs, golden["fits"], MODEL_VERSION)
    assert live[0]["model_version"] == MODEL_VERSION != OLD
    assert live[0]["risk_premium"] != golden["outcomes"][0]["risk_premium"]


if __name__ == "__main__":  # python -m tests.pricing.test_pricing_run_versions --write
    if sys.argv[1:2] == ["--write"]:
        GOLDEN.write_text(json.dumps(_capture(), indent=1, sort_keys=True) + "\n")
        print(f"wrote {GOLDEN}")
