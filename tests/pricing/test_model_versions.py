"""Old runs reproduce bit for bit under their own model version (issue 26).

`activities/pricing/frozen/v2026_3_1` is the engine of `pricing-2026.3.1`, copied when 2026.4
began and never edited: its files' hashes are held in `frozen/MANIFEST.sha256`, and golden
figures captured from that engine at the time (terms proposed, prices, tail metrics,
parameter bands, burn analyses and premiums of covers at the four reference targets, every
number as its exact repr) must come out of it again, to the last bit.

`python -m tests.pricing.test_model_versions --write VERSION` captures the golden figures of
a new frozen version (once, when it is frozen)."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import sys
from decimal import Decimal
from pathlib import Path
from types import ModuleType

import pytest

from activities.pricing.frozen import FROZEN, engine_for
from models.settings import DATA_DIR

HERE = Path(__file__).resolve().parent
FROZEN_DIR = HERE.parents[1] / "activities" / "pricing" / "frozen"
PINS = ("560001", "400001", "110001", "600001")
N, SEED = 8192, 20261126
# (index code, first month offset from the golden year's January, months): a monthly cover,
# a two-month one, and a partial month.
SLOTS = [("RAINFALL_MONTHLY_TOTAL", 6, 1), ("RAINFALL_DEFICIT", 7, 1), ("TEMPERATURE_MAX", 4, 1),
         ("RAINFALL_MONTHLY_TOTAL", 8, 2), ("WIND_MAX_SPEED", 9, 1)]
YEAR = 2027
LIMIT = Decimal("100000")


def _exact(value):
    """Every number as its exact text (floats by repr), so equality is to the last bit."""
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, dict):
        return {k: _exact(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_exact(v) for v in value]
    return value


def figures(engine: ModuleType) -> dict:
    """What the engine makes of the golden covers: proposals, joint prices, bands, burns and
    premiums (the pieces a pricing run is built from)."""
    from importlib import import_module

    uncertainty = import_module(f"{engine.__name__}.uncertainty")
    loading = import_module(f"{engine.__name__}.loading")
    climate = engine.load_climate_data(DATA_DIR)
    out: dict = {}
    for pin in PINS:
        site = engine.pincode_site(climate, pin)
        model = engine.build_site_model(climate, site.query_district, site.query_state, site.latitude, site.longitude)
        covers, proposals = [], []
        for code, month, months in SLOTS:
            start = dt.date(YEAR, month, 1)
            end_month = month + months - 1
            end = dt.date(YEAR, end_month % 12 + 1, 1) - dt.timedelta(days=1) if end_month < 12 else dt.date(YEAR, 12, 31)
            proposal = engine.propose_terms(model, code, start, end, LIMIT, cover_id=f"{pin}:{code}:{month}")
            proposals.append(engine.as_dict(proposal))
            if proposal.viable:
                covers.append(proposal.terms)
        priced = engine.price_covers(model, covers, n=N, seed=SEED)
        bands = uncertainty.parameter_bands(model, covers, SEED)
        burns, premiums = [], []
        for cover, cover_price, band in zip(covers, priced.covers, bands):
            burns.append(engine.as_dict(engine.burn_analysis(model, cover, cover_price, band.sd)))
            premiums.append(engine.as_dict(loading.risk_loaded_premium(
                float(cover_price.risk_premium), band.sd, float(cover_price.metrics.var_99), float(cover.limit),
                loading.LoadParameters())))
        out[pin] = {"proposals": proposals, "priced": engine.as_dict(priced),
                    "bands": [engine.as_dict(b) for b in bands], "burns": burns, "premiums": premiums}
    return _exact(out)


def _golden_path(version: str) -> Path:
    return HERE / "golden" / f"{version}.json"


def _manifest() -> dict[str, str]:
    lines = (FROZEN_DIR / "MANIFEST.sha256").read_text().splitlines()
    return {name: digest for digest, name in (line.split("  ", 1) for line in lines if line.strip())}


def _frozen_files() -> dict[str, str]:
    return {
        str(p.relative_to(FROZEN_DIR)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(FROZEN_DIR.glob("v*/*.py"))
    }


def test_frozen_engines_are_never_edited():
    assert _frozen_files() == _manifest(), "a frozen model version was edited: freeze a new version instead"


@pytest.mark.parametrize("version", sorted(FROZEN))
def test_a_frozen_version_reproduces_its_golden_figures_bit_for_bit(version):
    engine = engine_for(version)
    assert engine.MODEL_VERSION == version
    golden = json.loads(_golden_path(version).read_text())
    assert figures(engine) == golden


if __name__ == "__main__":  # python -m tests.pricing.test_model_versions --write VERSION
    if sys.argv[1:2] == ["--write"]:
        version = sys.argv[2]
        _golden_path(version).parent.mkdir(exist_ok=True)
        _golden_path(version).write_text(json.dumps(figures(engine_for(version)), indent=1, sort_keys=True) + "\n")
        (FROZEN_DIR / "MANIFEST.sha256").write_text(
            "".join(f"{digest}  {name}\n" for name, digest in _frozen_files().items())
        )
        print(f"wrote {_golden_path(version)} and the frozen manifest")
