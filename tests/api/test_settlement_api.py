"""Observations in and events out through HTTP: batches validated as a whole, replays and
revisions; a real policy (tenant surface) settled by the real settlement activity over its
first month, its events read by day, by policy and explained, on every surface; tenants
isolated."""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal

import pytest
from temporalio.testing import ActivityEnvironment

from activities.settlement import settle_period
from models.db import observations as observations_db
from models.db.tables import Observation
from models.domain.observations import ObservationIn
from models.temporal.settlement import SettlePeriodInput
from tests.conftest import assert_problem

TARGET = "IN-12.875N-077.625E"  # Bengaluru, pin code 560001


def obs(day: str, value, **changes) -> dict:
    row = {"monitoringTargetId": TARGET, "dataSet": "IMD-RF-DAILY", "variable": "rainfall_mm", "day": day,
           "value": value, "source": "IMD"}
    row.update(changes)
    return row


async def _count() -> int:
    return await Observation.count()


async def test_a_batch_is_stored_replayed_unchanged_and_revised(data_staff):
    day = (dt.date.today() - dt.timedelta(days=400)).isoformat()
    other = (dt.date.today() - dt.timedelta(days=399)).isoformat()
    r = await data_staff.post("/internal/observations", json={"observations": [obs(day, 12.5), obs(other, 0)]})
    assert r.status_code == 200, r.text
    nothing_held = {"held": 0, "heldRevisionId": None}
    assert r.json() == {"received": 2, "new": 2, "revised": 0, "unchanged": 0, "settlementsNotified": 0} | nothing_held
    again = await data_staff.post("/internal/observations", json={"observations": [obs(day, 12.5), obs(other, 0)]})
    assert again.json() == {"received": 2, "new": 0, "revised": 0, "unchanged": 2, "settlementsNotified": 0} | nothing_held
    # A revision says why (issue 24): without `reason` it is a 400 naming it, and nothing is written.
    unexplained = assert_problem(await data_staff.post("/internal/observations", json={"observations": [obs(day, "12.75")]}), 400)
    assert [e["field"] for e in unexplained["errors"]] == ["reason"] and "nothing was written" in unexplained["detail"]
    blank = await data_staff.post("/internal/observations", json={"observations": [obs(day, "12.75")], "reason": "  "})
    assert_problem(blank, 400)
    revised = await data_staff.post("/internal/observations", json={"observations": [obs(day, "12.75")], "reason": "gauge re-read"})
    assert revised.json()["revised"] == 1
    values = await observations_db.latest_values(TARGET, "IMD-RF-DAILY", "rainfall_mm", dt.date.fromisoformat(day), dt.date.fromisoformat(day))
    assert [(v.value, v.revision) for v in values] == [(Decimal("12.75"), 2)]
    # Provenance: every stored row names who submitted it and why.
    rows = await Observation.select(Observation.revision, Observation.submitted_by, Observation.reason, Observation.approved_by).where(
        Observation.obs_key == f"{TARGET}|IMD-RF-DAILY|rainfall_mm|{day}|"
    ).order_by(Observation.revision)
    assert rows == [
        {"revision": 1, "submitted_by": "staff:dana", "reason": "", "approved_by": ""},
        {"revision": 2, "submitted_by": "staff:dana", "reason": "gauge re-read", "approved_by": ""},
    ]


