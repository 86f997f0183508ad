"""Running a data provider: fetch the exposed targets' values, validate them as one batch
(as POST /internal/observations does), store them, tell the settlements concerned; a
provider's revisions that would change a settled amount are held for a data staff member
(four eyes). And deciding a held revision: store its rows or not."""

from __future__ import annotations

import datetime as dt

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.providers.base import Target
from models.db import observation_revisions as revisions_db
from models.db import observations as observations_db
from models.db import settlement as settlement_db
from models.domain.observations import Provenance
from models.settings import load_settings
from models.temporal.observations import (
    NOT_HELD,
    STALE_REVISION,
    DecideRevisionInput,
    IngestProviderInput,
    IngestSummary,
    RevisionDecided,
    held_input,
    hold_in_temporal,
)
from models.temporal.settlement import tell_settlements

SIMULATED_BACKFILL_DAYS = 62  # the simulated feed fills open periods back this far


async def _site_model(target_id: str):
    from activities.site_models import site_model
    from models.db.catalogue import site_of

    return site_model(await site_of(target_id))


def provider_named(name: str):
    from activities.providers.imd_grid import ImdGridProvider
    from activities.providers.nasa_power import NasaPowerProvider
    from activities.providers.open_meteo import OpenMeteoProvider
    from activities.providers.simulated import SimulatedProvider

    settings = load_settings()
    providers = {
        "imd-grid": lambda: ImdGridProvider(settings.imd_grid_dir),
        "open-meteo": lambda: OpenMeteoProvider("era5"),
        "nasa-power": lambda: NasaPowerProvider(),
        "simulated": lambda: SimulatedProvider(_site_model),
    }
    if name not in providers:
        raise ApplicationError(f"unknown provider {name!r} (known: {', '.join(providers)})", non_retryable=True)
    return providers[name]()


@activity.defn
async def ingest_observations(request: IngestProviderInput) -> IngestSummary:
    provider = provider_named(request.provider)
    exposed = await settlement_db.exposed_targets()
    end = request.today - dt.timedelta(days=1)
    earliest = request.today - dt.timedelta(days=request.lookback_days)
    if request.provider == "simulated":
        earliest = request.today - dt.timedelta(days=SIMULATED_BACKFILL_DAYS)
    totals = dict(rows=0, new=0, revised=0, unchanged=0, notified=0, refused=0, held=0)
    details = []
    held_revisions = []
    provenance = Provenance(
        submitted_by=f"provider:{request.provider}",
        reason=f"{request.provider} published these values (daily run of {request.today})",
    )
    for t in exposed:
        start = max(earliest, t["first_open_day"]) if request.provider == "simulated" else earliest
        if start > end:
            continue
        rows = await provider.fetch([Target(t["id"], t["latitude"], t["longitude"])], start, end)
        activity.heartbeat(t["id"])
        if not rows:
            continue
        problems = await observations_db.validate(rows, max_rows=None)
        if problems:  # refused as a whole, as a POST batch is; ops see why in the summary
            totals["refused"] += len(rows)
            details.append(f"{t['id']}: {len(problems)} problem(s), e.g. row {problems[0].row} {problems[0].field}: {problems[0].message}")
            continue
        outcome = await revisions_db.submit_batch(rows, provenance)
        totals["rows"] += len(rows)
        totals["new"] += outcome.new
        totals["revised"] += outcome.revised
        totals["unchanged"] += outcome.unchanged
        totals["held"] += outcome.held
        if outcome.revision_id is not None:
            held_revisions.append(outcome.revision_id)
            details.append(f"{t['id']}: {outcome.held} revision(s) held for approval ({outcome.revision_id})")
        if outcome.stored and request.task_queue:
            periods = await observations_db.periods_touched(outcome.stored)
            totals["notified"] += await tell_settlements(activity.client(), request.task_queue, periods)
    if request.task_queue:
        await _hold_in_temporal(request.task_queue)
    return IngestSummary(
        provider=request.provider, targets=len(exposed), rows=totals["rows"], new=totals["new"],
        revised=totals["revised"], unchanged=totals["unchanged"], settlements_notified=totals["notified"],
        refused=totals["refused"], detail="; ".join(details)[:2000], held=totals["held"],
        held_revisions=held_revisions,
    )


async def _hold_in_temporal(task_queue: str) -> None:
    """Every revision still held has its workflow (started now if the process that held it
    stopped before starting it): ops see it in Temporal and it expires in time."""
    for row in await revisions_db.held_revisions():
        await hold_in_temporal(activity.client(), task_queue, held_input(row))


@activity.defn
async def decide_observation_revision(request: DecideRevisionInput) -> RevisionDecided:
    """Approve (store the held rows, then tell the settlements over their days, which
    re-settle with adjustments) or refuse a held revision. Safe to retry: the decision is
    recorded once, and settlements told twice settle once more for nothing."""
    try:
        decided = await revisions_db.decide(request.revision_id, request.state, request.decided_by, request.reason)
    except (revisions_db.NotHeld, LookupError) as err:
        raise ApplicationError(str(err), type=NOT_HELD, non_retryable=True) from None
    except revisions_db.StaleRevision as err:
        raise ApplicationError(str(err), type=STALE_REVISION, non_retryable=True) from None
    notified = 0
    if decided.rows and request.task_queue:
        periods = await observations_db.periods_touched(decided.rows)
        notified = await tell_settlements(activity.client(), request.task_queue, periods)
    return RevisionDecided(
        revision_id=request.revision_id, state=decided.state, decided_by=decided.decided_by,
        decided_at=decided.decided_at, stored=len(decided.rows), settlements_notified=notified,
    )
