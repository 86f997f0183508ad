"""Activities of a coverage pricing run: load inputs, simulate, publish, record failure."""

from __future__ import annotations

import time
from decimal import Decimal

from temporalio import activity

from activities.site_models import site_model
from models.db import catalogue as catalogue_db
from models.db.core import write_transaction
from models.db import pricing as pricing_db
from models.domain.money import from_minor
from models.domain.risk_metrics import RiskMetrics
from models.domain.statuses import PricingRunStatus
from models.settings import load_settings
from models.temporal.pricing import (
    FitOfRun,
    JointSimulationInput,
    PriceCoverageInput,
    StartJointPricingInput,
    PricingOutcome,
    PricingRunResult,
    PublishCandidateInput,
    PublishPricingInput,
    SimulationInput,
)

FRACTION = Decimal("0.00000001")


@activity.defn
async def start_pricing_run(run: PriceCoverageInput) -> SimulationInput:
    """Mark the run RUNNING and gather its inputs (the coverage's terms and target).

    (Its signature stays one argument: recorded histories and running workflows call it so.)"""
    return await _start_run(run, None)


async def _start_run(run: PriceCoverageInput, workflow_id: str | None) -> SimulationInput:
    """`workflow_id`: the workflow that prices the run (None: its own CoveragePricingWorkflow)."""
    row = await catalogue_db.coverage_row(run.coverage_id)
    if row is None:
        raise ValueError(f"coverage {run.coverage_id} does not exist")
    await pricing_db.ensure_pricing_run(
        run.coverage_id,
        run.version,
        run.simulations,
        run.seed,
        run.expected_loss_ratio,
        run.requested_by,
        row.currency,
        workflow_id=workflow_id,
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


def load_parameters():
    """The risk load's parameters from the settings (PRICING_* environment variables)."""
    from activities.pricing.loading import LoadParameters

    s = load_settings()
    return LoadParameters(
        expense_ratio=float(s.pricing_expense_ratio),
        uncertainty_multiplier=float(s.pricing_uncertainty_multiplier),
        capital_cost_rate=float(s.pricing_capital_cost_rate),
        capital_quantile=float(s.pricing_capital_quantile),
        min_rate_on_line=float(s.pricing_min_rate_on_line),
    )


@activity.defn
def simulate_coverage(request: SimulationInput) -> PricingOutcome:
    """Monte Carlo pricing, parameter band, burn check, premium and the report's summaries of
    one coverage (CPU, on the pricing worker's process pool)."""
    started = time.perf_counter()
    progress = _Progress()
    progress.stage("calibrating")
    model = site_model(request.site)
    run = request.run
    return price_coverages(model, [request.terms], [run], run.seed, run.simulations, progress, started)[0]


@activity.defn
def simulate_coverages(request: JointSimulationInput) -> list[PricingOutcome]:
    """The catalogue's first pricing of several coverages of one target, on shared paths
    with one seed (docs/catalogue.md, joint pricing): one simulation, one bootstrap and one
    activity instead of a workflow per coverage. Each coverage's figures are its own
    marginal ones; its run records the seed and the coverages it was priced with."""
    started = time.perf_counter()
    progress = _Progress()
    progress.stage("calibrating")
    model = site_model(request.site)
    runs = [r.run for r in request.runs]
    terms = [r.terms for r in request.runs]
    # The fit summaries (the technical report's model-against-data section) follow in
    # summarise_fits, after the prices are published: a first quote does not wait for them.
    return price_coverages(model, terms, runs, request.seed, request.simulations, progress, started, fits=False)


@activity.defn
def summarise_fits(request: JointSimulationInput) -> list[FitOfRun]:
    """Each jointly priced run's fit summary (the simulated index against the record), with
    the run's seed: what a solo run puts in its report."""
    from activities.pricing import CoverTerms, as_dict
    from activities.pricing.summaries import fit_summary

    model = site_model(request.site)
    out = []
    draws: dict = {}  # one seed: the fits share their normal draws
    for i, r in enumerate(request.runs):
        activity.heartbeat(f"{i}/{len(request.runs)}")
        t = CoverTerms.of(r.terms, cover_id=str(r.run.coverage_id))
        fit = as_dict(fit_summary(model, t.index_code, t.risk_start, t.risk_end, request.seed, draws))
        out.append(FitOfRun(coverage_id=r.run.coverage_id, version=r.run.version, fit=fit))
    return out


@activity.defn
async def store_fits(fits: list[FitOfRun]) -> None:
    async with write_transaction():
        for f in fits:
            await pricing_db.add_report_section(f.coverage_id, f.version, "fit", f.fit)


def price_coverages(
    model,
    terms_of: list,
    runs: list[PriceCoverageInput],
    seed: int,
    simulations: int,
    progress,
    started: float,
    fits: bool = True,
) -> list[PricingOutcome]:
    """Price the covers jointly (one cover: exactly a coverage's own pricing run); without
    `fits` the reports leave out the fit summary (summarise_fits adds it)."""
    from activities.pricing import CoverTerms, price_sample, simulate_payouts
    from activities.pricing.uncertainty import parameter_bands

    covers = [CoverTerms.of(t, cover_id=str(r.coverage_id)) for t, r in zip(terms_of, runs)]
    sample = simulate_payouts(model, covers, simulations, seed, progress=progress)
    priced = price_sample(model, covers, sample, seed, float(runs[0].expected_loss_ratio)).covers
    progress.stage("parameter uncertainty", sample.n, sample.n)
    bands = parameter_bands(model, covers, seed)
    progress.stage("burn analysis", sample.n, sample.n)
    joint = None
    if len(covers) > 1:
        joint = {"seed": seed, "simulations": simulations, "coverageIds": [str(r.coverage_id) for r in runs]}
    return [
        _outcome(model, covers[i], runs[i], sample, i, priced[i], bands[i], seed, started, joint, fits)
        for i in range(len(covers))
    ]


def _outcome(model, terms, run, sample, i: int, priced, band, seed: int, started: float, joint, fits: bool):
    """One cover's burn check, premium, metrics and report from the (joint) sample."""
    from activities.pricing import as_dict, burn_analysis
    from activities.pricing.loading import loss_ratio_premium, risk_loaded_premium
    from activities.pricing.results import money
    from activities.pricing.summaries import convergence_summary, fit_summary, loss_summary

    burn = burn_analysis(model, terms, priced, parameter_sd=band.sd)
    m = priced.metrics
    adjusted = float(burn.credibility_expected_loss if burn.review else m.expected_loss)
    limit = float(terms.limit)
    if run.expected_loss_ratio_override:
        premium = loss_ratio_premium(adjusted, float(run.expected_loss_ratio))
    else:
        params = load_parameters()
        pml = float(m.var_99 if params.capital_quantile == 0.99 else m.var_995)
        premium = risk_loaded_premium(adjusted, band.sd, pml, limit, params)
    gross = money(premium.gross_premium)
    report = {
        "loss": as_dict(loss_summary(sample.dense(i), limit)),
        "convergence": as_dict(convergence_summary(sample, i)),
        "site": {
            "subdivision": model.site.subdivision,
            "matchKind": model.site.match_kind,
            "normalsDistrict": model.site.normals_district,
            "normalsState": model.site.normals_state,
        },
        "parameterBand": {"replicates": list(band.replicates), "method": band.method},
        "premium": as_dict(premium),
    }
    if fits:
        report["fit"] = as_dict(fit_summary(model, terms.index_code, terms.risk_start, terms.risk_end, seed))
    if joint is not None:
        report["jointRun"] = joint
    burn_check = "NO_HISTORY" if burn.z_score is None else ("DISAGREES" if burn.review else "AGREES")
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
        parameter_standard_deviation=money(band.sd),
        expected_loss_band_low=money(band.low),
        expected_loss_band_high=money(band.high),
        burn_z_score=None if burn.z_score is None else Decimal(repr(round(burn.z_score, 4))),
        burn_check=burn_check,
        adjusted_expected_loss=money(premium.adjusted_expected_loss),
        uncertainty_load=money(premium.uncertainty_load),
        capital=money(premium.capital),
        capital_load=money(premium.capital_load),
        technical_premium=money(premium.technical_premium),
        expenses=money(premium.expenses),
        minimum_premium=money(premium.minimum_premium),
        premium_method=premium.method,
    )
    risk_premium = money(premium.adjusted_expected_loss)
    return PricingOutcome(
        model_version=priced.model_version,
        data_hash=priced.data_hash,
        simulations=priced.n_paths,
        method=priced.method,
        risk_premium=risk_premium,
        risk_premium_pct=_rate(float(risk_premium) / limit),
        gross_premium=gross,
        gross_premium_indication_pct=_rate(float(gross) / limit),
        metrics=metrics.to_record(),
        burn=as_dict(burn),
        report=report,
        seconds=time.perf_counter() - started,
        expected_loss_ratio=(risk_premium / gross).quantize(FRACTION) if gross > 0 else None,
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
async def store_pricing_candidate(request: PublishPricingInput) -> PricingRunResult:
    """A rerun's results stored as a CANDIDATE; the coverage's price stays as it is."""
    await pricing_db.store_candidate(request.run.coverage_id, request.run.version, request.outcome)
    return PricingRunResult(
        coverage_id=request.run.coverage_id,
        version=request.run.version,
        status=PricingRunStatus.CANDIDATE,
        risk_premium=request.outcome.risk_premium,
        gross_premium_indication_pct=request.outcome.gross_premium_indication_pct,
    )


@activity.defn
async def publish_pricing_candidate(request: PublishCandidateInput) -> PricingRunResult:
    """A second actuary publishes the candidate: it becomes the coverage's price (unless a
    newer version already is)."""
    run = request.run
    await pricing_db.publish_candidate(run.coverage_id, run.version, request.published_by)
    row = await pricing_db.pricing_run(run.coverage_id, run.version)
    return PricingRunResult(
        coverage_id=run.coverage_id,
        version=run.version,
        status=row.status,
        risk_premium=None if row.risk_premium_minor is None else from_minor(row.risk_premium_minor, row.currency),
        gross_premium_indication_pct=row.gross_premium_indication_pct,
    )


@activity.defn
async def lapse_pricing_candidate(run: PriceCoverageInput) -> None:
    await pricing_db.lapse_candidate(run.coverage_id, run.version)


@activity.defn
async def fail_pricing_run(run: PriceCoverageInput, error: str) -> None:
    await pricing_db.mark_run(run.coverage_id, run.version, PricingRunStatus.FAILED, error)


@activity.defn
async def start_pricing_runs(request: StartJointPricingInput) -> JointSimulationInput:
    """Mark the runs of a joint pricing RUNNING (their workflow: the catalogue's) and gather
    their inputs; idempotent."""
    runs = []
    async with write_transaction():  # one commit for the batch
        for run in request.runs:
            runs.append(await _start_run(run, request.workflow_id))
    return JointSimulationInput(site=runs[0].site, runs=runs, seed=request.seed, simulations=request.simulations)


@activity.defn
async def publish_pricing_runs(request: list[PublishPricingInput]) -> list[PricingRunResult]:
    async with write_transaction():  # one commit: the covers become quotable together
        return [await publish_pricing_run(r) for r in request]


@activity.defn
async def fail_pricing_runs(runs: list[PriceCoverageInput], error: str) -> None:
    for run in runs:
        await fail_pricing_run(run, error)