async def test_a_bad_batch_names_every_row_at_fault_and_writes_nothing(data_staff):
    day = (dt.date.today() - dt.timedelta(days=10)).isoformat()
    earlier = (dt.date.today() - dt.timedelta(days=11)).isoformat()
    future = (dt.date.today() + dt.timedelta(days=2)).isoformat()
    before = await _count()
    batch = [
        obs(day, 3),  # fine
        obs(earlier, -1),  # negative rain
        obs(day, 3, monitoringTargetId="IN-00.000N-000.000E"),  # unknown target
        obs(day, 3),  # duplicates row 0
        obs(day, 3, dataSet="IMD-RF-HOURLY"),  # hourly without hour
        obs(future, 3, variable="temperature_c"),  # IMD rainfall has no temperature
        obs(future, 3, dataSet="ERA5"),
        obs(future, 4),  # in the future
        obs(earlier, 5, source="", monitoringTargetId="IN-00.000N-000.000E"),  # empty source, unknown target
    ]
    problem = assert_problem(await data_staff.post("/internal/observations", json={"observations": batch}), 400)
    fields = {e["field"] for e in problem["errors"]}
    assert fields == {
        "observations[1].value", "observations[3]", "observations[4].hour",
        "observations[5].variable", "observations[6].dataSet", "observations[7].day",
        "observations[2].monitoringTargetId", "observations[8].source", "observations[8].monitoringTargetId",
    }
    assert "nothing was written" in problem["detail"]
    assert await _count() == before
    unknown = assert_problem(
        await data_staff.post("/internal/observations", json={"observations": [obs(day, 3, monitoringTargetId="IN-00.000N-000.000E")]}), 400
    )
    assert unknown["errors"] == [{"field": "observations[0].monitoringTargetId", "message": "unknown monitoring target 'IN-00.000N-000.000E'"}]
    assert_problem(await data_staff.post("/internal/observations", json={"observations": []}), 400)
    assert_problem(await data_staff.post("/internal/observations", json={"observations": [obs(day, "NaN")]}), 400)
    assert await _count() == before


async def test_tenant_clients_cannot_post_observations(make_tenant, tenant):
    outsider = await make_tenant(internal=False)
    assert_problem(await outsider.post("/internal/observations", json={"observations": []}), 403)
    assert_problem(await outsider.get("/internal/settlements"), 403)
    # Issue 24, finding 1: a tenant's internal client moved every tenant's payouts by posting
    # final rows for any target. Observations are the data staff's: 403, nothing stored.
    day = (dt.date.today() - dt.timedelta(days=300)).isoformat()
    before = await _count()
    refused = assert_problem(await tenant.post("/internal/observations", json={"observations": [obs(day, 250)]}), 403)
    assert "data staff" in refused["detail"]
    assert await _count() == before


@pytest.fixture(scope="module")
async def settled_policy(tenant):
    """A tenant policy (quote → convert → activate over HTTP) whose first month is settled
    by the real settlement activity from stored observations (the month is in the future,
    so the rows are stored directly: the API refuses future days)."""
    year = dt.date.today().year + 1
    body = {"monitoringTargetId": TARGET, "riskPeriodFrom": f"{year}-03-01", "riskPeriodTo": f"{year}-05-31",
            "sumInsuredForLineItem": {"amount": 250000, "currency": "INR"}}
    quote = (await tenant.post("/quotes", json=body, timeout=600)).json()
    policy = (await tenant.patch(f"/quotes/{quote['id']}")).json()
    assert (await tenant.patch(f"/policies/{policy['id']}")).status_code == 200
    start, end = dt.date(year, 3, 1), dt.date(year, 3, 31)
    # 40 mm a day: 1240 mm in March, far above any March excess trigger at Bengaluru.
    days = [start + dt.timedelta(days=i) for i in range(31)]
    await observations_db.store_batch([ObservationIn(TARGET, "IMD-RF-DAILY", "rainfall_mm", d, None, Decimal(40), "IMD") for d in days])
    # Heat covers (if the month has one) settle on their IMD 1° cell: 30 °C, below any trigger.
    await observations_db.store_batch([ObservationIn(TARGET, "IMD-TMAX-1DEG", "temperature_c", d, None, Decimal(30), "IMD") for d in days])
    at = dt.datetime.combine(end + dt.timedelta(days=4), dt.time(0), tzinfo=dt.timezone.utc)
    outcome = await ActivityEnvironment().run(settle_period, SettlePeriodInput(target_id=TARGET, start=start, end=end, at=at))
    assert outcome.state == "SETTLED", outcome
    return policy, at.date()


