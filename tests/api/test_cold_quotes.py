"""The first quote for a target nobody has quoted (issue 12, cold quotes): the catalogue
creates and prices everything the quote needs in one round trip: one activity proposes the
terms (the preferred covers and, for months where one is not viable, the next index's) and
prices them jointly; before, a month short of viable covers cost a second round (proposal,
creation and pricing again) while the client waited."""

from __future__ import annotations

import datetime as dt

from models.temporal.ids import catalogue_workflow_id

GOA = "IN-15.375N-073.875E"  # pin code 403001: dry months have no viable deficit cover
# January-March at Goa offer one cover (heat: no excess or deficit rainfall cover in a dry
# month since pricing-2026.4.0's trigger rules), too few for a line item: the quote starts in April.
FIRST_MONTH = 4
YEAR = dt.date.today().year + 1


def _activities(history) -> list[str]:
    return [
        e.activity_task_scheduled_event_attributes.activity_type.name
        for e in history.events
        if e.HasField("activity_task_scheduled_event_attributes")
    ]


async def test_a_first_quote_prices_its_target_in_one_round_trip(tenant, temporal_env):
    body = {
        "monitoringTargetId": GOA,
        "riskPeriodFrom": f"{YEAR}-{FIRST_MONTH:02d}-01",
        "riskPeriodTo": f"{YEAR}-12-31",
        "sumInsuredForLineItem": {"amount": 250000, "currency": "INR"},
    }
    r = await tenant.post("/quotes", json=body, timeout=600)
    assert r.status_code == 200, r.text
    quote = r.json()
    items = quote["lineItems"]
    assert len(items) == 13 - FIRST_MONTH
    # every month has its two covers, fallbacks included where a preferred index is not viable
    assert all(len(item["coverages"]) == 2 for item in items), [len(i["coverages"]) for i in items]
    codes = {c["indexDefinition"]["id"] for i in items for c in i["coverages"]}
    assert len(codes) >= 3, "months short of a viable preferred cover take a fallback index"
    history = await temporal_env.client.get_workflow_handle(catalogue_workflow_id(GOA)).fetch_history()
    activities = _activities(history)
    assert activities == ["propose_and_price_coverages", "summarise_fits"] or activities == [
        "propose_and_price_coverages"
    ], activities
    # asking again finds everything priced: no new activity
    again = await tenant.post("/quotes", json=body)
    assert again.status_code == 200
    history = await temporal_env.client.get_workflow_handle(catalogue_workflow_id(GOA)).fetch_history()
    assert _activities(history).count("propose_and_price_coverages") == 1
