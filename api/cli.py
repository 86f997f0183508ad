"""`parametric`: run the service (dev, api, worker), migrate, and manage tenants."""

from __future__ import annotations

import asyncio
import json
import sys

import click

import models  # noqa: F401 - sets PICCOLO_CONF
from models.domain.model_versions import KEPT_MODEL_VERSIONS
from models.settings import load_settings


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """Parametric insurance service."""
    import os

    from models.observability.logs import configure_logging

    # The same JSON lines as the API and the workers (models/observability/logs.py); a
    # command's own output is its stdout. Warnings and errors only, unless LOG_LEVEL says.
    settings = load_settings()
    configure_logging("cli", settings.log_format, os.environ.get("LOG_LEVEL") or "WARNING")


@main.command()
def dev() -> None:
    """Start everything for development: Temporal dev server, migrations, reference data,
    a demo tenant, the worker and the API. Ctrl-C stops all of it."""
    from api.dev import run_dev

    sys.exit(run_dev(load_settings()))


@main.command()
@click.option("--host", default=None, help="Bind address (default API_HOST or 127.0.0.1).")
@click.option("--port", default=None, type=int, help="Port (default API_PORT or 8000).")
@click.option("--workers", default=1, show_default=True, help="Uvicorn worker processes.")
def api(host: str | None, port: int | None, workers: int) -> None:
    """Serve the HTTP API (uvicorn)."""
    import os
    import shutil

    import uvicorn

    from models.observability.logs import configure_logging

    settings = load_settings()
    configure_logging("api", settings.log_format, settings.log_level)
    if workers > 1 and not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        # GET /metrics answers for every worker process: they share a directory of samples,
        # emptied at each start (prometheus_client's multiprocess mode).
        shared = settings.var_dir / "prometheus" / f"api-{port or settings.api_port}"
        shutil.rmtree(shared, ignore_errors=True)
        shared.mkdir(parents=True, mode=0o700)
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(shared)
    uvicorn.run(
        "api.app:app_factory",
        factory=True,
        host=host or settings.api_host,
        port=port or settings.api_port,
        workers=workers,
        log_level="info",
        log_config=None,  # uvicorn's lines go through the JSON logging too (one `request` line each: api/observability.py)
        access_log=False,
        # No `server: uvicorn` banner; X-Forwarded-For is the app's to judge (TRUSTED_PROXIES,
        # api/peer.py), not believed from any local peer as uvicorn does by default.
        server_header=False,
        proxy_headers=False,
        # Longer than the idle timeout of the load balancer or client pool in front, so an
        # idle connection is closed by them, not under their next request (docs/deployment.md).
        timeout_keep_alive=settings.api_keep_alive_seconds,
    )


@main.command(context_settings={"ignore_unknown_options": True, "help_option_names": []})
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def worker(args: tuple[str, ...]) -> None:
    """Run Temporal workers (lifecycle, pricing, documents): `python -m workflows.worker ARGS`,
    e.g. `--queue pricing --pricing-processes 2`; `parametric worker --help` lists them."""
    import os

    # The worker is the workflow package's entry point: the API and its CLI never import
    # workflow or activity code (pyproject.toml, import contracts).
    os.execv(sys.executable, [sys.executable, "-m", "workflows.worker", *args])


@main.command("check-deployment")
@click.option("--json", "as_json", is_flag=True, help="The findings as JSON.")
@click.option("--before-workers", is_flag=True, help="Skip the task queues' pollers (a step before the workers start).")
def check_deployment(as_json: bool, before_workers: bool) -> None:
    """Report what the configured Temporal cluster and database lack: the namespace, the
    search attributes, the schema's migrations, a poller on every task queue. Exits 1 when
    anything is missing (docs/deployment.md)."""
    from dataclasses import asdict

    from api.deployment import check_deployment as run_checks

    findings = asyncio.run(run_checks(load_settings(), pollers=not before_workers))
    if as_json:
        click.echo(json.dumps([asdict(f) for f in findings], indent=2))
    else:
        for finding in findings:
            click.echo(finding.line())
    missing = [f for f in findings if not f.ok]
    if missing:
        click.echo(f"{len(missing)} check(s) found something missing", err=True)
        sys.exit(1)


@main.command()
def migrate() -> None:
    """Apply database migrations and load the reference data (idempotent)."""

    async def _run() -> dict:
        from models.db.core import close_pool, open_pool
        from models.db.core import migrate as run_migrations
        from models.db.reference_data import load_reference_data

        await open_pool()
        try:
            await run_migrations()
            return await load_reference_data()
        finally:
            await close_pool()

    counts = asyncio.run(_run())
    click.echo(f"migrated; reference data: {counts['index_definitions']} index definitions, "
               f"{counts['pin_codes']} pin codes", err=True)


