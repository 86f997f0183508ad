"""The catalogue's joint first pricing (issue 12, cold quotes): the shortcuts that make it fast
keep the numbers — the bootstrap's shared draws are exactly the draws each replicate would
make; the replicates' coarser quantile tables move their expected losses by far less than the
band; a coverage priced with others agrees with itself priced alone within Monte Carlo error,
and a joint run is reproducible from what its report records."""

from __future__ import annotations

import dataclasses
import time
import uuid
from datetime import date
from decimal import Decimal

import numpy as np
import pytest

from activities.pricing import CoverTerms, propose_terms, simulate_payouts
from activities.pricing.rainfall import Z_GRID, resampled
from activities.pricing.uncertainty import (
    BOOTSTRAP_PATHS,
    BOOTSTRAP_SEED,
    REPLICATE_Z_POINTS,
    parameter_bands,
    replicate_model,
)
from models.temporal.pricing import PriceCoverageInput

LIMIT = Decimal("100000")


def _covers(model, months=(6, 7, 8), codes=("RAINFALL_MONTHLY_TOTAL", "RAINFALL_DEFICIT")):
    out = []
    for m in months:
        start, end = date(2027, m, 1), date(2027, m + 1, 1).replace(day=1)
        end = date.fromordinal(end.toordinal() - 1)
        for code in codes:
            p = propose_terms(model, code, start, end, LIMIT)
            if p.terms is not None:
                out.append(p.terms)
    return out


def test_bootstrap_draws_are_shared_exactly(site_models):
    """parameter_bands draws the normals once for its 32 replicates; each replicate's expected
    loss is what a fresh simulation of that replicate gives, to the last bit."""
    model = site_models["560001"]
    covers = _covers(model)
    bands = parameter_bands(model, covers, seed=11)
    for b in (0, 7, 31):
        fresh = simulate_payouts(replicate_model(model, b), covers, BOOTSTRAP_PATHS, 11)
        assert [float(v.sum()) / fresh.n for v in fresh.vals] == [band.replicates[b] for band in bands]


def test_replicate_quantile_tables_are_coarser_but_agree(site_models):
    """A replicate's rainfall tables have REPLICATE_Z_POINTS intervals instead of 4096: its
    expected losses stay within 0.5 % of the full tables' (the band's relative sd is 10-40 %)."""
    model = site_models["400001"]
    covers = _covers(model)
    assert REPLICATE_Z_POINTS < Z_GRID[2]
    for b in (0, 13):
        coarse = replicate_model(model, b)
        assert coarse.rain.z_points == REPLICATE_Z_POINTS
        fine = dataclasses.replace(coarse, rain=dataclasses.replace(coarse.rain, z_points=Z_GRID[2], _cache={}))
        a = simulate_payouts(coarse, covers, BOOTSTRAP_PATHS, 3)
        f = simulate_payouts(fine, covers, BOOTSTRAP_PATHS, 3)
        for va, vf in zip(a.vals, f.vals):
            el_a, el_f = float(va.sum()) / a.n, float(vf.sum()) / f.n
            assert el_a == pytest.approx(el_f, rel=5e-3, abs=1.0)
    # the rows a replicate resamples do not depend on the table size
    rng = np.random.default_rng([BOOTSTRAP_SEED, 0])
    rows = rng.integers(0, model.rain.years.size, model.rain.years.size)
    assert np.array_equal(resampled(model.rain, rows).p_zero, replicate_model(model, 0).rain.p_zero)


def _runs(covers, seed):
    return [
        PriceCoverageInput(
            coverage_id=uuid.uuid5(uuid.NAMESPACE_URL, f"cover-{i}"),
            version=1,
            simulations=1 << 15,
            seed=seed,
            expected_loss_ratio=Decimal("0.65"),
            requested_by="test",
        )
        for i in range(len(covers))
    ]


def _domain_terms(model, covers):
    from models.domain.terms import CoverTerms as DomainTerms

    out = []
    for c in covers:
        out.append(
            DomainTerms(
                index_code=c.index_code,
                start=c.risk_start,
                end=c.risk_end,
                direction=c.resolved_direction,
                trigger=Decimal(repr(float(c.trigger))),
                exit=None if c.exit is None else Decimal(repr(float(c.exit))),
                limit=c.limit,
                min_payout=c.min_payout,
                payout_per_unit=c.payout_per_unit.quantize(Decimal("0.01")),
                currency="INR",
            )
        )
    return out


class _Quiet:
    def stage(self, *args):
        pass

    def __call__(self, *args):
        pass


def test_a_joint_run_agrees_with_solo_runs_and_reproduces(site_models):
    from activities.pricing_runs import price_coverages

    model = site_models["400001"]
    terms = _domain_terms(model, _covers(model))
    assert len(terms) >= 4
    runs = _runs(terms, seed=2027)
    started = time.perf_counter()
    joint = price_coverages(model, terms, runs, 2027, 1 << 15, _Quiet(), started)
    again = price_coverages(model, terms, runs, 2027, 1 << 15, _Quiet(), started)
    assert [o.metrics for o in joint] == [o.metrics for o in again], "same inputs, same numbers"
    for i, outcome in enumerate(joint):
        assert outcome.report["jointRun"] == {
            "seed": 2027,
            "simulations": 1 << 15,
            "coverageIds": [str(r.coverage_id) for r in runs],
        }
        solo = price_coverages(model, [terms[i]], [runs[i]], 2027, 1 << 15, _Quiet(), started)[0]
        assert "jointRun" not in solo.report
        el_joint, el_solo = Decimal(outcome.metrics["expectedLoss"]), Decimal(solo.metrics["expectedLoss"])
        se_joint = float(outcome.metrics["expectedLossStandardError"])
        se_solo = float(solo.metrics["expectedLossStandardError"])
        # two unbiased estimates on different point sets: within 4 standard errors of their difference
        assert abs(float(el_joint - el_solo)) <= 4 * (se_joint**2 + se_solo**2) ** 0.5 + 1, (i, el_joint, el_solo)
        assert CoverTerms.of(terms[i], cover_id="x").index_code == terms[i].index_code
