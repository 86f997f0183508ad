"""A hotel-rain policy over a 3-night stay on the time-skipping server (issue 14): its covers
priced by the TravelCoveragesWorkflow, the policy workflow activated, hourly observations
loaded in which one night's daytime rain passes the trigger (another night's rain falls
after 20:00, a third night's stays just below): settlement pays exactly that one night and
the policy expires."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import uuid
from decimal import Decimal

from api.catalogue.service import snapshot
from models.db import catalogue as catalogue_db
from models.db import observations as observations_db
from models.db import policies as policies_db
from models.db import quotes as quotes_db
from models.db import travel as travel_db
from models.db.tables import ParametricEvent, Payout, WebhookMessage
from models.domain import travel
from models.domain.observations import ObservationIn
from models.temporal.ids import policy_workflow_id
from models.temporal.policies import PolicyWorkflowInput
from models.temporal.quotes import ConvertQuoteInput
from models.temporal.travel import TravelCoveragesInput, travel_coverages_workflow_id
from tests.test_lifecycles_time_skipping import (  # noqa: F401 - fixtures
    ClockWorkflow,
    advance,
    skipping_env,
    worker,
)
from tests.test_settlement_time_skipping import _free_target
from workflows.policies import PolicyWorkflow
from workflows.settlement import DATA_LATENCY
from workflows.travel import TravelCoveragesWorkflow

MAX_PAYOUT = Decimal("2500.50")


def _hourly(target: str, nights: list[dt.date]) -> list[ObservationIn]:
    rows = []
    for i, night in enumerate(nights):
        for hour in range(24):
            mm = Decimal(0)
            if i == 0 and hour in (8, 13, 19):
                mm = Decimal("3.5")  # 10.5 mm between 08:00 and 20:00: at or above 10 mm, pays
            if i == 1 and hour in (7, 20, 21):
                mm = Decimal(15)  # 45 mm, all outside the daytime hours: does not count
            if i == 2 and 8 <= hour < 20:
                mm = Decimal("0.8")  # 9.6 mm in the day: below the trigger
            rows.append(ObservationIn(target, "IMD-RF-HOURLY", "rainfall_mm", night, hour, mm, "IMD"))
    return rows


async def test_a_3_night_stay_with_rain_on_one_night_pays_exactly_that_night(skipping_env, worker):
    env = skipping_env
    target = await _free_target()
    now = await env.get_current_time()
    first = now.date() + dt.timedelta(days=10)
    stay = travel.Stay(first, first + dt.timedelta(days=2))
    # Priced with time skipping off: waiting on a result unlocks skipping, and the policy
    # workflow started next would otherwise be skipped past its activation deadline.
    with env.auto_time_skipping_disabled():
        ids = await env.client.execute_workflow(
            TravelCoveragesWorkflow.run,
            TravelCoveragesInput(target_id=target, first_night=stay.first_night, last_night=stay.last_night,
                                 triggers=list(travel.TRIGGERS_MM), simulations=4096, seed=7),
            id=travel_coverages_workflow_id(target, stay.first_night, stay.last_night),
            task_queue=worker,
        )
    coverage_id = travel.travel_coverage_id(target, stay, Decimal(10))
    assert str(coverage_id) in ids
    cover = (await travel_db.travel_covers([coverage_id]))[coverage_id]
    assert sum(cover.night_counts) == 4096 and len(cover.night_counts) == 4

    tenant_id = str(uuid.uuid4())
    draft = travel.build_travel_quote(
        quote_id=uuid.uuid4(), line_item_id=uuid.uuid4(), tenant_id=tenant_id, monitoring_target_id=target,
        cover=snapshot(await catalogue_db.coverage_row(coverage_id)), max_payout=MAX_PAYOUT, qty=3,
        priced=travel.price(cover.night_counts, MAX_PAYOUT, 3, replicate_counts=cover.replicate_counts),
        client_ref="booking-42", today=now.date(),
    )
    await quotes_db.insert_quote(draft)
    policy_id = uuid.uuid4()
    assert await policies_db.convert_quote(ConvertQuoteInput(
        tenant_id=tenant_id, quote_id=draft.id, policy_id=policy_id, line_item_ids=[uuid.uuid4()]))
    handle = await env.client.start_workflow(
        PolicyWorkflow.run,
        PolicyWorkflowInput(tenant_id=tenant_id, policy_id=policy_id, monitoring_target_id=target,
                            external_ref="booking-42", periods=[(stay.first_night, stay.last_night)]),
        id=policy_workflow_id(tenant_id, policy_id),
        task_queue=worker,
    )
    with env.auto_time_skipping_disabled():
        await handle.execute_update(PolicyWorkflow.activate)
    nights = [stay.first_night + dt.timedelta(days=i) for i in range(3)]
    await observations_db.store_batch(_hourly(target, nights))

    due = dt.datetime.combine(stay.last_night + dt.timedelta(days=1), dt.time(0), tzinfo=dt.timezone.utc) + DATA_LATENCY
    await advance(env, worker, due + dt.timedelta(days=2) - await env.get_current_time())
    assert await asyncio.wait_for(handle.result(), 60) == "EXPIRED"

    events = await ParametricEvent.select().where(ParametricEvent.policy_id == policy_id)
    paying = [e for e in events if e["payout_minor"]]
    assert len(paying) == 1
    [event] = paying
    assert event["coverage_id"] == coverage_id and event["event_type"] == "DAYTIME_RAIN"
    assert event["payout_minor"] == 250_050  # one night × 2,500.50 INR
    assert Decimal(str(event["index_value"])) == 1
    explanation = event["explanation"] if isinstance(event["explanation"], dict) else json.loads(event["explanation"])
    assert explanation["countedDays"] == [nights[0].isoformat()]
    # A stay's cover is on the hourly station ladder (issue 34): first looked at the day after
    # its last night + the station reports' day of latency, and paid FINAL then (final values).
    assert event["validated_day"] == stay.last_night + dt.timedelta(days=2) < due.date()
    assert event["stage"] == "FINAL"
    payouts = await Payout.select().where(Payout.policy_id == policy_id)
    assert [p["amount_minor"] for p in payouts] == [250_050]
    # The tenant's webhooks get the validated event and the payout (outbox rows).
    messages = await WebhookMessage.select().where(WebhookMessage.tenant_id == uuid.UUID(tenant_id))
    assert sorted(m["event_type"] for m in messages if str(policy_id) in json.dumps(m["payload"])) == [
        "parametric_event.validated", "payout.recorded", "policy.expired"]