@main.command()
@click.argument("coverage_id", type=click.UUID)
@click.option("--simulations", "-n", type=click.IntRange(1000, 2_000_000), help="Monte Carlo paths.")
@click.option("--seed", "-s", type=click.IntRange(0, 2**63 - 1), help="Random seed (default: the coverage's own).")
@click.option("--elr", type=click.FloatRange(0, 1, min_open=True), help="Expected loss ratio, e.g. 0.65.")
@click.option(
    "--model-version", type=click.Choice(KEPT_MODEL_VERSIONS),
    help="A kept pricing model version (default: the live one); an old run's inputs under its own version reproduce it.",
)
@click.option(
    "--credentials", "credentials_file", required=True, type=click.Path(exists=True, dir_okay=False),
    help="Your staff actuary credentials (the JSON parametric staff create printed): the rerun is yours, and "
    "another actuary publishes it.",
)
@click.option("--as", "actuary", default=None, metavar="NAME", help="Your staff name: checked against --credentials.")
def reprice(
    coverage_id, simulations: int | None, seed: int | None, elr: float | None, model_version: str | None,
    credentials_file: str, actuary: str | None,
) -> None:
    """Rerun COVERAGE_ID's pricing with other settings; show progress and the change. The
    rerun is a candidate: it becomes the price when another actuary publishes it. Who ran it
    is the staff actuary of --credentials (four eyes: a name alone proved nothing)."""
    from decimal import Decimal

    from api.auth.tenants import staff_name_from_credentials
    from api.pricing.reprice import reprice as run_reprice
    from models.wire.internal import NewPricingRun

    try:
        with open(credentials_file, encoding="utf-8") as f:
            credentials = json.load(f)
    except (OSError, ValueError) as exc:
        raise click.BadParameter(f"not readable JSON ({exc})", param_hint="--credentials") from None
    try:
        name = _tenant_command(lambda: staff_name_from_credentials(credentials, "actuary"))
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--credentials") from None
    if actuary is not None and actuary != name:
        raise click.BadParameter(f"the credentials are staff member {name!r}'s, not {actuary!r}'s", param_hint="--as")
    actuary = name

    request = NewPricingRun(
        simulations=simulations, seed=seed, expected_loss_ratio=None if elr is None else Decimal(str(elr)),
        model_version=model_version,
    )
    asyncio.run(run_reprice(load_settings(), coverage_id, request, actuary))


@main.group()
def catalogue() -> None:
    """The coverage catalogue."""


@catalogue.command("build")
@click.argument("pin_codes", nargs=-1, required=True)
@click.option("--wait/--no-wait", default=True, show_default=True, help="Wait until every coverage is priced.")
def catalogue_build(pin_codes: tuple[str, ...], wait: bool) -> None:
    """Create and price the next 12 months' coverages for the targets of PIN_CODES."""
    from api.catalogue.service import catalogue_window, ensure_coverages
    from models.db.catalogue import target_for_pin
    from models.db.core import close_pool, open_pool
    from models.temporal.client import connect

    settings = load_settings()

    async def _run() -> None:
        await open_pool()
        try:
            client = await connect(settings, retries=3)
            for pin in pin_codes:
                target_id = await target_for_pin(pin)
                if target_id is None:
                    raise click.ClickException(f"no monitoring target for pin code {pin}")
                planned = await ensure_coverages(client, settings, target_id, catalogue_window(settings), wait)
                made = sum(1 for p in planned if p.coverage_id)
                click.echo(f"{pin} → {target_id}: {made} coverages{' priced' if wait else ' planned'}")
        finally:
            await close_pool()

    asyncio.run(_run())


@main.group()
def observations() -> None:
    """Measured index inputs (docs/observations.md)."""


