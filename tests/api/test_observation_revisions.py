"""Four eyes over observations (issue 24; docs/observations.md): a data staff member's
revision of a final value under a settled payout is held (nothing changes until it is
approved), its submitter cannot approve it, a second data staff member can (the policy
re-settles with an ADJUSTMENT), a refusal leaves everything as it was, and a revision that
changes no settled amount is stored at once. Over HTTP, with real settlement: a policy of
the test tenant over a past month (written to the database as the demo's is: cover is never
sold for a period that has begun), settled by the real settlement activity."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import os
import subprocess
import sys
import uuid
from dataclasses import dataclass
from decimal import Decimal

import msgspec
import pytest
from temporalio.client import WorkflowExecutionStatus
from temporalio.service import RPCError
from temporalio.testing import ActivityEnvironment

from activities.settlement import settle_period
from models.clock import utcnow
from models.db import observation_revisions as revisions_db
from models.db import observations as observations_db
from models.db.core import insert_rows, write_transaction
from models.db.tables import Coverage, LineItem, MonitoringTarget, Observation, ObservationRevision, Policy, PolicyItem
from models.domain.index_catalog import BY_CODE
from models.domain.observations import ObservationIn, Provenance
from models.domain.quotes import CoverSnapshot
from models.domain.settlement_basis import basis_for, encode_basis
from models.temporal.ids import settlement_workflow_id
from models.temporal.observations import REVISION_STATUS_QUERY, RevisionStatus, revision_workflow_id
from models.temporal.settlement import SettlePeriodInput
from tests.conftest import assert_problem

EXCESS, DEFICIT = "RAINFALL_MONTHLY_TOTAL", "RAINFALL_DEFICIT"
# Per unit of cover (limit 100,000 INR): excess pays 10,000 at 180.5 mm and 500 per mm
# beyond, at most 100,000 (from 360.5 mm); deficit pays below 12.5 mm. Sum insured 250,000:
# 2.5 units.
TERMS = {EXCESS: ("ABOVE", Decimal("180.5")), DEFICIT: ("BELOW", Decimal("12.5"))}


@dataclass(frozen=True)
class PastPolicy:
    target: str
    start: dt.date
    end: dt.date
    policy_id: uuid.UUID
    excess_id: uuid.UUID


async def _free_target() -> str:
    used = {r["monitoring_target_id"] for r in await Coverage.select(Coverage.monitoring_target_id)}
    used |= {r["monitoring_target_id"] for r in await Observation.select(Observation.monitoring_target_id).distinct()}
    rows = await MonitoringTarget.select(MonitoringTarget.id).order_by(MonitoringTarget.id, ascending=False)
    return next(r["id"] for r in rows if r["id"] not in used)


async def settled_past_policy(tenant_id: str, daily_mm: Decimal, settle: bool = True, ladder: bool = False) -> PastPolicy:
    """A policy of the tenant over the month before last at a target of its own, its
    rainfall (`daily_mm` a day, final) stored and the month settled by the real activity
    (`settle=False`: not settled yet). `ladder` (issue 34): the covers have their settlement
    basis and the rainfall is IMD's provisional values: the month is settled INITIAL."""
    target = await _free_target()
    first_of_month = dt.date.today().replace(day=1)
    end = (first_of_month - dt.timedelta(days=1)).replace(day=1) - dt.timedelta(days=1)
    start = end.replace(day=1)
    now = utcnow()
    policy_id, item_id = uuid.uuid4(), uuid.uuid4()
    covers, coverages = [], []
    for code, (direction, trigger) in TERMS.items():
        cover = CoverSnapshot(
            coverage_id=uuid.uuid4(), index_code=code, index_definition_id=BY_CODE[code].id, start=start, end=end,
            direction=direction, trigger=trigger, exit=None, currency="INR", limit_minor=10_000_000,
            min_payout_minor=1_000_000, payout_per_unit_minor=50_000, gross_premium_pct=Decimal("0.015"),
            risk_premium_pct=Decimal("0.01"), pricing_version=1,
        )
        covers.append(cover)
        coverages.append(Coverage(
            id=cover.coverage_id, monitoring_target_id=target, index_definition_id=cover.index_definition_id,
            risk_period_start=start, risk_period_end=end, risk_carrier="test", currency="INR", direction=direction,
            trigger=trigger, limit_minor=10_000_000, min_payout_minor=1_000_000, payout_per_unit_minor=50_000,
            expected_loss_ratio=Decimal("0.65"), created_by="test", created_at=now, updated_at=now,
            settlement_basis=encode_basis(basis_for(code, "IMD-RF-DAILY")) if ladder else None,
        ))
    tenant = uuid.UUID(tenant_id)
    async with write_transaction():
        await insert_rows(coverages)
        await insert_rows([Policy(
            id=policy_id, tenant_id=tenant, quote_id=uuid.uuid4(), kind="TENANT", name="four eyes", status="ACTIVE",
            inception_date=start, expiry_date=end, currency="INR", total_sum_insured_minor=25_000_000,
            gross_premium_minor=0, activated_at=dt.datetime.combine(start, dt.time(0), tzinfo=dt.timezone.utc) - dt.timedelta(days=1),
            signature_confirmed=True, created_at=now, updated_at=now,
        )])
        await insert_rows([LineItem(
            id=item_id, tenant_id=tenant, policy_id=policy_id, position=0, name=f"{start:%b %Y}", period_start=start,
            period_end=end, currency="INR", quantity=Decimal("2.5"), sum_insured_minor=25_000_000,
            total_sum_insured_minor=25_000_000, min_payout_minor=0, payout_per_unit_minor=0, premium_minor=0,
            covers=[msgspec.to_builtins(c) for c in covers],
        )])
        await insert_rows([PolicyItem(
            id=uuid.uuid5(item_id, str(c.coverage_id)), tenant_id=tenant, policy_id=policy_id, coverage_id=c.coverage_id,
            name=c.index_code, quantity=Decimal("2.5"), currency="INR", sum_insured_minor=c.limit_minor,
            total_sum_insured_minor=25_000_000, total_min_payout_minor=0,
        ) for c in covers])
    days = [start + dt.timedelta(days=i) for i in range((end - start).days + 1)]
    await observations_db.store_batch(
        [ObservationIn(target, "IMD-RF-DAILY", "rainfall_mm", d, None, daily_mm, "IMD", provisional=ladder) for d in days]
    )
    if settle:
        outcome = await ActivityEnvironment().run(settle_period, SettlePeriodInput(target_id=target, start=start, end=end, at=now))
        assert outcome.state == ("INITIAL" if ladder else "SETTLED"), outcome
    return PastPolicy(target, start, end, policy_id, covers[0].coverage_id)


