"""Running a data provider: fetch the exposed targets' values, validate them as one batch
(as POST /internal/observations does), store them, tell the settlements concerned; a
provider's revisions that would change a settled amount are held for a data staff member
(four eyes). Deciding a held revision: store its rows or not. And the settlement-notices
sweep: the settlements of every notice not told yet are told.

Stored rows and their settlement notices commit together; telling the settlements right
after is a shortcut that a failed signal or a killed worker may lose (a retry finds the
rows unchanged and stores nothing): the sweep finds the notice and tells them."""

from __future__ import annotations

import datetime as dt

from functools import partial

from temporalio import activity
from temporalio.exceptions import ApplicationError, WorkflowAlreadyStartedError

from activities.providers.base import Target
from models.db import observation_revisions as revisions_db
from models.db import observations as observations_db
from models.db import settlement as settlement_db
from models.domain.observations import Provenance
from models.domain.simulated_archive import ARCHIVE_DIR
from models.settings import load_settings
from models.clock import utcnow
from models.temporal.observations import (
    NOT_HELD,
    STALE_REVISION,
    DecideRevisionInput,
    IngestProviderInput,
    IngestSummary,
    NoticeSweepInput,
    NoticeSweepOutcome,
    RevisionDecided,
    held_input,
    revision_hold_start,
)
from models.temporal.settlement import data_changed_start

SIMULATED_BACKFILL_DAYS = 62  # the simulated feed fills open periods back this far
# ... and this many days before them: the primary's final values beside the fallback's, the
# overlap a fallback's calibration is fitted on (settlement_basis.MIN_PAIRS = 30 days at least).
SIMULATED_OVERLAP_DAYS = 62


async def _site_model(target_id: str):
    from activities.site_models import site_model
    from models.db.catalogue import site_of

    return site_model(await site_of(target_id))


def feed_window(provider: str, today: dt.date, lookback_days: int, first_open_day: dt.date) -> tuple[dt.date, dt.date]:
    """The days a provider's run asks for at a target, inclusive: its last `lookback_days` up
    to yesterday; the simulated feed's from the start of the target's open cover periods (at
    most SIMULATED_BACKFILL_DAYS back) and SIMULATED_OVERLAP_DAYS before that (the overlap
    a fallback's calibration is fitted on) once a period has begun: a target whose periods
    are all to come is not fed yet. Empty when the start is after the end."""
    end = today - dt.timedelta(days=1)
    if provider != "simulated":
        return today - dt.timedelta(days=lookback_days), end
    start = max(today - dt.timedelta(days=SIMULATED_BACKFILL_DAYS), first_open_day)
    return (start - dt.timedelta(days=SIMULATED_OVERLAP_DAYS) if start <= end else start), end


def provider_named(name: str, today: dt.date | None = None):
    from activities.providers.ibtracs import IbtracsProvider
    from activities.providers.imd_grid import ImdGridProvider
    from activities.providers.nasa_power import NasaPowerProvider
    from activities.providers.open_meteo import OpenMeteoProvider
    from activities.providers.simulated import SimulatedProvider

    settings = load_settings()
    providers = {
        "imd-grid": lambda: ImdGridProvider(settings.imd_grid_dir),
        "ibtracs": lambda: IbtracsProvider(settings.var_dir / "ibtracs"),
        "open-meteo": lambda: OpenMeteoProvider("era5"),
        "nasa-power": lambda: NasaPowerProvider(),
        "simulated": lambda: SimulatedProvider(_site_model, settings.var_dir / ARCHIVE_DIR, today),
    }
    if name not in providers:
        raise ApplicationError(f"unknown provider {name!r} (known: {', '.join(providers)})", non_retryable=True)
    return providers[name]()


@activity.defn
async def ingest_observations(request: IngestProviderInput) -> IngestSummary:
    provider = provider_named(request.provider, request.today)
    exposed = await settlement_db.exposed_targets()
    totals = dict(rows=0, new=0, revised=0, unchanged=0, notified=0, refused=0, held=0)
    details = []
    held_revisions = []
    provenance = Provenance(
        submitted_by=f"provider:{request.provider}",
        reason=f"{request.provider} published these values (daily run of {request.today})",
    )
    for t in exposed:
        start, end = feed_window(request.provider, request.today, request.lookback_days, t["first_open_day"])
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
        if request.task_queue:
            told = await _tell(request.task_queue, await observations_db.notices_to_tell(outcome.notices))
            totals["notified"] += told.settlements
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
        await activity.client().start_workflow(**revision_hold_start(held_input(row), task_queue))


async def _tell(task_queue: str, notices: observations_db.NoticesToTell) -> observations_db.Told:
    """Tell the notices' settlements (`models.db.observations.tell_notices`)."""
    return await observations_db.tell_notices(notices, partial(_signal, task_queue))


async def _signal(task_queue: str, period: observations_db.Period) -> bool:
    """Signal-with-start the settlement; False if its revision window is over."""
    try:
        await activity.client().start_workflow(**data_changed_start(*period, task_queue))
    except WorkflowAlreadyStartedError:
        activity.logger.warning("settlement %s:%s..%s is past its revision window: stored data does not re-settle it", *period)
        return False
    return True


@activity.defn
async def decide_observation_revision(request: DecideRevisionInput) -> RevisionDecided:
    """Approve (store the held rows, then tell the settlements over their days, which
    re-settle with adjustments) or refuse a held revision. Safe to retry: the decision is
    recorded once, with its settlement notices; a retry after the commit finds them not told
    only if the attempt died first, and the sweep tells those."""
    try:
        decided = await revisions_db.decide(request.revision_id, request.state, request.decided_by, request.reason)
    except (revisions_db.NotHeld, LookupError) as err:
        raise ApplicationError(str(err), type=NOT_HELD, non_retryable=True) from None
    except revisions_db.StaleRevision as err:
        raise ApplicationError(str(err), type=STALE_REVISION, non_retryable=True) from None
    notified = 0
    if request.task_queue:
        notified = (await _tell(request.task_queue, await observations_db.notices_to_tell(decided.notices))).settlements
    return RevisionDecided(
        revision_id=request.revision_id, state=decided.state, decided_by=decided.decided_by,
        decided_at=decided.decided_at, stored=len(decided.rows), settlements_notified=notified,
    )


@activity.defn
async def sweep_settlement_notices(request: NoticeSweepInput) -> NoticeSweepOutcome:
    """Tell the settlements of every notice not told yet (oldest first, a page at a time),
    leaving the youngest (`grace_seconds`) to the writer that tells its own. Run by the
    `settlement-notices` Schedule every minute. A settlement told twice settles once more
    for nothing; a notice is marked told only once its settlements were. A settlement past
    its revision window is not told: its notices are closed (`closed`)."""
    notices = settlements = closed = 0
    while True:
        before = utcnow() - dt.timedelta(seconds=request.grace_seconds)
        page = await observations_db.notices_to_tell(limit=request.limit, created_before=before)
        if not page.periods:
            return NoticeSweepOutcome(notices=notices, settlements=settlements, closed=closed)
        told = await _tell(request.task_queue, page)
        settlements += told.settlements
        closed += len(told.closed)
        notices += len(page.periods)
        activity.heartbeat(notices)
