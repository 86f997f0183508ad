"""`parametric reprice`: rerun a coverage's pricing, follow its progress, compare versions."""

from __future__ import annotations

import asyncio
import uuid
from decimal import Decimal

import click

from models.settings import Settings
from models.wire.internal import NewPricingRun, PricingRunOut

ROWS = [
    ("simulations", "Simulations", lambda r: r.simulations),
    ("seed", "Seed", lambda r: r.seed),
    ("elr", "Expected loss ratio", lambda r: r.expected_loss_ratio),
    ("rp", "Risk premium", lambda r: r.risk_premium.amount if r.risk_premium else None),
    ("rpp", "Risk premium % of limit", lambda r: _pct(r.risk_premium_pct)),
    ("gp", "Gross premium", lambda r: r.gross_premium.amount if r.gross_premium else None),
    ("gpp", "Gross premium indication %", lambda r: _pct(r.gross_premium_indication_pct)),
    ("se", "Std error of EL", lambda r: r.metrics.expected_loss_standard_error if r.metrics else None),
    ("sd", "Std deviation", lambda r: r.metrics.standard_deviation if r.metrics else None),
    ("pa", "P(attach)", lambda r: r.metrics.probability_of_attachment if r.metrics else None),
    ("pe", "P(exhaust)", lambda r: r.metrics.probability_of_exhaustion if r.metrics else None),
    ("v99", "VaR 99%", lambda r: r.metrics.var99 if r.metrics else None),
    ("t99", "TVaR 99%", lambda r: r.metrics.tvar99 if r.metrics else None),
    ("v995", "VaR 99.5%", lambda r: r.metrics.var995 if r.metrics else None),
    ("t995", "TVaR 99.5%", lambda r: r.metrics.tvar995 if r.metrics else None),
    ("burn", "Burn cost", lambda r: r.burn_cost.amount if r.burn_cost else None),
]


def _pct(value: Decimal | None) -> Decimal | None:
    return None if value is None else (value * 100).quantize(Decimal("0.0001"))


def _fmt(value) -> str:
    if value is None:
        return "-"
    if isinstance(value, Decimal):
        return f"{value:,.6f}".rstrip("0").rstrip(".") if abs(value) < 1 else f"{value:,.2f}"
    return f"{value:,}" if isinstance(value, int) else str(value)


def result_table(previous: PricingRunOut | None, current: PricingRunOut) -> str:
    head = f"{'':28} {'v' + str(previous.version) if previous else '(none)':>16} {'v' + str(current.version):>16} {'change':>12}"
    lines = [head, "-" * len(head)]
    for _, label, get in ROWS:
        new = get(current)
        old = get(previous) if previous else None
        change = ""
        if isinstance(new, (Decimal, int)) and isinstance(old, (Decimal, int)) and old:
            change = f"{(Decimal(new) - Decimal(old)) / abs(Decimal(old)) * 100:+.2f}%"
        lines.append(f"{label:28} {_fmt(old):>16} {_fmt(new):>16} {change:>12}")
    lines.append(f"{'Model / data':28} {current.model_version} {current.data_hash[:19] if current.data_hash else ''}…")
    return "\n".join(lines)


async def _progress(handle, client) -> float | None:
    """Fraction done from the simulation activity's last heartbeat (None while not simulating)."""
    description = await handle.describe()
    for pending in description.raw_description.pending_activities:
        if pending.activity_type.name == "simulate_coverage" and pending.heartbeat_details.payloads:
            details = await client.data_converter.decode(pending.heartbeat_details.payloads)
            value = details[0] if details else None
            if isinstance(value, dict) and value.get("total"):
                return min(1.0, value["done"] / value["total"])
    return None


async def staff_actuary(name: str) -> tuple[str, str]:
    """The actor of staff member NAME if they hold the actuary role ("staff:NAME"), and their
    stable staff id (four eyes compare it)."""
    from api.auth.tenants import platform_tenant_id, roles_of
    from models.db.tables import ApiClient
    from models.domain.actors import staff_actor

    tenant_id = await platform_tenant_id()
    client = None
    if tenant_id is not None:
        client = await ApiClient.objects().where(
            (ApiClient.tenant_id == tenant_id) & (ApiClient.name == name) & (ApiClient.disabled == False)  # noqa: E712
        ).first()
    if client is None or "actuary" not in roles_of(client):
        raise click.ClickException(
            f"{name!r} is not an actuary of the platform's staff (parametric staff create {name} --role actuary)"
        )
    return staff_actor(name), str(client.id)


async def _wait_for_candidate(handle, client, coverage_id: uuid.UUID, version: int):
    """Show the simulation's progress until the run is stored (CANDIDATE) or failed."""
    from models.db import pricing as pricing_db
    from models.domain.statuses import PricingRunStatus

    done = (PricingRunStatus.CANDIDATE, PricingRunStatus.COMPLETED, PricingRunStatus.FAILED, PricingRunStatus.LAPSED)
    with click.progressbar(length=1000, label="simulating", show_percent=True) as bar:
        shown = 0
        while True:
            run = await pricing_db.pricing_run(coverage_id, version)
            if run is not None and run.status in done:
                break
            fraction = await _progress(handle, client)
            if fraction is not None and int(fraction * 1000) > shown:
                bar.update(int(fraction * 1000) - shown)
                shown = int(fraction * 1000)
            await asyncio.sleep(0.3)
        bar.update(1000 - shown)
    if run.status == PricingRunStatus.FAILED:
        raise click.ClickException(f"pricing run v{version} failed: {run.error}")
    return run


async def reprice(
    settings: Settings, coverage_id: uuid.UUID, request: NewPricingRun, actuary: str, echo=click.echo
) -> PricingRunOut:
    """Start a rerun for staff actuary `actuary` (a name), follow it until it is a candidate,
    print it beside the coverage's current price and how a second actuary publishes it."""
    from api.pricing.responses import pricing_run_out
    from api.pricing.service import start_pricing_run
    from models.db import catalogue as catalogue_db
    from models.db import pricing as pricing_db
    from models.db.core import close_pool, open_pool
    from models.temporal.client import connect
    from models.temporal.ids import coverage_pricing_workflow_id

    await open_pool()
    try:
        actor, actor_id = await staff_actuary(actuary)
        row = await catalogue_db.coverage_row(coverage_id)
        if row is None:
            raise click.ClickException(f"coverage {coverage_id} does not exist")
        current = await pricing_db.pricing_run(coverage_id, row.pricing_version) if row.pricing_version else None
        previous = pricing_run_out(current) if current else None
        client = await connect(settings, retries=3)
        run = await start_pricing_run(client, settings, row, request, actor, requested_by_id=actor_id)
        echo(f"pricing run v{run.version} started: workflow {coverage_pricing_workflow_id(coverage_id, run.version)}")
        handle = client.get_workflow_handle(coverage_pricing_workflow_id(coverage_id, run.version))
        candidate = pricing_run_out(await _wait_for_candidate(handle, client, coverage_id, run.version))
        echo(result_table(previous, candidate))
        echo(
            f"v{run.version} is a candidate: quotes use "
            f"{'v' + str(previous.version) if previous else 'no price'} until another actuary publishes it:\n"
            f"  POST /internal/coverages/{coverage_id}/pricing-runs/{run.version}/publish"
        )
        return candidate
    finally:
        await close_pool()
