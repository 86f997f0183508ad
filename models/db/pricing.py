"""Database operations of pricing runs: versions kept for audit, publication of a price."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from models.clock import utcnow
from models.db.core import write_transaction
from models.db.records import PricingRunRow, record, records
from models.db.tables import (
    Coverage,
    PricingRun,
)
from models.domain.money import to_minor
from models.domain.statuses import CoverageStatus, PricingRunStatus
from models.domain.pricing_runs import PricingOutcome
from models.workflow_ids import coverage_pricing_workflow_id


async def ensure_pricing_run(
    coverage_id: uuid.UUID,
    version: int,
    simulations: int,
    seed: int,
    expected_loss_ratio: Decimal,
    requested_by: str,
    currency: str,
    workflow_id: str | None = None,
) -> None:
    """Insert the run QUEUED unless it exists. With `workflow_id` (a joint pricing), an
    existing run not yet completed takes that workflow and the joint `seed`."""
    key = (PricingRun.coverage_id == coverage_id) & (PricingRun.version == version)
    if await PricingRun.exists().where(key):
        if workflow_id is not None:
            await PricingRun.update({PricingRun.workflow_id: workflow_id, PricingRun.seed: seed}).where(
                key & (PricingRun.status != PricingRunStatus.COMPLETED)
            )
        return
    await PricingRun.insert(
        _queued(coverage_id, version, simulations, seed, expected_loss_ratio, requested_by, currency, workflow_id)
    ).on_conflict(action="DO NOTHING")


def _queued(coverage_id, version, simulations, seed, elr, requested_by, currency, workflow_id=None) -> PricingRun:
    """A QUEUED run; `workflow_id` the workflow that prices it (default: its own
    CoveragePricingWorkflow; the catalogue's for a joint first pricing)."""
    return PricingRun(
        id=uuid.uuid4(),
        coverage_id=coverage_id,
        version=version,
        status=PricingRunStatus.QUEUED,
        workflow_id=workflow_id or coverage_pricing_workflow_id(coverage_id, version),
        simulations=simulations,
        seed=seed,
        expected_loss_ratio=elr,
        currency=currency,
        requested_by=requested_by,
        created_at=utcnow(),
    )


def completed_run(run, outcome: PricingOutcome, currency: str, elr: Decimal, workflow_id: str, now) -> PricingRun:
    """A run row COMPLETED with its results (what QUEUED → publish_run would leave); HELD,
    not published, when the outcome is held for an actuary."""
    held = outcome.hold_reason is not None
    return PricingRun(
        id=uuid.uuid4(),
        coverage_id=run.coverage_id,
        version=run.version,
        status=PricingRunStatus.HELD if held else PricingRunStatus.COMPLETED,
        workflow_id=workflow_id,
        simulations=outcome.simulations,
        seed=run.seed,
        expected_loss_ratio=elr,
        model_version=outcome.model_version,
        data_hash=outcome.data_hash,
        currency=currency,
        risk_premium_minor=to_minor(outcome.risk_premium, currency),
        risk_premium_pct=outcome.risk_premium_pct,
        gross_premium_minor=to_minor(outcome.gross_premium, currency),
        gross_premium_indication_pct=outcome.gross_premium_indication_pct,
        metrics=outcome.metrics,
        burn=outcome.burn,
        report=outcome.report,
        requested_by=run.requested_by,
        created_at=now,
        completed_at=now,
        # the catalogue's own pricing is its price at once: published by its requester
        # (a held one waits for an actuary)
        published_by=None if held else run.requested_by,
        published_at=None if held else now,
    )


async def allocate_pricing_run(
    coverage_id: uuid.UUID, simulations: int, seed: int, expected_loss_ratio: Decimal, requested_by: str, currency: str,
    workflow_input: Callable[[int], dict] | None = None,
) -> int:
    """Reserve the next pricing version of a coverage (the unique key settles races), QUEUED;
    `workflow_input(version)`: the input of the workflow that prices it, kept on the row so
    that the start sweep can start it if its writer dies before it does."""
    for _ in range(20):
        last = await PricingRun.select(PricingRun.version).where(PricingRun.coverage_id == coverage_id).order_by(
            PricingRun.version, ascending=False
        ).first()
        version = (last["version"] if last else 0) + 1
        row = _queued(coverage_id, version, simulations, seed, expected_loss_ratio, requested_by, currency)
        if workflow_input is not None:
            row.workflow_input = workflow_input(version)
        inserted = await PricingRun.insert(row).on_conflict(action="DO NOTHING").returning(PricingRun.id)
        if inserted:
            return version
    raise RuntimeError("could not allocate a pricing version")


async def add_report_section(coverage_id: uuid.UUID, version: int, key: str, value: Any) -> None:
    """Set one section of a run's stored report (idempotent: the same value again)."""
    async with write_transaction():
        row = await PricingRun.select(PricingRun.report).where(
            (PricingRun.coverage_id == coverage_id) & (PricingRun.version == version)
        ).first()
        if row is None:
            return
        report = row["report"]
        if isinstance(report, str):
            import json

            report = json.loads(report)
        report = dict(report or {})
        report[key] = value
        await PricingRun.update({PricingRun.report: report}).where(
            (PricingRun.coverage_id == coverage_id) & (PricingRun.version == version)
        )


async def mark_run(coverage_id: uuid.UUID, version: int, status: str, error: str | None = None) -> None:
    values: dict[Any, Any] = {PricingRun.status: status}
    if error is not None:
        values[PricingRun.error] = error[:2000]
        values[PricingRun.completed_at] = utcnow()
    await PricingRun.update(values).where((PricingRun.coverage_id == coverage_id) & (PricingRun.version == version))


def _results(outcome: PricingOutcome, currency: str, now) -> dict[Any, Any]:
    """A run's columns that hold what its simulation found."""
    return {
        PricingRun.model_version: outcome.model_version,
        PricingRun.data_hash: outcome.data_hash,
        PricingRun.simulations: outcome.simulations,
        PricingRun.risk_premium_minor: to_minor(outcome.risk_premium, currency),
        PricingRun.risk_premium_pct: outcome.risk_premium_pct,
        PricingRun.gross_premium_minor: to_minor(outcome.gross_premium, currency),
        PricingRun.gross_premium_indication_pct: outcome.gross_premium_indication_pct,
        PricingRun.metrics: outcome.metrics,
        PricingRun.burn: outcome.burn,
        PricingRun.report: outcome.report,
        PricingRun.completed_at: now,
        # the ratio the run's premium came to (the requested one for an ELR override)
        **(
            {PricingRun.expected_loss_ratio: outcome.expected_loss_ratio}
            if outcome.expected_loss_ratio is not None
            else {}
        ),
    }


def _run_key(coverage_id: uuid.UUID, version: int):
    return (PricingRun.coverage_id == coverage_id) & (PricingRun.version == version)


async def _currency(coverage_id: uuid.UUID) -> str:
    row = await Coverage.select(Coverage.currency).where(Coverage.id == coverage_id).first()
    return row["currency"]


async def publish_run(coverage_id: uuid.UUID, version: int, outcome: PricingOutcome) -> None:
    """Store the run's results and make it the coverage's current pricing if it is the newest
    (the catalogue's own pricing, and reruns started before four eyes): published by its
    requester, now.

    Idempotent: publishing the same run twice writes the same values. An outcome held for an
    actuary (`hold_reason`) is stored HELD instead: the coverage, if it has no price yet, is
    REVIEW (not offered) until an actuary publishes the run (`publish_held`)."""
    currency = await _currency(coverage_id)
    now = utcnow()
    if outcome.hold_reason is not None:
        async with write_transaction():
            await PricingRun.update({PricingRun.status: PricingRunStatus.HELD, **_results(outcome, currency, now)}).where(
                _run_key(coverage_id, version)
                & PricingRun.status.is_in([PricingRunStatus.QUEUED, PricingRunStatus.RUNNING, PricingRunStatus.HELD])
            )
            await Coverage.update(
                {Coverage.status: CoverageStatus.REVIEW, Coverage.ui_state: "review", Coverage.updated_at: now}
            ).where((Coverage.id == coverage_id) & (Coverage.pricing_version == 0))
        return
    async with write_transaction():
        run = await PricingRun.select(PricingRun.requested_by, PricingRun.published_at).where(
            _run_key(coverage_id, version)
        ).first()
        await PricingRun.update(
            {
                PricingRun.status: PricingRunStatus.COMPLETED,
                **_results(outcome, currency, now),
                PricingRun.published_by: run["requested_by"] if run else None,
                PricingRun.published_at: (run and run["published_at"]) or now,
            }
        ).where(_run_key(coverage_id, version))
        await _make_current(coverage_id, version)


async def store_candidate(coverage_id: uuid.UUID, version: int, outcome: PricingOutcome) -> None:
    """Store a rerun's results as a CANDIDATE: the coverage's price does not change until a
    second actuary publishes it (`publish_candidate`). Idempotent; a run already past the
    candidate stage (published, lapsed) is left as it is."""
    currency = await _currency(coverage_id)
    await PricingRun.update(
        {PricingRun.status: PricingRunStatus.CANDIDATE, **_results(outcome, currency, utcnow())}
    ).where(
        _run_key(coverage_id, version)
        & PricingRun.status.is_in([PricingRunStatus.QUEUED, PricingRunStatus.RUNNING, PricingRunStatus.CANDIDATE])
    )


async def publish_candidate(coverage_id: uuid.UUID, version: int, published_by: str) -> bool:
    """Publish a CANDIDATE run: COMPLETED, `published_by` (Principal.actor) and now, and the
    coverage's current pricing unless a newer version is. Idempotent (a retry finds the run
    published by the same actuary). True when it is the coverage's price now."""
    return await _publish(coverage_id, version, published_by, PricingRunStatus.CANDIDATE)


async def publish_held(coverage_id: uuid.UUID, version: int, published_by: str) -> bool:
    """An actuary publishes the catalogue's held run: COMPLETED, `published_by` (Principal.actor)
    and now, and the coverage's price (ACTIVE, offered) unless a newer version is. Idempotent
    for the same actuary. True when it is the coverage's price now."""
    return await _publish(coverage_id, version, published_by, PricingRunStatus.HELD)


async def _publish(coverage_id: uuid.UUID, version: int, published_by: str, from_status: str) -> bool:
    """A run in `from_status` made COMPLETED by `published_by`, and the coverage's price."""
    async with write_transaction():
        await PricingRun.update(
            {
                PricingRun.status: PricingRunStatus.COMPLETED,
                PricingRun.published_by: published_by,
                PricingRun.published_at: utcnow(),
            }
        ).where(_run_key(coverage_id, version) & (PricingRun.status == from_status))
        run = await PricingRun.select(PricingRun.status, PricingRun.published_by).where(
            _run_key(coverage_id, version)
        ).first()
        if run is None or run["status"] != PricingRunStatus.COMPLETED or run["published_by"] != published_by:
            return False
        return await _make_current(coverage_id, version)


async def lapse_candidate(coverage_id: uuid.UUID, version: int) -> None:
    """A candidate nobody published in its lifetime: LAPSED (it can no longer be published)."""
    await PricingRun.update({PricingRun.status: PricingRunStatus.LAPSED}).where(
        _run_key(coverage_id, version) & (PricingRun.status == PricingRunStatus.CANDIDATE)
    )


async def _make_current(coverage_id: uuid.UUID, version: int) -> bool:
    """The stored results of run `version` become the coverage's pricing, unless a newer
    version is already its price (a price never goes back to an older run)."""
    run = await PricingRun.select(
        PricingRun.simulations,
        PricingRun.risk_premium_minor,
        PricingRun.risk_premium_pct,
        PricingRun.gross_premium_indication_pct,
        PricingRun.expected_loss_ratio,
    ).where(_run_key(coverage_id, version)).first()
    updated = await Coverage.update(
        {
            Coverage.pricing_version: version,
            Coverage.simulations: run["simulations"],
            Coverage.risk_premium_minor: run["risk_premium_minor"],
            Coverage.risk_premium_pct: run["risk_premium_pct"],
            Coverage.gross_premium_indication_pct: run["gross_premium_indication_pct"],
            Coverage.expected_loss_ratio: run["expected_loss_ratio"],
            Coverage.status: CoverageStatus.ACTIVE,
            Coverage.ui_state: "active",
            Coverage.updated_at: utcnow(),
        }
    ).where((Coverage.id == coverage_id) & (Coverage.pricing_version <= version)).returning(Coverage.id)
    return bool(updated)


async def attach_documents(
    coverage_id: uuid.UUID,
    version: int,
    fact_sheet_id: uuid.UUID,
    technical_report_id: uuid.UUID,
    published: bool = True,
) -> None:
    """Link a version's documents to its run, and to the coverage when it is its price.
    A candidate's documents (`published=False`) link to the run only while it is not
    published: the published run's own documents replace them."""
    key = _run_key(coverage_id, version)
    if not published:
        key = key & (PricingRun.status != PricingRunStatus.COMPLETED)
    await PricingRun.update(
        {PricingRun.fact_sheet_file_id: fact_sheet_id, PricingRun.technical_report_file_id: technical_report_id}
    ).where(key)
    if not published:
        return
    await Coverage.update(
        {Coverage.fact_sheet_file_id: fact_sheet_id, Coverage.technical_report_file_id: technical_report_id}
    ).where((Coverage.id == coverage_id) & (Coverage.pricing_version == version))


async def pricing_runs(coverage_id: uuid.UUID) -> list[PricingRunRow]:
    """Every pricing run of a coverage, oldest first."""
    return records(PricingRunRow, await PricingRun.select().where(PricingRun.coverage_id == coverage_id).order_by(PricingRun.version))


async def pricing_run(coverage_id: uuid.UUID, version: int) -> PricingRunRow | None:
    return record(
        PricingRunRow,
        await PricingRun.select().where((PricingRun.coverage_id == coverage_id) & (PricingRun.version == version)).first(),
    )


async def orphaned_reruns(created_before: dt.datetime, limit: int) -> list[dict]:
    """Actuaries' reruns still QUEUED that were written before `created_before` with their
    workflow's input (`workflow_input`), oldest first: those whose start may have been lost
    (the start sweep starts them; a start of one already started is refused by its id)."""
    return await PricingRun.select(PricingRun.coverage_id, PricingRun.version, PricingRun.workflow_input).where(
        (PricingRun.status == PricingRunStatus.QUEUED)
        & (PricingRun.created_at < created_before)
        & PricingRun.workflow_input.is_not_null()
    ).order_by(PricingRun.created_at).limit(limit)
