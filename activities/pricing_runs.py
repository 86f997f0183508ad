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
    run = request.run
    model = site_model(request.site, run.model_version)
    return price_coverages(
        model, [request.terms], [run], run.seed, run.simulations, progress, started, model_version=run.model_version
    )[0]


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

    from activities.pricing.threads import in_threads

    model = site_model(request.site)
    draws: dict = {}  # one seed: the fits share their normal draws
    activity.heartbeat(f"{len(request.runs)} fits")

    def fit_of(r):
        def run() -> FitOfRun:
            t = CoverTerms.of(r.terms, cover_id=str(r.run.coverage_id))
            fit = as_dict(fit_summary(model, t.index_code, t.risk_start, t.risk_end, request.seed, draws))
            return FitOfRun(coverage_id=r.run.coverage_id, version=r.run.version, fit=fit)

        return run

    # on the pricing's threads: a cold quote's package waits for the pricing slot they hold
    return in_threads([fit_of(r) for r in request.runs])


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
    model_version: str | None = None,
) -> list[PricingOutcome]:
    """Price the covers jointly (one cover: exactly a coverage's own pricing run) with the
    engine of `model_version` (None: the live one; `model` must be that engine's site model,
    activities.site_models.site_model); without `fits` the reports leave out the fit summary
    (summarise_fits adds it)."""
    from activities.pricing.threads import in_threads

    engine = _engine(model_version)
    covers = [engine.CoverTerms.of(t, cover_id=str(r.coverage_id)) for t, r in zip(terms_of, runs)]
    sample = engine.simulate_payouts(model, covers, simulations, seed, progress=progress)
    priced = engine.price_sample(model, covers, sample, seed, float(runs[0].expected_loss_ratio)).covers
    progress.stage("parameter uncertainty", sample.n, sample.n)
    bands = _module(engine, "uncertainty").parameter_bands(model, covers, seed)
    progress.stage("burn analysis", sample.n, sample.n)
    joint = None
    if len(covers) > 1:
        joint = {"seed": seed, "simulations": simulations, "coverageIds": [str(r.coverage_id) for r in runs]}
    outcome = _outcome_2026_3_1 if engine.MODEL_VERSION == "pricing-2026.3.1" else _outcome

    def cover(i: int):
        return lambda: outcome(engine, model, covers[i], runs[i], sample, i, priced[i], bands[i], seed, started,
                               joint, fits)

    # each cover's burn views, premium and report on its own (on the pricing's threads)
    return in_threads([cover(i) for i in range(len(covers))])


def _engine(model_version: str | None):
    """The pricing engine of a kept model version (activities/pricing/frozen)."""
    from activities.pricing.frozen import engine_for
    from activities.pricing.version import MODEL_VERSION

    return engine_for(model_version or MODEL_VERSION)


def _module(engine, name: str):
    import importlib

    return importlib.import_module(f"{engine.__name__}.{name}")


def _outcome(engine, model, terms, run, sample, i: int, priced, band, seed: int, started: float, joint, fits: bool):
    """One cover's burn views, hold, premium, metrics and report from the (joint) sample: the
    live engine's composition (activities/pricing/composition.py)."""
    from activities.pricing.composition import decide
    from activities.pricing.results import money

    override = float(run.expected_loss_ratio) if run.expected_loss_ratio_override else None
    decision = decide(model, terms, priced, band, load_parameters(), override)
    premium, burn = decision.premium, decision.burn
    report = _report(engine, model, terms, sample, i, band, premium, seed, joint, fits)
    report["parameterBand"] |= {
        "central": band.central,
        "low": band.low,
        "high": band.high,
        "sd": band.sd,
        "drivers": [engine.as_dict(d) for d in band.drivers],
    }
    trend = _trend_section(model, terms)
    if trend:
        report["trend"] = trend
    return _assemble(engine, priced, band, burn, premium, decision.burn_check, report, terms, started,
                     hold_reason=decision.hold_reason or None, money=money)