@observations.command("import")
@click.argument("csv_file", type=click.Path(exists=True, dir_okay=False))
@click.option("--chunk", default=5000, show_default=True, help="Rows per transaction.")
@click.option("--reason", default="", help="Why: required when the file revises stored values.")
@click.option(
    "--credentials", "credentials_file", type=click.Path(exists=True, dir_okay=False), default=None,
    help="Your data staff credentials (the JSON parametric staff create printed): required when the file revises "
    "stored values, so four eyes compare staff members, not OS users.",
)
def observations_import(csv_file: str, chunk: int, reason: str, credentials_file: str | None) -> None:
    """Import CSV_FILE (header: monitoring_target_id,data_set,variable,day,hour,value,source
    [,quality,provisional,simulated]). The whole file is validated first, as a POST batch
    is: one bad row and nothing is written; a file revising stored values needs --reason
    and --credentials. Revisions that would change a settled amount are held for another
    data staff member's approval (four eyes). Re-importing a file changes nothing. The
    values record their submitter: the staff member of --credentials (`staff:<name>`, as
    through the API), else `cli:<os user>`."""
    import csv
    import getpass

    from api.auth.tenants import staff_name_from_credentials
    from api.settlement.observations import hold_in_temporal, tell_settlements
    from models.db import observation_revisions as revisions_db
    from models.db import observations as observations_db
    from models.db.core import close_pool, open_pool
    from models.domain.actors import staff_actor
    from models.domain.observations import CSV_COLUMNS, Provenance
    from models.temporal.client import connect
    from models.temporal.observations import held_input
    from models.temporal.queues import task_queue

    settings = load_settings()
    with open(csv_file, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        unknown = [c for c in reader.fieldnames or [] if c not in CSV_COLUMNS]
        if unknown:
            raise click.ClickException(f"unknown column(s) {', '.join(unknown)}; the columns are {','.join(CSV_COLUMNS)}")
        records = list(reader)
    credentials = None
    if credentials_file is not None:
        try:
            with open(credentials_file, encoding="utf-8") as f:
                credentials = json.load(f)
        except (OSError, ValueError) as exc:
            raise click.BadParameter(f"not readable JSON ({exc})", param_hint="--credentials") from None

    async def _run() -> None:
        await open_pool()
        try:
            provenance = Provenance(submitted_by=f"cli:{getpass.getuser()}", reason=reason.strip())
            if credentials is not None:
                try:
                    name = await staff_name_from_credentials(credentials, "data")
                except ValueError as exc:
                    raise click.BadParameter(str(exc), param_hint="--credentials") from None
                provenance = Provenance(submitted_by=staff_actor(name), reason=reason.strip())
            rows, problems = await observations_db.validate_file(records)
            if problems:
                for p in problems[:20]:
                    where = "file" if p.row < 0 else f"line {p.row + 2}"
                    click.echo(f"{where}: {p.field + ': ' if p.field else ''}{p.message}", err=True)
                more = " (first 20 shown)" if len(problems) > 20 else ""
                raise click.ClickException(f"{len(problems)} problem(s){more}; nothing was written")
            if not provenance.reason or credentials is None:
                revising = sum(
                    1 for i in await observations_db.received(rows) if i.stored is not None and not i.unchanged
                )
                if revising and not provenance.reason:
                    raise click.ClickException(
                        f"the file revises {revising} stored value(s): say why with --reason; nothing was written"
                    )
                if revising:  # four eyes compare staff members: an OS user is not one
                    raise click.ClickException(
                        f"the file revises {revising} stored value(s): a revision's submitter is a data staff member, "
                        "give your credentials with --credentials FILE (as parametric staff create printed them); "
                        "nothing was written"
                    )
            totals = dict(new=0, revised=0, unchanged=0, held=0)
            notices, held_ids = [], []
            with click.progressbar(length=len(rows), label=f"Importing {len(rows)} rows") as bar:
                for i in range(0, len(rows), chunk):
                    outcome = await revisions_db.submit_batch(rows[i : i + chunk], provenance)
                    for name in totals:
                        totals[name] += getattr(outcome, name)
                    notices += outcome.notices
                    if outcome.revision_id is not None:
                        held_ids.append(outcome.revision_id)
                    bar.update(len(rows[i : i + chunk]))
            notified = 0
            if notices or held_ids:
                try:
                    client = await connect(settings, retries=1)
                    lifecycle = task_queue(settings.task_queue, "lifecycle")
                    for revision_id in held_ids:
                        await hold_in_temporal(client, lifecycle, held_input(await revisions_db.revision(revision_id)))
                    notified = await tell_settlements(client, lifecycle, notices)
                except Exception as exc:  # Temporal not running: the rows' notices are the sweep's
                    click.echo(f"warning: settlements not told now ({exc}); the settlement-notices sweep tells "
                               "them once the workers run, and held revisions get their workflows at the next "
                               "daily run or their decision", err=True)
            if held_ids:
                click.echo(f"{totals['held']} revision(s) held for approval by a data staff member (four eyes): "
                           + ", ".join(f"/internal/observation-revisions/{r}" for r in held_ids), err=True)
            click.echo(json.dumps({"rows": len(rows), "new": totals["new"], "revised": totals["revised"],
                                   "unchanged": totals["unchanged"], "held": totals["held"],
                                   "heldRevisionIds": [str(r) for r in held_ids], "settlementsNotified": notified}))
        finally:
            await close_pool()

    asyncio.run(_run())


@observations.command("run")
@click.option("--provider", "providers", multiple=True, help="Provider(s) to run (default OBSERVATION_PROVIDERS).")
@click.option("--lookback-days", type=click.IntRange(1, 800), default=10, show_default=True,
              help="Days back from yesterday to read (a late archive: IMD's yearly files, a season's best tracks).")
def observations_run(providers: tuple[str, ...], lookback_days: int) -> None:
    """Run the daily observations job now (what the observations-daily Schedule runs) and
    print what each provider brought in."""
    import datetime as dt

    from models.temporal.client import connect
    from models.temporal.observations import OBSERVATION_INGEST_WORKFLOW, IngestRunInput
    from models.temporal.queues import task_queue

    settings = load_settings()
    chosen = list(providers or settings.observation_providers)
    if not chosen:
        raise click.ClickException("no provider: pass --provider (simulated, imd-grid, ibtracs, open-meteo, nasa-power) or set OBSERVATION_PROVIDERS")

    async def _run() -> None:
        client = await connect(settings, retries=3)
        result = await client.execute_workflow(
            OBSERVATION_INGEST_WORKFLOW,
            IngestRunInput(providers=chosen, lookback_days=lookback_days),
            id=f"observations-now-{dt.datetime.now(dt.timezone.utc):%Y%m%dT%H%M%S}",
            task_queue=task_queue(settings.task_queue, "lifecycle"),
        )
        click.echo(json.dumps(result, indent=2, default=str))

    asyncio.run(_run())


@main.group()
def demo() -> None:
    """Demonstrations for `make dev` (never on a production database)."""


async def _staged_events(tenant_id: str, policy_id: str, coverage_ids: set[str], stage: str, wait: float) -> list[dict]:
    """The policy's events once each of `coverage_ids` has one of `stage` (INITIAL | FINAL),
    or what there is after `wait` s; every event of the policy, oldest first."""
    import uuid

    from models.db.settlement import events_of_policy

    deadline = asyncio.get_running_loop().time() + wait
    while True:
        events = await events_of_policy(tenant_id, uuid.UUID(policy_id))
        staged = {str(e["coverage_id"]) for e in events if (e.get("stage") or "FINAL") == stage}
        if coverage_ids <= staged or asyncio.get_running_loop().time() > deadline:
            return events
        await asyncio.sleep(0.5)


async def _not_yet(events: list[dict], coverage_ids: set[str], stage: str) -> list[str]:
    """Why covers have no event of `stage` yet: their settlement state and detail (e.g.
    DISPUTED: the sources disagree, for two data staff to decide)."""
    import uuid

    from models.db.tables import Settlement

    done = {str(e["coverage_id"]) for e in events if (e.get("stage") or "FINAL") == stage}
    missing = [uuid.UUID(c) for c in sorted(coverage_ids - done)]
    rows = await Settlement.select(Settlement.coverage_id, Settlement.state, Settlement.detail).where(
        Settlement.coverage_id.is_in(missing)) if missing else []
    return [f"{r['coverage_id']}: {r['state']} {r['detail']}".strip() for r in rows] or [str(c) + ": not settled yet" for c in missing]


def _stage_summary(events: list[dict], stage: str, currency: str) -> dict:
    """What `demo settle` prints of one stage: its events, what they paid, each cover's index."""
    from models.domain.money import from_minor

    mine = [e for e in events if (e.get("stage") or "FINAL") == stage]
    covers = []
    for e in mine:
        x = e["explanation"] if isinstance(e["explanation"], dict) else json.loads(e["explanation"] or "{}")
        covers.append({"eventId": str(e["id"]), "kind": e["kind"], "coverageId": str(e["coverage_id"]),
                       "paid": str(from_minor(e["payout_minor"], e["currency"])), "indexValue": x.get("indexValue"),
                       "indexError": x.get("indexError"), "paidIndex": x.get("paidIndex"), "waived": x.get("waived")})
    paying = [e for e in mine if e["payout_minor"] > 0]
    return {
        "eventId": str((paying or mine)[0]["id"]) if mine else None,
        "eventIds": [str(e["id"]) for e in mine],
        "paid": str(from_minor(sum(e["payout_minor"] for e in mine), currency)),
        "covers": covers,
    }


@demo.command("settle")
@click.option("--pin", default="560001", show_default=True, help="Pin code of the demo policy's target.")
@click.option("--rain-mm", type=click.FloatRange(0, 5000), help="Set last month's rainfall total (mm) instead of the simulated feed's.")
@click.option("--wait", type=click.FloatRange(0, 600), default=60, show_default=True,
              help="Seconds to wait for each payment's events (their ids are printed).")
def demo_settle(pin: str, rain_mm: float | None, wait: float) -> None:
    """Watch a payout: a demo-tenant policy over LAST month (written straight to the
    database: cover is never sold once its period has begun, this exists to show
    settlement) on the source ladder, its month's observations from the simulated feed as
    the real-time product publishes them (provisional) and the INITIAL payment they bring;
    then the month's archive (final values) and the FINAL true-up. Prints (JSON) the policy
    id, both payments' events (`--wait` for each) and where to watch it."""
    import datetime as dt
    from decimal import Decimal

    from api.catalogue.service import catalogue_window, ensure_coverages
    from models.db.catalogue import target_for_pin
    from models.db.core import close_pool, open_pool
    from models.db.demo import demo_policy, demo_rainfall
    from models.db.observations import store_batch
    from models.domain.simulated_archive import ARCHIVE_DIR, publish
    from models.temporal.client import connect
    from models.temporal.ids import settlement_workflow_id
    from models.temporal.observations import OBSERVATION_INGEST_WORKFLOW, IngestRunInput
    from models.temporal.queues import task_queue
    from models.temporal.settlement import data_changed_start

    settings = load_settings()
    archive = settings.var_dir / ARCHIVE_DIR
    lifecycle = task_queue(settings.task_queue, "lifecycle")

    async def _run() -> None:
        await open_pool()
        try:
            client = await connect(settings, retries=3)

            async def feed(step: str) -> None:  # the simulated feed's daily run, now
                run_id = f"observations-demo-{step}-{dt.datetime.now(dt.timezone.utc):%Y%m%dT%H%M%S%f}"
                try:  # a run whose activity keeps failing retries for ever: say so instead of waiting
                    await asyncio.wait_for(client.execute_workflow(
                        OBSERVATION_INGEST_WORKFLOW, IngestRunInput(providers=["simulated"]), id=run_id,
                        task_queue=lifecycle,
                    ), timeout=max(wait, 60))
                except TimeoutError:
                    raise click.ClickException(
                        f"the simulated feed's run {run_id} has not finished after {max(wait, 60):g} s: "
                        "its activity's last failure is in the Temporal UI (are the workers running?)") from None

            target = await target_for_pin(pin)
            if target is None:
                raise click.ClickException(f"no monitoring target for pin code {pin}")
            click.echo(f"1/5 catalogue of {target} (pin {pin}): priced", err=True)
            await ensure_coverages(client, settings, target, catalogue_window(settings), True)
            policy = await demo_policy(settings.demo_tenant_name, target)
            start, end = policy["start"], policy["end"]
            covers = {c["coverage_id"] for c in policy["covers"]}
            click.echo(f"2/5 demo policy {policy['policy_id']} over {start}..{end}, on the source ladder: "
                       + ", ".join(f"{c['index_code']} trigger {c['trigger']}" for c in policy["covers"]), err=True)
            # The two months before: their archive is out (final values beside the fallback's:
            # the overlap its calibration is fitted on); last month only as the real-time product.
            before = start - dt.timedelta(days=1)
            for month in (before, before.replace(day=1) - dt.timedelta(days=1)):
                publish(archive, month.year, month.month)
            await feed("real-time")
            if rain_mm is not None:
                await store_batch(demo_rainfall(target, start, end, Decimal(str(rain_mm)), final=False))
            click.echo(f"3/5 {start:%B %Y}'s observations loaded as the real-time product publishes them (provisional, "
                       f"simulated{', rainfall set to %s mm' % rain_mm if rain_mm is not None else ''}), with the "
                       f"reanalysis fallback and two archived months before", err=True)
            # The demo's period was never settled: no notice finds it, so it is started here.
            await client.start_workflow(**data_changed_start(target, start, end, lifecycle))
            workflow_id = settlement_workflow_id(target, start, end)
            events = await _staged_events(policy["tenant_id"], policy["policy_id"], covers, "INITIAL", wait)
            currency = events[0]["currency"] if events else "INR"
            initial = _stage_summary(events, "INITIAL", currency)
            click.echo(f"4/5 INITIAL payment ({workflow_id}): {initial['paid']} {currency}; "
                       + "; ".join(f"paid on index {c['paidIndex']} (the index {c['indexValue']}, its error {c['indexError']})"
                                   for c in initial["covers"]), err=True)
            for line in await _not_yet(events, covers, "INITIAL"):  # e.g. DISPUTED: GET /internal/settlements?state=DISPUTED
                click.echo(f"    no INITIAL payment after {wait:g} s: {line}", err=True)
            publish(archive, start.year, start.month)  # the month's archive is out: its final values
            if rain_mm is not None:
                await store_batch(demo_rainfall(target, start, end, Decimal(str(rain_mm)), final=True))
            else:
                await feed("archive")
            await client.start_workflow(**data_changed_start(target, start, end, lifecycle))
            events = await _staged_events(policy["tenant_id"], policy["policy_id"], covers, "FINAL", wait)
            final = _stage_summary(events, "FINAL", currency)
            click.echo(f"5/5 {start:%B %Y}'s archive loaded (final values): FINAL true-up {final['paid']} {currency}; "
                       + "; ".join(f"index {c['indexValue']}" + (" (a negative true-up, waived)" if c["waived"] else "")
                                   for c in final["covers"]), err=True)
            for line in await _not_yet(events, covers, "FINAL"):
                click.echo(f"    no FINAL settlement after {wait:g} s: {line}", err=True)
            from models.domain.money import from_minor

            base = settings.public_base_url
            click.echo(json.dumps({
                "policyId": policy["policy_id"], "tenantId": policy["tenant_id"], "settlementWorkflowId": workflow_id,
                # the INITIAL payment's paying event if any (else the first): what the README's next commands read
                "eventId": initial["eventId"] or final["eventId"],
                "finalEventId": final["eventId"],
                "eventIds": [str(e["id"]) for e in events],
                "paid": str(from_minor(sum(e["payout_minor"] for e in events), currency)) if events else None,
                "initial": initial,
                "final": final,
                "watch": f"http://127.0.0.1:8233/namespaces/{settings.temporal_namespace}/workflows/{workflow_id}",
                "events": f"{base}/policies/{policy['policy_id']}/events",
                "then": "GET /parametric-events/{eventId} (explanation) and /parametric-events/{eventId}/report (PDF)",
            }, indent=2))
        finally:
            await close_pool()

    asyncio.run(_run())


@main.group()
def settlement() -> None:
    """Settlements anyone can re-run (docs/settlement.md, "Settlements anyone can re-run")."""


@settlement.command("verify")
@click.argument("coverage_id", type=click.UUID)
@click.option("--revision", type=click.IntRange(min=1), help="The snapshot revision N (default: the latest).")
def settlement_verify(coverage_id, revision: int | None) -> None:
    """Re-run COVERAGE_ID's settlement from its snapshot alone: the SHA-256 of its canonical
    bytes against the recorded hash, the index and payout per unit recomputed by the
    contract's rule against the recorded result. Prints both; exit status 1 on a mismatch,
    2 when the coverage has no such snapshot. (Without database access: the API's
    GET /internal/settlements/{coverageId}/snapshot and docs/examples/verify_settlement.py.)"""
    from models.db.core import close_pool, open_pool
    from models.db.settlement_snapshots import revisions_of, snapshot_of
    from models.domain.snapshot_check import check_snapshot

    async def read() -> tuple[dict | None, list[int]]:
        await open_pool()
        try:
            return await snapshot_of(coverage_id, revision), await revisions_of(coverage_id)
        finally:
            await close_pool()

    row, revisions = asyncio.run(read())
    if row is None:
        click.echo(f"coverage {coverage_id} has no settlement snapshot"
                   + (f" of revision {revision} (it has {revisions or 'none'})" if revision else ""), err=True)
        sys.exit(2)
    body = row["snapshot"]
    check = check_snapshot(body, row["sha256"])
    problems = list(check.problems)
    for key, stored in (("coverageId", str(row["coverage_id"])), ("revision", row["revision"]), ("stage", row["stage"])):
        if body.get(key) != stored:
            problems.append(f"{key}: the row says {stored!r}, the snapshot {body.get(key)!r}")
    result = check.recomputed or check.recorded
    click.echo(f"snapshot  coverage {coverage_id}, revision {row['revision']} of {revisions}, {row['stage']}, "
               f"{body.get('indexCode')} {body.get('periodStart')}..{body.get('periodEnd')}")
    click.echo(f"sha256    {check.sha256} " + ("OK" if check.sha256 == row["sha256"] else f"MISMATCH: recorded {row['sha256']}"))
    click.echo(f"index     {result.get('indexValue')} (error {result.get('indexError')}), paid on {result.get('paidIndex')}")
    click.echo(f"payout    {result.get('payoutPerUnit')} {body.get('terms', {}).get('currency')} per unit of cover")
    click.echo("OK" if not problems else "MISMATCH: " + "; ".join(problems))
    sys.exit(1 if problems else 0)


@main.group()
def tenants() -> None:
    """Manage tenants and their API clients."""


def _tenant_command(operation) -> None:
    async def _run():
        from models.db.core import close_pool, open_pool
        from models.db.core import migrate as run_migrations

        await open_pool()
        try:
            # A running service shares the SQLite file: a write that meets one of its
            # transactions at a bad moment is told "database is locked"; try again.
            for attempt in range(8):
                try:
                    await run_migrations()
                    return await operation()
                except Exception as exc:  # sqlite3.OperationalError, by message
                    if "database is locked" not in str(exc) or attempt == 7:
                        raise
                    await asyncio.sleep(0.25 * (attempt + 1))
        finally:
            await close_pool()

    return asyncio.run(_run())


@tenants.command("create")
@click.argument("name")
@click.option("--internal", is_flag=True, help="The client may call the /internal surface.")
def tenants_create(name: str, internal: bool) -> None:
    """Create tenant NAME with a first client and print its credentials as JSON.

    The secret and API key are shown once; only their hashes are stored."""
    from api.auth.tenants import TenantExists, create_tenant

    try:
        credentials = _tenant_command(lambda: create_tenant(name, internal, load_settings().scope))
    except (TenantExists, ValueError) as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(json.dumps(credentials.to_dict(), indent=2))


@tenants.command("add-client")
@click.argument("name")
@click.option("--internal", is_flag=True, help="The client may call the /internal surface.")
def tenants_add_client(name: str, internal: bool) -> None:
    """Add a client (own secret and API key) to the existing tenant NAME; prints JSON."""
    from api.auth.tenants import UnknownTenant, add_client

    try:
        credentials = _tenant_command(lambda: add_client(name, internal, load_settings().scope))
    except (UnknownTenant, ValueError) as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(json.dumps(credentials.to_dict(), indent=2))


@tenants.command("disable-client")
@click.argument("client_id", type=click.UUID)
def tenants_disable_client(client_id) -> None:
    """Revoke CLIENT_ID: no new tokens, its issued ones are refused within a second, its API
    key stops working at once."""
    from api.auth.tenants import disable_client

    if not _tenant_command(lambda: disable_client(str(client_id))):
        raise click.ClickException(f"no client {client_id}")
    click.echo(f"client {client_id} disabled", err=True)


@tenants.command("list")
def tenants_list() -> None:
    """Tenants and their clients (ids only, never secrets), as JSON."""

    async def listing():
        from models.db.tables import ApiClient, Tenant

        clients = await ApiClient.select(ApiClient.id, ApiClient.tenant_id, ApiClient.internal, ApiClient.disabled)
        return [
            {
                "tenant_id": str(t["id"]),
                "name": t["name"],
                "clients": [
                    {"client_id": str(c["id"]), "internal": c["internal"], "disabled": c["disabled"]}
                    for c in clients
                    if c["tenant_id"] == t["id"]
                ],
            }
            for t in await Tenant.select().where(Tenant.kind == "TENANT").order_by(Tenant.name)
        ]

    click.echo(json.dumps(_tenant_command(listing), indent=2))


@main.group()
def capacity() -> None:
    """Capacity limits: the most the book may pay per target, risk month and tenant (docs/capacity.md)."""


def _capacity_json(records) -> str:
    """Limits as the API answers them (amounts JSON numbers with exact decimals), indented."""
    import msgspec

    from api.capacity.views import limit_view
    from api.responses import encode_json

    views = [limit_view(r) for r in records] if isinstance(records, list) else limit_view(records)
    return msgspec.json.format(encode_json(views), indent=2).decode()


@capacity.command("set")
@click.option("--target", "target_id", default=None, help="Monitoring target id (default: every target).")
@click.option("--month", default=None, help="Risk month YYYY-MM (default: every month).")
@click.option("--tenant", "tenant_name", default=None, help="Tenant name (default: every tenant).")
@click.option("--limit", "amount", required=True, help="The most the book may pay under this key, in INR (e.g. 50000000).")
def capacity_set(target_id: str | None, month: str | None, tenant_name: str | None, amount: str) -> None:
    """Set the limit on a key (none of --target, --month, --tenant: the whole book), or change
    the amount of the one in place; prints it as JSON, with what is used and what remains."""
    from decimal import Decimal, InvalidOperation

    from models.db import capacity as capacity_db
    from models.db.tables import MonitoringTarget, Tenant
    from models.domain.capacity import LimitKey, parse_month
    from models.domain.money import MoneyError, to_minor

    currency = load_settings().catalogue_currency
    try:
        limit_minor = to_minor(Decimal(amount), currency)
    except (InvalidOperation, MoneyError) as exc:
        raise click.BadParameter(str(exc) or "not a number", param_hint="--limit") from None
    if month is not None:
        try:
            parse_month(month)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--month") from None

    async def setting():
        tenant_id = None
        if tenant_name is not None:
            row = await Tenant.select(Tenant.id).where((Tenant.name == tenant_name) & (Tenant.kind == "TENANT")).first()
            if row is None:
                raise click.ClickException(f"no tenant named {tenant_name!r}")
            tenant_id = row["id"]
        if target_id is not None and not await MonitoringTarget.exists().where(MonitoringTarget.id == target_id):
            raise click.ClickException(f"no monitoring target {target_id}")
        key = LimitKey(target_id, month, tenant_id)
        existing = await capacity_db.limit_on(key)
        if existing is not None:
            return await capacity_db.change_limit(existing.id, currency, limit_minor), False
        return await capacity_db.create_limit(key, currency, limit_minor, "parametric capacity set"), True

    record, created = _tenant_command(setting)
    click.echo(f"capacity limit {record.id} {'set' if created else 'changed'}: {record.key.label(record.tenant_name)}", err=True)
    click.echo(_capacity_json(record))


@capacity.command("list")
def capacity_list() -> None:
    """Every capacity limit with what is used and what remains, as JSON."""
    from models.db import capacity as capacity_db

    records = _tenant_command(capacity_db.list_limits)
    click.echo(_capacity_json(list(records)))


@main.group()
def staff() -> None:
    """The platform operator's staff: data, actuary and operations roles (docs/roles.md)."""


@staff.command("create")
@click.argument("name")
@click.option(
    "--role", "roles", multiple=True, required=True, type=click.Choice(["data", "actuary", "operations"]),
    help="data: observations and their revisions; actuary: pricing reruns and publication; "
    "operations: cross-tenant reads and payout holds. Repeat for several.",
)
@click.option(
    "--email", required=True, metavar="ADDRESS",
    help="The person's e-mail address: their person key. One person has one staff identity: a name or an "
    "e-mail that folds or looks like an existing staff member's (case, look-alike letters) is refused.",
)
def staff_create(name: str, roles: tuple[str, ...], email: str) -> None:
    """Create staff member NAME (the person with --email) with ROLES; prints {tenant_id,
    client_id, client_secret, scope, roles, email} as JSON, once. client_id is the person's
    stable staff id (four eyes compare it). The token comes from the same token endpoint
    (with the printed tenant_id), and staff send that tenant_id as x-tenant-id."""
    from api.auth.tenants import StaffExists, TenantExists, create_staff

    try:
        credentials = _tenant_command(lambda: create_staff(name, list(roles), load_settings().scope, email=email))
    except (StaffExists, TenantExists, ValueError) as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(json.dumps(credentials.to_dict(), indent=2))


@staff.command("list")
def staff_list() -> None:
    """Staff members, their e-mails, roles and client ids (their stable staff ids; never
    secrets), as JSON."""

    async def listing():
        from api.auth.tenants import platform_tenant_id
        from models.db.tables import ApiClient

        tenant_id = await platform_tenant_id()
        if tenant_id is None:
            return []
        rows = await ApiClient.select(
            ApiClient.id, ApiClient.name, ApiClient.email, ApiClient.roles, ApiClient.disabled
        ).where(ApiClient.tenant_id == tenant_id).order_by(ApiClient.name)
        # email null: a staff member created before e-mails were required (issue 33)
        return [{"name": r["name"], "email": r["email"], "client_id": str(r["id"]), "roles": r["roles"].split(","),
                 "disabled": r["disabled"]} for r in rows]

    click.echo(json.dumps(_tenant_command(listing), indent=2))


@staff.command("disable")
@click.argument("client_id", type=click.UUID)
def staff_disable(client_id) -> None:
    """Revoke staff client CLIENT_ID: no new tokens, and its issued ones are refused within a
    second."""
    from api.auth.tenants import disable_client

    if not _tenant_command(lambda: disable_client(str(client_id))):
        raise click.ClickException(f"no client {client_id}")
    click.echo(f"client {client_id} disabled", err=True)


@main.group()
def keys() -> None:
    """The token signing keys every API process shares (api/auth/keys.py)."""


def _key_rows(settings) -> list[dict]:
    async def listing() -> list[dict]:
        from api.auth.keys import ensure_keys, verify_window
        from models.clock import utcnow
        from models.db.tables import SigningKey

        await ensure_keys(settings)
        rows = await SigningKey.select(
            SigningKey.kid, SigningKey.generation, SigningKey.created_at, SigningKey.retired_at, SigningKey.revoked_at
        ).order_by(SigningKey.created_at)
        current = max((r["generation"] for r in rows if r["generation"] is not None), default=None)
        window, now = verify_window(settings), utcnow()

        def state(r: dict) -> str:
            if r["revoked_at"] is not None:
                return f"revoked {r['revoked_at'].isoformat(timespec='seconds')}"
            if r["generation"] == current and r["retired_at"] is None:
                return "current (signs)"
            if r["retired_at"] is not None and r["retired_at"] + window > now:
                return f"retired, verifies until {(r['retired_at'] + window).isoformat(timespec='seconds')}"
            return "expired"

        return [
            {"kid": r["kid"], "state": state(r), "createdAt": r["created_at"].isoformat(timespec="seconds")}
            for r in rows
        ]

    return _tenant_command(listing)


@keys.command("list")
def keys_list() -> None:
    """The keys (making the first one, or importing SIGNING_KEY_PATH's, if there is none):
    which signs, until when each retired one verifies."""
    click.echo(json.dumps(_key_rows(load_settings()), indent=2))


@keys.command("rotate")
def keys_rotate() -> None:
    """Make a new signing key current. The previous one retires and keeps verifying (and
    stays in the JWKS) for a token lifetime plus a minute; API processes sign with the new
    one within a minute."""
    from api.auth.keys import rotate

    settings = load_settings()
    kid = _tenant_command(lambda: rotate(settings))
    click.echo(f"signing key {kid} is current", err=True)
    click.echo(json.dumps(_key_rows(settings), indent=2))


@keys.command("revoke")
@click.argument("kid")
def keys_revoke(kid: str) -> None:
    """Revoke signing key KID (a key thought stolen): every API process refuses its tokens
    within a second, it leaves the JWKS, its private half is erased. The current key is
    replaced by a new one first (its clients ask for new tokens)."""
    from api.auth.keys import revoke

    settings = load_settings()
    try:
        new_kid = _tenant_command(lambda: revoke(settings, kid))
    except LookupError as exc:
        raise click.ClickException(str(exc.args[0])) from None
    if new_kid:
        click.echo(f"signing key {new_kid} is current", err=True)
    click.echo(f"signing key {kid} is revoked", err=True)
    click.echo(json.dumps(_key_rows(settings), indent=2))


if __name__ == "__main__":
    main()
