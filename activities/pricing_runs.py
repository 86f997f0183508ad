"""Activities of a coverage pricing run: load inputs, simulate, publish, record failure."""

from __future__ import annotations

import contextvars
import threading
import time
from decimal import Decimal

from temporalio import activity

from activities.site_models import site_model
from models import catalogue_store as store
from models.commands import (
    PriceCoverageInput,
    PricingOutcome,
    PricingRunResult,
    PublishPricingInput,
    SimulationInput,
)

FRACTION = Decimal("0.00000001")


@activity.defn
async def start_pricing_run(run: PriceCoverageInput) -> SimulationInput:
    """Mark the run RUNNING and gather its inputs (the coverage's terms and target)."""
    row = await store.coverage_row(run.coverage_id)
    if row is None:
        raise ValueError(f"coverage {run.coverage_id} does not exist")
    await store.ensure_pricing_run(
        run.coverage_id, run.version, run.simulations, run.seed, run.expected_loss_ratio, run.requested_by, row["currency"]
    )
    await store.mark_run(run.coverage_id, run.version, "RUNNING")
    site = await store.site_of(row["monitoring_target_id"])
    return SimulationInput(run=run, site=site, terms=store.terms_of(row))


def _pct(value: float) -> Decimal:
    """The engine's percentages of the limit → fractions (the wire's ...Pct fields)."""
    return (Decimal(repr(float(value))) / 100).quantize(FRACTION)


class _Heartbeat:
    """Heartbeats from a side thread while one long numpy call runs, so a lost worker is
    noticed within the heartbeat timeout; `progress` is what the heartbeat reports."""

    def __init__(self, every: float = 2.0) -> None:
        self._stop = threading.Event()
        self._every = every
        self.progress = "starting"
        # The thread runs in a copy of this context: heartbeats need the activity context.
        context = contextvars.copy_context()
        self._thread = threading.Thread(target=context.run, args=(self._loop,), daemon=True)

    def _loop(self) -> None:
        while not self._stop.wait(self._every):
            activity.heartbeat(self.progress)

    def __enter__(self) -> "_Heartbeat":
        activity.heartbeat(self.progress)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


@activity.defn
def simulate_coverage(request: SimulationInput) -> PricingOutcome:
    """Monte Carlo pricing and burn analysis of one coverage (CPU, on the thread pool)."""
    from activities.pricing import CoverTerms, as_dict, burn_analysis, price_cover

    started = time.perf_counter()
    t = request.terms
    terms = CoverTerms(
        index_code=t.index_code,
        risk_start=t.start,
        risk_end=t.end,
        trigger=float(t.trigger),
        exit=None if t.exit is None else float(t.exit),
        limit=t.limit,
        min_payout=t.min_payout,
        payout_per_unit=t.payout_per_unit,
        direction=t.direction,
        cover_id=str(request.run.coverage_id),
    )
    with _Heartbeat() as beat:
        beat.progress = "calibrating"
        model = site_model(request.site)
        beat.progress = "simulating"
        priced = price_cover(
            model,
            terms,
            n=request.run.simulations,
            seed=request.run.seed,
            expected_loss_ratio=float(request.run.expected_loss_ratio),
        )
        beat.progress = "burn analysis"
        burn = burn_analysis(model, terms, priced)
    m = priced.metrics
    metrics = {
        "expectedLoss": str(m.expected_loss),
        "expectedLossStandardError": str(m.expected_loss_se),
        "standardDeviation": str(m.std_dev),
        "probabilityOfAttachment": repr(m.prob_attach),
        "probabilityOfExhaustion": repr(m.prob_exhaust),
        "var99": str(m.var_99),
        "tvar99": str(m.tvar_99),
        "var995": str(m.var_995),
        "tvar995": str(m.tvar_995),
        "relativeStandardError": repr(m.relative_se),
        "varianceReduction": repr(m.variance_reduction),
        "method": priced.method,
        "batches": str(priced.batches),
        "subdivision": model.site.subdivision,
        "matchKind": model.site.match_kind,
    }
    return PricingOutcome(
        model_version=priced.model_version,
        data_hash=priced.data_hash,
        simulations=priced.n_paths,
        method=priced.method,
        risk_premium=priced.risk_premium,
        risk_premium_pct=_pct(priced.risk_premium_pct),
        gross_premium=priced.gross_premium,
        gross_premium_indication_pct=_pct(priced.gross_premium_indication_pct),
        metrics=metrics,
        burn=as_dict(burn),
        seconds=time.perf_counter() - started,
    )


@activity.defn
async def publish_pricing_run(request: PublishPricingInput) -> PricingRunResult:
    await store.publish_run(request.run.coverage_id, request.run.version, request.outcome)
    return PricingRunResult(
        coverage_id=request.run.coverage_id,
        version=request.run.version,
        status="COMPLETED",
        risk_premium=request.outcome.risk_premium,
        gross_premium_indication_pct=request.outcome.gross_premium_indication_pct,
    )


@activity.defn
async def fail_pricing_run(run: PriceCoverageInput, error: str) -> None:
    await store.mark_run(run.coverage_id, run.version, "FAILED", error)
