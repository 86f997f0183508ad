"""Activities of the travel surface's coverages: the hourly rain model's distribution of
nights paid for a stay (CPU, pricing pool) and its recording (docs/travel.md)."""

from __future__ import annotations

import numpy as np
from temporalio import activity

from activities.site_models import site_model
from models.db.travel import insert_travel_coverages
from models.domain.travel import INDEX_CODE
from models.settings import load_settings
from models.temporal.travel import PricedStay, PriceStayInput, StayNights


@activity.defn
def price_stay_nights(request: PriceStayInput) -> PricedStay:
    """Simulate the stay's nights (daytime rain of each night's date, mm, on
    `request.simulations` paths of the target's hourly rain model) and count, per trigger,
    the paths by the number of nights at or above it. Deterministic in the seed: a retry
    gives the same counts."""
    from activities.pricing.montecarlo import simulate_index

    model = site_model(request.site)
    daily = simulate_index(model, INDEX_CODE, request.first_night, request.last_night, request.simulations,
                           request.seed)  # (paths, nights), mm
    nights = daily.shape[1]
    by_trigger = []
    for trigger in request.triggers:
        counted = (daily >= float(trigger)).sum(axis=1)
        by_trigger.append(StayNights(trigger=trigger, night_counts=[int(n) for n in np.bincount(counted, minlength=nights + 1)]))
    return PricedStay(
        site=request.site,
        first_night=request.first_night,
        last_night=request.last_night,
        by_trigger=by_trigger,
        simulations=int(daily.shape[0]),
        seed=request.seed,
        model_version=model.model_version,
        data_hash=model.data_hash,
    )


@activity.defn
async def record_travel_coverages(priced: PricedStay) -> list[str]:
    """Write the stay's coverages (idempotent: existing rows stay as they are)."""
    settings = load_settings()
    ids = await insert_travel_coverages(priced, settings.risk_carrier, settings.expected_loss_ratio)
    return [str(i) for i in ids]
