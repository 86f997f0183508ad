"""Activities of the travel surface's coverages: the hourly rain model's distribution of
nights paid for a stay and its parameter band (CPU, pricing pool), and their recording
(docs/travel.md)."""

from __future__ import annotations

import numpy as np
from temporalio import activity

from activities.site_models import site_model
from models.db.travel import insert_travel_coverages
from models.domain.travel import INDEX_CODE
from models.settings import load_settings
from models.temporal.travel import PricedStay, PriceStayInput, StayNights

# Paths of each bootstrap replicate of a stay's band: half the catalogue's BOOTSTRAP_PATHS
# (8,192), the hourly simulation costing ~100x a monthly path. The replicates share the stay's
# seed (common random numbers: the same normal draws and hourly uniforms, a wet hour's
# intensity drawn from its own uniform), so they differ by their parameters: on a 3-night
# Delhi January stay the replicate spread is 6-14 % of the expected loss at 5-20 mm.
STAY_BAND_PATHS = 1 << 12
# Sobol' batches of each replicate: the hourly simulation runs a Python loop over the month's
# hours per batch, so 16 batches of 256 paths cost 2.5x the CPU of 2 of 2,048; the band needs
# no error estimate of its own. The band then costs about the stay's main simulation again
# (0.9 s of CPU for a 3-night January stay at Delhi, against 0.9 s).
STAY_BAND_BATCHES = 2


def night_counts(daily: np.ndarray, trigger: float) -> list[int]:
    """Paths by the number of nights (columns) whose daytime rain reaches the trigger."""
    counted = (daily >= trigger).sum(axis=1)
    return [int(n) for n in np.bincount(counted, minlength=daily.shape[1] + 1)]


@activity.defn
def price_stay_nights(request: PriceStayInput) -> PricedStay:
    """Simulate the stay's nights (daytime rain of each night's date, mm, on
    `request.simulations` paths of the target's hourly rain model) and count, per trigger,
    the paths by the number of nights at or above it; then the same on each bootstrap
    replicate of the target's model (the catalogue's replicates, activities/pricing/
    uncertainty.py), for the quote's uncertainty load. Deterministic in the seed: a retry
    gives the same counts."""
    from activities.pricing.montecarlo import simulate_index
    from activities.pricing.threads import in_threads
    from activities.pricing.uncertainty import BOOTSTRAP_REPLICATES, replicate_model

    model = site_model(request.site)
    triggers = [float(t) for t in request.triggers]
    replicates: list[list[list[int]]] = [[] for _ in triggers]
    draws: dict = {}  # one set of draws (normal scores, hourly uniforms) for every replicate
    if activity.in_activity():
        activity.heartbeat("simulating")

    def main() -> np.ndarray:  # (paths, nights), mm
        return simulate_index(model, INDEX_CODE, request.first_night, request.last_night, request.simulations,
                              request.seed)

    def band(replicate):
        def run() -> list[list[int]]:
            rep = simulate_index(replicate, INDEX_CODE, request.first_night, request.last_night,
                                 STAY_BAND_PATHS, request.seed, batches=STAY_BAND_BATCHES, draws=draws)
            return [night_counts(rep, t) for t in triggers]

        return run

    # The replicates are built here (they read the target's model's caches); the first one
    # fills the draws; the main simulation's batches, then the other replicates, share the
    # pricing's threads (activities/pricing/threads.py): the same counts as one after another.
    jobs = [band(replicate_model(model, b)) for b in range(BOOTSTRAP_REPLICATES)]
    first = jobs[0]()
    daily = main()
    others = in_threads(jobs[1:])
    for counts in [first, *others]:
        for i, c in enumerate(counts):
            replicates[i].append(c)
    return PricedStay(
        site=request.site,
        first_night=request.first_night,
        last_night=request.last_night,
        by_trigger=[
            StayNights(trigger=trigger, night_counts=night_counts(daily, t), replicate_counts=replicates[i])
            for i, (trigger, t) in enumerate(zip(request.triggers, triggers))
        ],
        simulations=int(daily.shape[0]),
        seed=request.seed,
        model_version=model.model_version,
        data_hash=model.data_hash,
    )


@activity.defn
async def record_travel_coverages(priced: PricedStay) -> list[str]:
    """Write the stay's coverages (idempotent: existing rows stay as they are)."""
    settings = load_settings()
    ids = await insert_travel_coverages(priced, settings.risk_carrier, settings)
    return [str(i) for i in ids]
