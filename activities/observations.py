"""Running a data provider: fetch the exposed targets' values, validate them as one batch
(as POST /internal/observations does), store them, tell the settlements concerned."""

from __future__ import annotations

import datetime as dt

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.providers.base import Target
from models.db import observations as observations_db
from models.db import settlement as settlement_db
from models.settings import load_settings
from models.temporal.observations import IngestProviderInput, IngestSummary
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
    totals = dict(rows=0, new=0, revised=0, unchanged=0, notified=0, refused=0)
    details = []
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
        outcome = await observations_db.store_batch(rows)
        totals["rows"] += len(rows)
        totals["new"] += outcome.new
        totals["revised"] += outcome.revised
        totals["unchanged"] += outcome.unchanged
        if (outcome.new or outcome.revised) and request.task_queue:
            periods = await observations_db.periods_touched(rows)
            totals["notified"] += await tell_settlements(activity.client(), request.task_queue, periods)
    return IngestSummary(
        provider=request.provider, targets=len(exposed), rows=totals["rows"], new=totals["new"],
        revised=totals["revised"], unchanged=totals["unchanged"], settlements_notified=totals["notified"],
        refused=totals["refused"], detail="; ".join(details)[:2000],
    )
