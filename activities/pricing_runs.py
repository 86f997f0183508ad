"""Activities of a coverage pricing run: load inputs, simulate, publish, record failure."""

from __future__ import annotations

import time
from decimal import Decimal

from temporalio import activity

from activities.site_models import site_model
from models.db import catalogue as catalogue_db
from models.db import pricing as pricing_db
from models.domain.risk_metrics import RiskMetrics
from models.domain.statuses import PricingRunStatus
from models.temporal.pricing import (
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
    row = await catalogue_db.coverage_row(run.coverage_id)
    if row is None:
        raise ValueError(f"coverage {run.coverage_id} does not exist")
    await pricing_db.ensure_pricing_run(
        run.coverage_id, run.version, run.simulations, run.seed, run.expected_loss_ratio, run.requested_by, row.currency
    )
    await pricing_db.mark_run(run.coverage_id, run.version, PricingRunStatus.RUNNING)
    site = await catalogue_db.site_of(row.monitoring_target_id)
    return SimulationInput(run=run, site=site, terms=row.terms)


def _rate(value: float) -> Decimal:
    """The engine's rate on limit (a fraction) as stored: exact to 1e-8."""
    return Decimal(repr(float(value))).quantize(FRACTION)


class _Progress:
    """Heartbeats `{"stage", "done", "total"}` (paths) at most every half second: they keep
    the activity alive and feed the reprice progress bar."""

    def __init__(self) -> None:
        self._last = 0.0

    def stage(self, stage: str, done: int = 0, total: int = 0) -> None:
        activity.heartbeat({"stage": stage, "done": done, "total": total})

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if now - self._last >= 0.5 or done >= total:
            self._last = now
            self.stage("simulating", done, total)


@activity.defn
def simulate_coverage(request: SimulationInput) -> PricingOutcome:
    """Monte Carlo pricing, burn analysis and the report's summaries of one coverage (CPU,
    on the worker's thread pool)."""
    from activities.pricing import (
        CoverTerms,
        as_dict,
        burn_analysis,
        price_sample,
        simulate_payouts,
    )
    from activities.pricing.summaries import (
        convergence_summary,
        fit_summary,
        loss_summary,
    )

    started = time.perf_counter()
    terms = CoverTerms.of(request.terms, cover_id=str(request.run.coverage_id))
    progress = _Progress()
    progress.stage("calibrating")
    model = site_model(request.site)
    run = request.run
    sample = simulate_payouts(model, [terms], run.simulations, run.seed, progress=progress)
    priced = price_sample(model, [terms], sample, run.seed, float(run.expected_loss_ratio)).covers[0]
    progress.stage("burn analysis", sample.n, sample.n)
    burn = burn_analysis(model, terms, priced)
    report = {
        "loss": as_dict(loss_summary(sample.dense(0), float(terms.limit))),
        "convergence": as_dict(convergence_summary(sample)),
        "fit": as_dict(fit_summary(model, terms.index_code, terms.risk_start, terms.risk_end, run.seed)),
        "site": {
            "subdivision": model.site.subdivision,
            "matchKind": model.site.match_kind,
            "normalsDistrict": model.site.normals_district,
            "normalsState": model.site.normals_state,
        },
    }
    m = priced.metrics
    metrics = RiskMetrics(
        expected_loss=m.expected_loss,
        expected_loss_standard_error=m.expected_loss_se,
        standard_deviation=m.std_dev,
        probability_of_attachment=Decimal(repr(m.prob_attach)),
        probability_of_exhaustion=Decimal(repr(m.prob_exhaust)),
        var99=m.var_99,
        tvar99=m.tvar_99,
        var995=m.var_995,
        tvar995=m.tvar_995,
        relative_standard_error=Decimal(repr(m.relative_se)),
        variance_reduction=Decimal(repr(m.variance_reduction)),
        method=priced.method,
        batches=priced.batches,
    )
    return PricingOutcome(
        model_version=priced.model_version,
        data_hash=priced.data_hash,
        simulations=priced.n_paths,
        method=priced.method,
        risk_premium=priced.risk_premium,
        risk_premium_pct=_rate(priced.risk_premium_rate),
        gross_premium=priced.gross_premium,
        gross_premium_indication_pct=_rate(priced.gross_premium_indication_rate),
        metrics=metrics.to_record(),
        burn=as_dict(burn),
        report=report,
        seconds=time.perf_counter() - started,
    )


@activity.defn
async def publish_pricing_run(request: PublishPricingInput) -> PricingRunResult:
    await pricing_db.publish_run(request.run.coverage_id, request.run.version, request.outcome)
    return PricingRunResult(
        coverage_id=request.run.coverage_id,
        version=request.run.version,
        status=PricingRunStatus.COMPLETED,
        risk_premium=request.outcome.risk_premium,
        gross_premium_indication_pct=request.outcome.gross_premium_indication_pct,
    )


@activity.defn
async def fail_pricing_run(run: PriceCoverageInput, error: str) -> None:
    await pricing_db.mark_run(run.coverage_id, run.version, PricingRunStatus.FAILED, error)