def _outcome_2026_3_1(engine, model, terms, run, sample, i, priced, band, seed, started, joint, fits):
    """The composition of pricing-2026.3.1, as its pricing activity made it (a rerun of one of
    its runs reproduces it bit for bit): the model-basis burn check and its blend, the risk
    load on the bootstrap's sigma."""
    loading = _module(engine, "loading")
    money = _module(engine, "results").money
    burn = engine.burn_analysis(model, terms, priced, parameter_sd=band.sd)
    m = priced.metrics
    adjusted = float(burn.credibility_expected_loss if burn.review else m.expected_loss)
    limit = float(terms.limit)
    if run.expected_loss_ratio_override:
        premium = loading.loss_ratio_premium(adjusted, float(run.expected_loss_ratio))
    else:
        p = load_parameters()
        params = loading.LoadParameters(
            expense_ratio=p.expense_ratio,
            uncertainty_multiplier=p.uncertainty_multiplier,
            capital_cost_rate=p.capital_cost_rate,
            capital_quantile=p.capital_quantile,
            min_rate_on_line=p.min_rate_on_line,
        )
        pml = float(m.var_99 if params.capital_quantile == 0.99 else m.var_995)
        premium = loading.risk_loaded_premium(adjusted, band.sd, pml, limit, params)
    report = _report(engine, model, terms, sample, i, band, premium, seed, joint, fits)
    burn_check = "NO_HISTORY" if burn.z_score is None else ("DISAGREES" if burn.review else "AGREES")
    return _assemble(engine, priced, band, burn, premium, burn_check, report, terms, started, money=money)


def _report(engine, model, terms, sample, i, band, premium, seed, joint, fits) -> dict:
    """The technical report's sections every version writes."""
    summaries = _module(engine, "summaries")
    limit = float(terms.limit)
    report = {
        "loss": engine.as_dict(summaries.loss_summary(sample.dense(i), limit)),
        "convergence": engine.as_dict(summaries.convergence_summary(sample, i)),
        "site": {
            "subdivision": model.site.subdivision,
            "matchKind": model.site.match_kind,
            "normalsDistrict": model.site.normals_district,
            "normalsState": model.site.normals_state,
        },
        "parameterBand": {"replicates": list(band.replicates), "method": band.method},
        "premium": engine.as_dict(premium),
    }
    if fits:
        report["fit"] = engine.as_dict(summaries.fit_summary(model, terms.index_code, terms.risk_start, terms.risk_end, seed))
    if joint is not None:
        report["jointRun"] = joint
    return report


def _trend_section(model, terms) -> list[dict]:
    """Each calendar month of a rainfall cover: the record's trend line at the horizon, the
    recent climate, the model's level and its sd (relative to the record mean)."""
    from activities.pricing.periods import month_slots
    from models.domain.index_catalog import BY_CODE

    rain = model.rain
    if BY_CODE[terms.index_code].risk_type_id != "RAINFALL" or rain.trend_rel_per_year is None:
        return []
    out = []
    for s in month_slots(terms.risk_start, terms.risk_end):
        m = s.month - 1
        horizon = rain._horizon(s.month, s.year)
        recent = None if rain.recent_level is None else float(rain.recent_level[m])
        out.append({
            "month": s.month,
            "year": s.year,
            "horizonYear": int(horizon),
            "trendPerYear": float(rain.trend_rel_per_year[m]),
            "trendT": float(rain.trend_t[m]),
            "line": rain.record_level(s.month, int(horizon)),
            "recentFirstYear": None if rain.recent_first_year is None else int(rain.recent_first_year[m]),
            "recentLastYear": None if rain.record_end_year is None else int(rain.record_end_year[m]),
            "recentLevel": recent if recent is None or recent == recent else None,
            "recentLevelSe": None if rain.recent_level_se is None or recent != recent else float(rain.recent_level_se[m]),
            "level": rain.level(s.month, s.year),
            "levelSd": rain.level_sd(s.month, s.year),
            "bounded": bool(rain._bounded_level(s.month, s.year)[1]),
        })
    return out


def _assemble(engine, priced, band, burn, premium, burn_check: str, report: dict, terms, started: float,
              hold_reason: str | None = None, *, money) -> PricingOutcome:
    m = priced.metrics
    limit = float(terms.limit)
    gross = money(premium.gross_premium)
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
        burn=engine.as_dict(burn),
        report=report,
        seconds=time.perf_counter() - started,
        expected_loss_ratio=(risk_premium / gross).quantize(FRACTION) if gross > 0 else None,
        hold_reason=hold_reason,
    )


@activity.defn
async def publish_pricing_run(request: PublishPricingInput) -> PricingRunResult:
    await pricing_db.publish_run(request.run.coverage_id, request.run.version, request.outcome)
    held = request.outcome.hold_reason is not None
    return PricingRunResult(
        coverage_id=request.run.coverage_id,
        version=request.run.version,
        status=PricingRunStatus.HELD if held else PricingRunStatus.COMPLETED,
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