def row(policy: PastPolicy, day: dt.date, value) -> dict:
    return {"monitoringTargetId": policy.target, "dataSet": "IMD-RF-DAILY", "variable": "rainfall_mm",
            "day": day.isoformat(), "value": value, "source": "IMD"}


async def _stored(policy: PastPolicy, day: dt.date) -> list[dict]:
    return await Observation.select(
        Observation.revision, Observation.value, Observation.submitted_by, Observation.reason, Observation.approved_by
    ).where(Observation.obs_key == f"{policy.target}|IMD-RF-DAILY|rainfall_mm|{day.isoformat()}|").order_by(Observation.revision)


async def _events(tenant, policy: PastPolicy) -> list[dict]:
    r = await tenant.get(f"/policies/{policy.policy_id}/events")
    assert r.status_code == 200, r.text
    return r.json()


async def _adjustments(tenant, policy: PastPolicy, timeout: float = 90) -> list[dict]:
    """The policy's ADJUSTMENT events, once the settlement workflow has written them."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        found = [e for e in await _events(tenant, policy) if e["kind"] == "ADJUSTMENT"]
        if found or asyncio.get_running_loop().time() > deadline:
            return found
        await asyncio.sleep(0.5)


@pytest.fixture(scope="module")
async def second_data_staff(make_staff):
    return await make_staff("data", name="devi")


async def test_a_revision_under_a_settled_payout_is_held_until_a_second_data_staff_member_approves_it(
    data_staff, second_data_staff, operations_staff, tenant, temporal_env
):
    policy = await settled_past_policy(tenant.id, Decimal(10))  # 31 or 30 days × 10 mm: excess pays
    settled = await _events(tenant, policy)
    assert {e["kind"] for e in settled} == {"SETTLEMENT"} and len(settled) == 2
    day = policy.start

    # Without a reason: 400 naming it, nothing written or held.
    refused = assert_problem(await data_staff.post("/internal/observations", json={"observations": [row(policy, day, 20)]}), 400)
    assert [e["field"] for e in refused["errors"]] == ["reason"]
    assert await ObservationRevision.count().where(ObservationRevision.submitted_by == "staff:dana") == 0

    r = await data_staff.post("/internal/observations", json={"observations": [row(policy, day, 20)], "reason": "IMD corrected the 1st"})
    assert r.status_code == 200, r.text
    answer = r.json()
    revision_id = answer.pop("heldRevisionId")
    assert answer == {"received": 1, "new": 0, "revised": 0, "unchanged": 0, "settlementsNotified": 0, "held": 1}
    # Nothing changed: the value and the events are as they were.
    assert [(s["revision"], s["value"]) for s in await _stored(policy, day)] == [(1, Decimal(10))]
    assert await _events(tenant, policy) == settled

    # Listed for data and operations staff, never for a tenant.
    held = (await data_staff.get("/internal/observation-revisions?state=HELD")).json()
    assert revision_id in [h["id"] for h in held]
    assert revision_id in [h["id"] for h in (await operations_staff.get("/internal/observation-revisions?state=HELD")).json()]
    assert_problem(await tenant.get("/internal/observation-revisions"), 403)
    assert_problem(await tenant.get(f"/internal/observation-revisions/{revision_id}"), 403)
    view = (await data_staff.get(f"/internal/observation-revisions/{revision_id}")).json()
    assert (view["state"], view["submittedBy"], view["reason"], view["rows"]) == ("HELD", "staff:dana", "IMD corrected the 1st", 1)
    assert view["workflowId"] == f"observation-revision:{revision_id}"
    [held_row] = view["observations"]
    assert (held_row["value"], held_row["previousValue"], held_row["revises"]) == (20, 10, 1)
    [change] = view["settlements"]
    total = 10 * ((policy.end - policy.start).days + 1)
    assert change["coverageId"] == str(policy.excess_id) and change["policies"] == 1
    assert (Decimal(change["settledIndex"]), Decimal(change["revisedIndex"])) == (total, total + 10)
    assert "payout per unit of cover" in change["change"]

    # Visible to ops in Temporal: a running workflow, summarised, with its status.
    handle = temporal_env.client.get_workflow_handle(revision_workflow_id(uuid.UUID(revision_id)))
    described = await handle.describe()
    assert described.status == WorkflowExecutionStatus.RUNNING
    assert described.workflow_type == "ObservationRevisionWorkflow"
    assert "Held observation revision · 1 row(s) by staff:dana" in (await described.static_summary())
    status = await handle.query(REVISION_STATUS_QUERY, result_type=RevisionStatus)
    assert (status.state, status.submitted_by, status.rows) == ("HELD", "staff:dana", 1)

    # Four eyes: the submitter may not approve; tenants and other staff roles may not decide.
    own = assert_problem(await data_staff.post(f"/internal/observation-revisions/{revision_id}/approve"), 403)
    assert "four eyes" in own["detail"]
    assert_problem(await tenant.post(f"/internal/observation-revisions/{revision_id}/approve"), 403)
    assert_problem(await operations_staff.post(f"/internal/observation-revisions/{revision_id}/approve"), 403)
    assert await _events(tenant, policy) == settled

    approved = await second_data_staff.post(f"/internal/observation-revisions/{revision_id}/approve", json={"reason": "checked with IMD"})
    assert approved.status_code == 200, approved.text
    body = approved.json()
    assert (body["state"], body["decidedBy"], body["decisionReason"]) == ("APPROVED", "staff:devi", "checked with IMD")
    assert_problem(await second_data_staff.post(f"/internal/observation-revisions/{revision_id}/approve"), 409)
    assert_problem(await second_data_staff.post(f"/internal/observation-revisions/{revision_id}/refuse", json={"reason": "late"}), 409)

    # Stored naming both; the policy re-settles with an adjustment of 10 mm × 500 × 2.5 units.
    assert await _stored(policy, day) == [
        {"revision": 1, "value": Decimal(10), "submitted_by": "direct database write", "reason": "", "approved_by": ""},
        {"revision": 2, "value": Decimal(20), "submitted_by": "staff:dana", "reason": "IMD corrected the 1st", "approved_by": "staff:devi"},
    ]
    [adjustment] = await _adjustments(tenant, policy)
    assert adjustment["payout"] == {"amount": 12500, "currency": "INR"} and adjustment["revision"] == 2
    assert adjustment["coverageId"] == str(policy.excess_id)
    assert await asyncio.wait_for(handle.result(), 30) == "APPROVED"


async def test_a_refused_revision_leaves_everything_as_it_was(data_staff, second_data_staff, tenant, temporal_env):
    policy = await settled_past_policy(tenant.id, Decimal(10))
    settled = await _events(tenant, policy)
    day = policy.start + dt.timedelta(days=1)
    batch = {"observations": [row(policy, day, 30)], "reason": "a storm gauge reading"}
    first = (await data_staff.post("/internal/observations", json=batch)).json()
    assert first["held"] == 1
    # The same batch again (a retried request) finds the revision already held.
    again = (await data_staff.post("/internal/observations", json=batch)).json()
    assert again["heldRevisionId"] == first["heldRevisionId"]
    revision_id = first["heldRevisionId"]

    assert_problem(await second_data_staff.post(f"/internal/observation-revisions/{revision_id}/refuse", json={}), 400)
    blank = assert_problem(await second_data_staff.post(f"/internal/observation-revisions/{revision_id}/refuse", json={"reason": " "}), 400)
    assert blank["errors"][0]["field"] == "reason"
    # The submitter may withdraw their own revision: refusing moves no money.
    r = await data_staff.post(f"/internal/observation-revisions/{revision_id}/refuse", json={"reason": "wrong station"})
    assert r.status_code == 200, r.text
    assert (r.json()["state"], r.json()["decidedBy"], r.json()["decisionReason"]) == ("REFUSED", "staff:dana", "wrong station")
    assert_problem(await second_data_staff.post(f"/internal/observation-revisions/{revision_id}/approve"), 409)

    assert [(s["revision"], s["value"]) for s in await _stored(policy, day)] == [(1, Decimal(10))]
    handle = temporal_env.client.get_workflow_handle(revision_workflow_id(uuid.UUID(revision_id)))
    assert await asyncio.wait_for(handle.result(), 30) == "REFUSED"
    assert await _events(tenant, policy) == settled
    assert revision_id in [h["id"] for h in (await data_staff.get("/internal/observation-revisions?state=REFUSED")).json()]
    assert revision_id not in [h["id"] for h in (await data_staff.get("/internal/observation-revisions?state=HELD")).json()]
    # Submitted again after the refusal: a new held revision.
    anew = (await data_staff.post("/internal/observations", json=batch)).json()
    assert anew["held"] == 1 and anew["heldRevisionId"] != revision_id


async def test_a_revision_that_changes_no_settled_amount_is_stored_at_once(data_staff, tenant, temporal_env):
    policy = await settled_past_policy(tenant.id, Decimal(40))  # far beyond the excess limit: capped
    settled = await _events(tenant, policy)
    day = policy.start
    r = await data_staff.post("/internal/observations", json={"observations": [row(policy, day, 41)], "reason": "re-read"})
    assert r.status_code == 200, r.text
    assert r.json() == {"received": 1, "new": 0, "revised": 1, "unchanged": 0, "settlementsNotified": 1, "held": 0, "heldRevisionId": None}
    assert [(s["revision"], s["value"], s["submitted_by"]) for s in await _stored(policy, day)][-1] == (2, Decimal(41), "staff:dana")
    # The settlement re-settles on revision 2 and pays nothing more.
    handle = temporal_env.client.get_workflow_handle(settlement_workflow_id(policy.target, policy.start, policy.end))
    for _ in range(180):
        status = await handle.query("status")
        if status["settlementRuns"] >= 1 and all(c["revision"] == 2 for c in status["coverages"]):
            break
        await asyncio.sleep(0.5)
    assert all(c["revision"] == 2 and c["state"] == "SETTLED" for c in status["coverages"]), status
    assert await _events(tenant, policy) == settled


async def test_final_values_under_an_initial_payment_are_not_held(database, tenant):
    """(issue 34) The archive's values under a cover paid INITIAL are its true-up, the
    contract's normal path: stored at once, not held for a second data staff member (a
    revision under a FINAL payment still is: the test above)."""
    policy = await settled_past_policy(tenant.id, Decimal(7), ladder=True)  # 217 mm in a 31-day month: paid INITIAL
    days = [policy.start + dt.timedelta(days=i) for i in range((policy.end - policy.start).days + 1)]
    archive = [ObservationIn(policy.target, "IMD-RF-DAILY", "rainfall_mm", d, None, Decimal(8), "IMD") for d in days]
    outcome = await revisions_db.submit_batch(archive, Provenance(submitted_by="staff:dana", reason="the archive"))
    assert (outcome.held, outcome.revised) == (0, len(days))


async def test_a_held_revision_whose_workflow_never_started_is_approved_by_one_data_staff_member(data_staff, tenant, temporal_env):
    """A provider's revision (the daily run) held, and the process stopped before starting
    its workflow: the approval starts it and decides; one data staff member suffices, the
    submitter being the provider."""
    policy = await settled_past_policy(tenant.id, Decimal(10))
    day = policy.end
    provider = Provenance(submitted_by="provider:imd-grid", reason="imd-grid published these values")
    outcome = await revisions_db.submit_batch(
        [ObservationIn(policy.target, "IMD-RF-DAILY", "rainfall_mm", day, None, Decimal(4), "IMD")], provider
    )
    assert (outcome.held, outcome.revised, outcome.stored) == (1, 0, [])
    handle = temporal_env.client.get_workflow_handle(revision_workflow_id(outcome.revision_id))
    with pytest.raises(RPCError):
        await handle.describe()
    listed = (await data_staff.get("/internal/observation-revisions?state=HELD")).json()
    assert str(outcome.revision_id) in [h["id"] for h in listed]
    r = await data_staff.post(f"/internal/observation-revisions/{outcome.revision_id}/approve")
    assert r.status_code == 200, r.text
    assert (r.json()["state"], r.json()["submittedBy"], r.json()["decidedBy"]) == ("APPROVED", "provider:imd-grid", "staff:dana")
    [adjustment] = await _adjustments(tenant, policy)
    assert adjustment["payout"] == {"amount": -7500, "currency": "INR"}  # 6 mm less × 500 × 2.5
    assert (await _stored(policy, day))[-1]["approved_by"] == "staff:dana"


def _cli(service, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "TEMPORAL_ADDRESS": service.temporal_address, "TEMPORAL_TASK_QUEUE": service.task_queue}
    return subprocess.run([sys.executable, "-m", "api.cli", *args], capture_output=True, text=True, env=env, timeout=120)


async def test_a_cli_import_revising_a_settled_value_needs_a_reason_and_is_held(
    service, data_staff, make_staff, tenant, tmp_path, temporal_env
):
    policy = await settled_past_policy(tenant.id, Decimal(10))
    header = "monitoring_target_id,data_set,variable,day,hour,value,source\n"
    new_day = policy.end + dt.timedelta(days=1)  # no value yet: new
    path = tmp_path / "revision.csv"
    path.write_text(header + f"{policy.target},IMD-RF-DAILY,rainfall_mm,{policy.start},,0,IMD\n"
                    + f"{policy.target},IMD-RF-DAILY,rainfall_mm,{new_day},,3,IMD\n")
    unexplained = _cli(service, "observations", "import", str(path))
    assert unexplained.returncode != 0 and "--reason" in unexplained.stderr and "nothing was written" in unexplained.stderr
    assert await _stored(policy, new_day) == []

    # a revising file names its data staff member (four eyes by a stable identity: e9c27bf)
    name = f"dora-{uuid.uuid4().hex[:6]}"
    (tmp_path / "dora.json").write_text(json.dumps((await make_staff("data", name=name)).credentials))
    done = _cli(service, "observations", "import", str(path), "--reason", "IMD archive correction",
                "--credentials", str(tmp_path / "dora.json"))
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert (summary["new"], summary["revised"], summary["held"]) == (1, 0, 1)
    [revision_id] = summary["heldRevisionIds"]
    stored = await _stored(policy, new_day)
    assert stored[0]["submitted_by"] == f"staff:{name}" and stored[0]["reason"] == "IMD archive correction"
    view = (await data_staff.get(f"/internal/observation-revisions/{revision_id}")).json()
    assert view["state"] == "HELD" and view["submittedBy"] == stored[0]["submitted_by"]
    handle = temporal_env.client.get_workflow_handle(revision_workflow_id(uuid.UUID(revision_id)))
    assert (await handle.describe()).status == WorkflowExecutionStatus.RUNNING
    r = await data_staff.post(f"/internal/observation-revisions/{revision_id}/refuse", json={"reason": "not needed"})
    assert r.status_code == 200, r.text


async def test_a_providers_revision_of_a_settled_value_is_held_for_one_data_staff_member(
    service, data_staff, tenant, temporal_env, tmp_path, monkeypatch
):
    """The daily run (imd-grid, reading IMD's final yearly archive) revises the last days of
    a settled month: those rows are held as `provider:imd-grid`, the days after it are
    stored; one data staff member approves, and the policy re-settles."""
    import calendar

    import numpy as np

    from activities.observations import ingest_observations
    from activities.providers import imd_grid
    from models.temporal.observations import IngestProviderInput

    policy = await settled_past_policy(tenant.id, Decimal(10))
    # Cover of the next month too: the daily run fetches targets with covers still open.
    after = Coverage(
        id=uuid.uuid4(), monitoring_target_id=policy.target, index_definition_id=BY_CODE[EXCESS].id,
        risk_period_start=policy.end + dt.timedelta(days=1), risk_period_end=policy.end + dt.timedelta(days=28),
        risk_carrier="test", currency="INR", direction="ABOVE", trigger=Decimal("180.5"), limit_minor=10_000_000,
        min_payout_minor=1_000_000, payout_per_unit_minor=50_000, expected_loss_ratio=Decimal("0.65"),
        created_by="test", created_at=utcnow(), updated_at=utcnow(),
    )
    await Coverage.insert(after)
    await PolicyItem.insert(PolicyItem(
        id=uuid.uuid4(), tenant_id=uuid.UUID(tenant.id), policy_id=policy.policy_id, coverage_id=after.id, name="next",
        quantity=Decimal("2.5"), currency="INR", sum_insured_minor=10_000_000, total_sum_insured_minor=25_000_000,
        total_min_payout_minor=0,
    ))
    # IMD's final archive: 11 mm a day at the target's four grid points (1 mm more than stored).
    place = await MonitoringTarget.select(MonitoringTarget.latitude, MonitoringTarget.longitude).where(
        MonitoringTarget.id == policy.target
    ).first()
    i = (float(place["latitude"]) - imd_grid.LAT0) / imd_grid.STEP
    j = (float(place["longitude"]) - imd_grid.LON0) / imd_grid.STEP
    today = policy.end + dt.timedelta(days=5)  # the run looks back 10 days: the month's last 6, and 4 after it
    for year in {today.year, (today - dt.timedelta(days=10)).year}:
        grid = np.full((366 if calendar.isleap(year) else 365, imd_grid.N_LAT, imd_grid.N_LON), -999.0, dtype="<f4")
        for r in {int(np.floor(i + 1e-9)), int(np.ceil(i - 1e-9))}:
            for c in {int(np.floor(j + 1e-9)), int(np.ceil(j - 1e-9))}:
                grid[:, r, c] = 11.0
        (tmp_path / f"Rainfall_ind{year}_rfp25.grd").write_bytes(grid.tobytes())
    monkeypatch.setenv("IMD_GRID_DIR", str(tmp_path))

    summary = await ActivityEnvironment(client=temporal_env.client).run(
        ingest_observations, IngestProviderInput(provider="imd-grid", today=today, lookback_days=10, task_queue=service.task_queue)
    )
    [revision_id] = [r for r in summary.held_revisions
                     if (await revisions_db.revision(r))["rows"][0]["monitoringTargetId"] == policy.target]
    view = (await data_staff.get(f"/internal/observation-revisions/{revision_id}")).json()
    assert (view["state"], view["submittedBy"], view["rows"]) == ("HELD", "provider:imd-grid", 6)
    assert {o["day"] for o in view["observations"]} == {(policy.end - dt.timedelta(days=k)).isoformat() for k in range(6)}
    later = await _stored(policy, policy.end + dt.timedelta(days=1))
    assert [(s["value"], s["submitted_by"]) for s in later] == [(Decimal(11), "provider:imd-grid")]
    assert [(s["revision"], s["value"]) for s in await _stored(policy, policy.end)] == [(1, Decimal(10))]
    handle = temporal_env.client.get_workflow_handle(revision_workflow_id(revision_id))
    assert (await handle.describe()).status == WorkflowExecutionStatus.RUNNING

    r = await data_staff.post(f"/internal/observation-revisions/{revision_id}/approve")
    assert r.status_code == 200, r.text
    [adjustment] = await _adjustments(tenant, policy)
    assert adjustment["payout"] == {"amount": 7500, "currency": "INR"}  # 6 mm more × 500 × 2.5