async def test_events_of_a_policy_by_day_and_explained(http, tenant, settled_policy):
    policy, day = settled_policy
    r = await tenant.get(f"/policies/{policy['id']}/events")
    assert r.status_code == 200, r.text
    events = r.json()
    assert len(events) == 2 and {e["kind"] for e in events} == {"SETTLEMENT"}
    paying = [e for e in events if Decimal(e["payout"]["amount"]) > 0]
    assert [e["eventType"] for e in paying] == ["EXCESS_RAINFALL"]
    assert paying[0]["payout"] == {"amount": 250000, "currency": "INR"}  # the line item's sum insured
    assert {e["stage"] for e in events} == {"FINAL"}  # a cover sold without a source ladder: final values only
    assert Decimal(paying[0]["indexValue"]) == Decimal(1240)

    by_day = (await tenant.get(f"/parametric-events?validated_day={day}")).json()["validated_events"]
    mine = [e for e in by_day if e["policy_id"] == policy["id"]]
    assert [{k: e[k] for k in ("policy_id", "event_type", "validated_day", "validated_amount")} for e in mine] == [
        {"policy_id": policy["id"], "event_type": "EXCESS_RAINFALL", "validated_day": day.isoformat(), "validated_amount": 250000}]
    assert mine[0]["kind"] == "SETTLEMENT" and mine[0]["event_id"] == paying[0]["id"] and mine[0]["adjustment_of"] is None
    assert mine[0]["stage"] == "FINAL"
    internal = (await tenant.get(f"/internal/parametric-events?validated_day={day}")).json()
    assert internal == {"validated_events": by_day}
    travel = await http.get(f"/travel/{tenant.id}/parametric-event?validated_day={day}",
                            headers={"Authorization": f"Bearer {tenant.credentials['api_key']}"})
    assert travel.status_code == 200 and travel.json() == {"validated_events": by_day}

    explained = (await tenant.get(f"/parametric-events/{paying[0]['id']}")).json()
    assert explained["event"]["id"] == paying[0]["id"]
    # Each day names the rung and source it came from (issue 34): a cover sold without a
    # source ladder settles on final values, and its snapshot (every day FINAL) re-runs.
    assert len(explained["indexPath"]) == 31 and explained["indexPath"][0] == {
        "day": f"{day.year}-03-01", "value": "40", "revision": 1, "counted": False, "rung": "FINAL",
        "dataSet": "IMD-RF-DAILY", "source": "IMD", "error": "0"}
    assert explained["event"]["stage"] == "FINAL" and explained["arithmetic"]["stage"] == "FINAL"
    from models.db.settlement_snapshots import snapshot_of
    from models.domain.snapshot_check import check_snapshot

    snapshot = await snapshot_of(uuid.UUID(paying[0]["coverageId"]), 1)
    assert explained["snapshotSha256"] == snapshot["sha256"] and check_snapshot(snapshot["snapshot"], snapshot["sha256"]).ok
    assert snapshot["snapshot"]["result"]["indexValue"] == "1240" and "First payment" not in explained["text"]
    assert explained["arithmetic"]["paid"] == "250000.00" and explained["arithmetic"]["quantity"] == "2.5"
    assert "1240" in explained["text"] and "250,000.00 INR" in explained["text"]
    assert "Total monthly total" not in explained["text"] and explained["text"].startswith("Monthly total rainfall over 1 Mar")
    assert (await tenant.get(f"/internal/parametric-events/{paying[0]['id']}")).json() == explained


async def test_another_tenants_events_are_404(tenant, other_tenant, settled_policy):
    policy, day = settled_policy
    events = (await tenant.get(f"/policies/{policy['id']}/events")).json()
    assert_problem(await other_tenant.get(f"/policies/{policy['id']}/events"), 404)
    assert_problem(await other_tenant.get(f"/internal/policies/{policy['id']}/events"), 404)
    internal = await tenant.get(f"/internal/policies/{policy['id']}/events")
    assert internal.status_code == 200 and internal.json() == (await tenant.get(f"/policies/{policy['id']}/events")).json()
    assert_problem(await other_tenant.get(f"/parametric-events/{events[0]['id']}"), 404)
    assert_problem(await tenant.get(f"/parametric-events/{uuid.uuid4()}"), 404)
    theirs = (await other_tenant.get(f"/parametric-events?validated_day={day}")).json()["validated_events"]
    assert all(e["policy_id"] != policy["id"] for e in theirs)


async def test_settlements_are_listed_for_ops(tenant, settled_policy):
    rows = (await tenant.get(f"/internal/settlements?targetId={TARGET}&state=SETTLED")).json()
    assert rows and all(r["state"] == "SETTLED" and r["workflowId"].startswith(f"settlement:{TARGET}:") for r in rows)
    assert_problem(await tenant.get("/internal/settlements?state=LOST"), 400)


async def test_the_claim_report_is_a_pdf_of_the_event(tenant, other_tenant, settled_policy):
    from io import BytesIO

    from pypdf import PdfReader

    policy, day = settled_policy
    paying = [e for e in (await tenant.get(f"/policies/{policy['id']}/events")).json() if e["payout"]["amount"] > 0][0]
    r = await tenant.get(f"/parametric-events/{paying['id']}/report", timeout=120)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"] == "application/pdf" and r.content.startswith(b"%PDF")
    text = "".join(page.extract_text() for page in PdfReader(BytesIO(r.content)).pages)
    assert "Claim report" in text and paying["id"] in text and "250,000" in text and "Running total" in text
    # every figure in the documents' one format (issue 29): no "250000.00 INR", no "Total monthly total"
    assert "₹250,000.00" in text and "250000.00" not in text and " INR" not in text, text
    assert "Total monthly total" not in text and "Monthly total rainfall over 1 Mar" in " ".join(text.split())
    again = await tenant.get(f"/internal/parametric-events/{paying['id']}/report")
    assert again.status_code == 200 and again.headers["etag"] == r.headers["etag"]  # rendered once
    assert_problem(await other_tenant.get(f"/parametric-events/{paying['id']}/report"), 404)


async def test_the_monitoring_view_shows_each_cover_against_its_trigger(tenant, other_tenant, settled_policy):
    policy, _ = settled_policy
    r = await tenant.get(f"/policies/{policy['id']}/monitoring")
    assert r.status_code == 200, r.text
    view = r.json()
    assert view["policyId"] == policy["id"] and len(view["covers"]) == 6  # three months, two covers each
    march = [c for c in view["covers"] if c["periodStart"].endswith("-03-01")]
    assert {c["state"] for c in march} == {"SETTLED"}
    later = [c for c in view["covers"] if not c["periodStart"].endswith("-03-01")]
    assert {c["state"] for c in later} == {"PENDING"} and all(c["indexToDate"] is None for c in later)
    assert (await tenant.get(f"/internal/policies/{policy['id']}/monitoring")).json() == view | {"asOf": view["asOf"]}
    assert_problem(await other_tenant.get(f"/policies/{policy['id']}/monitoring"), 404)


async def test_events_by_day_mark_an_adjustment_and_the_event_it_corrects(tenant):
    """Issue 29: events by day listed reversals as bare negative amounts. An adjustment says
    so (`kind`) and names the event it corrects (`adjustment_of`), beside the spec's fields."""
    from models.clock import utcnow
    from models.db.tables import ParametricEvent

    policy_id, coverage_id = uuid.uuid4(), uuid.uuid4()
    day = dt.date(2026, 9, 9)
    first, second = uuid.uuid4(), uuid.uuid4()
    for event_id, kind, revision, amount in ((first, "SETTLEMENT", 1, 250000_00), (second, "ADJUSTMENT", 2, -250000_00)):
        await ParametricEvent.insert(ParametricEvent(
            id=event_id, tenant_id=uuid.UUID(tenant.id), policy_id=policy_id, coverage_id=coverage_id,
            settlement_key=f"{policy_id}:{coverage_id}:r{revision}", event_type="EXCESS_RAINFALL", validated_day=day,
            index_value=Decimal(400 if revision == 1 else 100), currency="INR", payout_minor=amount, created_at=utcnow(),
            kind=kind, revision=revision,
        ))
    events = (await tenant.get(f"/parametric-events?validated_day={day}")).json()["validated_events"]
    mine = [e for e in events if e["policy_id"] == str(policy_id)]
    assert [(e["kind"], e["validated_amount"], e["adjustment_of"], e["event_id"]) for e in mine] == [
        ("SETTLEMENT", 250000, None, str(first)), ("ADJUSTMENT", -250000, str(first), str(second))]
