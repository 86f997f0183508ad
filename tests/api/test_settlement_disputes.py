"""Sources that disagree, decided by two data staff members (issue 34; docs/settlement.md,
"Sources that disagree"), over HTTP against rows written as settlement writes them: a
coverage of the tenant over a past month, DISPUTED with an OPEN `settlement_dispute`.
Ops and data staff list it (`GET /internal/settlements?state=DISPUTED`) with both
readings, the trigger and the tolerance; the tenant sees its own without who or why; a
first data staff member proposes, the proposer cannot confirm (403), a second choosing
another source is refused (409), a second confirming decides it (DECIDED) and the
settlement is told through a settlement notice written with the decision."""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal

import pytest

from models.clock import utcnow
from models.db import dispute_decisions
from models.db.core import insert_rows, json_value, write_transaction
from models.db.tables import Coverage, Settlement, SettlementDispute, SettlementNotice
from models.domain.settlement_basis import basis_for, encode_basis
from models.temporal.ids import settlement_workflow_id
from tests.api.test_observation_revisions import EXCESS, PastPolicy, settled_past_policy
from tests.conftest import assert_problem


@pytest.fixture(scope="module")
async def second_data_staff(make_staff):
    return await make_staff("data", name="dinesh")


@pytest.fixture(scope="module")
async def third_data_staff(make_staff):
    return await make_staff("data", name="divya")


async def disputed(tenant_id: str, primary: Decimal, fallback: Decimal) -> PastPolicy:
    """The tenant's past policy whose rainfall-excess coverage (trigger 180.5 mm) settlement
    found DISPUTED: the primary's index `primary` against the calibrated fallback's
    `fallback` (as package core writes them: models/db/settlement_disputes.py)."""
    policy = await settled_past_policy(tenant_id, Decimal(10), settle=False)
    now = utcnow()
    async with write_transaction():
        await Coverage.update({Coverage.settlement_basis: encode_basis(basis_for(EXCESS, "IMD-RF-DAILY"))}).where(
            Coverage.id == policy.excess_id
        )
        await insert_rows([Settlement(
            coverage_id=policy.excess_id, monitoring_target_id=policy.target, period_start=policy.start,
            period_end=policy.end, state="DISPUTED", revision=0, index_value=primary, detail="sources disagree",
            policies=0, paid_minor=0, updated_at=now,
        )])
        await insert_rows([SettlementDispute(
            id=uuid.uuid4(), coverage_id=policy.excess_id, monitoring_target_id=policy.target,
            period_start=policy.start, period_end=policy.end, state="OPEN", primary_index=primary,
            other_index=fallback, other_source="FALLBACK", created_at=now,
            detail=f"the primary's index {primary} and the calibrated fallback's {fallback} lie on different sides",
        )])
    return policy


def _listed(response, coverage_id: uuid.UUID) -> dict | None:
    assert response.status_code == 200, response.text
    return next((s for s in response.json() if s["coverageId"] == str(coverage_id)), None)


async def test_a_disputed_coverage_is_listed_with_both_readings_and_read_by_staff(
    data_staff, operations_staff, tenant, other_tenant
):
    policy = await disputed(tenant.id, Decimal("150.2"), Decimal("210.4"))
    for staff in (operations_staff, data_staff):
        row = _listed(await staff.get("/internal/settlements?state=DISPUTED"), policy.excess_id)
        assert row is not None and row["state"] == "DISPUTED"
        dispute = row["dispute"]
        assert dispute["state"] == "OPEN" and dispute["choices"] == ["PRIMARY", "FALLBACK"]
        assert dispute["readings"] == [{"source": "PRIMARY", "indexValue": 150.2}, {"source": "FALLBACK", "indexValue": 210.4}]
        assert (dispute["trigger"], dispute["direction"], dispute["tolerance"], dispute["unit"]) == (180.5, "ABOVE", 10, "mm")
        assert dispute["settlementWorkflowId"] == settlement_workflow_id(policy.target, policy.start, policy.end)
        assert dispute["proposal"] is None and dispute["proposedBy"] is None
    # Not DISPUTED: not listed under the filter.
    assert _listed(await operations_staff.get("/internal/settlements?state=SETTLED"), policy.excess_id) is None
    # The tenant holding it sees it, another tenant does not.
    mine = _listed(await tenant.get("/internal/settlements?state=DISPUTED"), policy.excess_id)
    assert mine is not None and mine["dispute"]["readings"][0]["indexValue"] == 150.2
    assert _listed(await other_tenant.get("/internal/settlements?state=DISPUTED"), policy.excess_id) is None
    # One coverage's dispute: data and operations staff; tenants 403; no dispute 404.
    one = await data_staff.get(f"/internal/settlements/{policy.excess_id}/dispute")
    assert one.status_code == 200, one.text
    assert one.json() == (await operations_staff.get(f"/internal/settlements/{policy.excess_id}/dispute")).json()
    assert one.json()["id"] == row["dispute"]["id"]
    assert_problem(await tenant.get(f"/internal/settlements/{policy.excess_id}/dispute"), 403)
    assert_problem(await data_staff.get(f"/internal/settlements/{uuid.uuid4()}/dispute"), 404)


async def test_two_different_data_staff_members_decide_and_the_settlement_is_told(
    data_staff, second_data_staff, third_data_staff, operations_staff, tenant, temporal_env
):
    policy = await disputed(tenant.id, Decimal("150.2"), Decimal("210.4"))
    url = f"/internal/settlements/{policy.excess_id}/dispute/decisions"

    # Only data staff decide; the body is checked, naming its fields.
    assert_problem(await tenant.post(url, json={"source": "PRIMARY", "reason": "x"}), 403)
    assert_problem(await operations_staff.post(url, json={"source": "PRIMARY", "reason": "x"}), 403)
    bad = assert_problem(await data_staff.post(url, json={"source": "IMD", "reason": "x"}), 400)
    assert [e["field"] for e in bad["errors"]] == ["source"] and "PRIMARY, FALLBACK" in bad["detail"]
    assert [e["field"] for e in assert_problem(await data_staff.post(url, json={"source": "PRIMARY"}), 400)["errors"]] == ["reason"]
    assert_problem(await data_staff.post(f"/internal/settlements/{uuid.uuid4()}/dispute/decisions",
                                         json={"source": "PRIMARY", "reason": "x"}), 404)

    # The first proposes; the same request again is a retry.
    proposal = {"source": "PRIMARY", "reason": "the gauge record agrees with IMD"}
    first = await data_staff.post(url, json=proposal)
    assert first.status_code == 200, first.text
    body = first.json()
    assert (body["state"], body["proposal"], body["proposedBy"], body["proposalReason"]) == (
        "PROPOSED", "PRIMARY", "staff:dana", "the gauge record agrees with IMD")
    again = await data_staff.post(url, json=proposal)
    assert again.status_code == 200 and again.json() == body

    # Four eyes: the proposer cannot confirm their own proposal.
    own = assert_problem(await data_staff.post(url, json={"source": "PRIMARY", "reason": "confirmed"}), 403)
    assert "four eyes" in own["detail"]
    # A second member choosing the other source: 409, nothing changes.
    other = assert_problem(await second_data_staff.post(url, json={"source": "FALLBACK", "reason": "ERA5 saw the storm"}), 409)
    assert "staff:dana proposed PRIMARY" in other["detail"]
    # The proposer may replace the proposal with the other source.
    replaced = await data_staff.post(url, json={"source": "FALLBACK", "reason": "the gauge was blocked on the 14th"})
    assert replaced.status_code == 200, replaced.text
    assert (replaced.json()["state"], replaced.json()["proposal"]) == ("PROPOSED", "FALLBACK")
    notices_before = await SettlementNotice.count().where(SettlementNotice.monitoring_target_id == policy.target)

    decided = await second_data_staff.post(url, json={"source": "FALLBACK", "reason": "ERA5 saw the storm"})
    assert decided.status_code == 200, decided.text
    body = decided.json()
    assert (body["state"], body["decision"], body["decidedBy"], body["decisionReason"]) == (
        "DECIDED", "FALLBACK", "staff:dinesh", "ERA5 saw the storm")
    assert (body["proposedBy"], body["proposal"]) == ("staff:dana", "FALLBACK") and body["decidedAt"] is not None
    stored = await SettlementDispute.select().where(SettlementDispute.coverage_id == policy.excess_id).first()
    assert stored["proposed_by_id"] == data_staff.credentials["client_id"]

    # The settlement is told: a notice over every day of the period, written with the
    # decision and told at once (its workflow signalled).
    notices = await SettlementNotice.select().where(SettlementNotice.monitoring_target_id == policy.target)
    assert len(notices) == notices_before + 1
    notice = max(notices, key=lambda n: n["created_at"])
    days = (policy.end - policy.start).days + 1
    assert json_value(notice["days"]) == [(policy.start + dt.timedelta(days=i)).isoformat() for i in range(days)]
    assert notice["notified_at"] is not None and notice["settlements"] == 1
    described = await temporal_env.client.get_workflow_handle(
        settlement_workflow_id(policy.target, policy.start, policy.end)).describe()
    assert described.workflow_type == "SettlementWorkflow"

    # Decided: the confirmer's retry answers it as it is; anything else is 409.
    retry = await second_data_staff.post(url, json={"source": "FALLBACK", "reason": "ERA5 saw the storm"})
    assert retry.status_code == 200 and retry.json()["state"] == "DECIDED"
    assert_problem(await third_data_staff.post(url, json={"source": "PRIMARY", "reason": "late"}), 409)
    assert_problem(await third_data_staff.post(url, json={"source": "FALLBACK", "reason": "me too"}), 409)
    # The tenant sees the decision, not who made it nor why.
    mine = _listed(await tenant.get("/internal/settlements"), policy.excess_id)
    assert (mine["dispute"]["state"], mine["dispute"]["decision"]) == ("DECIDED", "FALLBACK")
    assert mine["dispute"]["decidedBy"] is None and mine["dispute"]["proposalReason"] is None


async def test_only_an_active_data_staff_member_by_that_name_and_id_decides(data_staff, actuary, tenant):
    """The decision checks the actor against the staff table (as the workflows' staff check
    does: models/db/staff.py `check_actor`), whatever a token says: an unknown name, a name
    with another member's id, a staff member without the data role: FourEyes (403), nothing
    changed."""
    policy = await disputed(tenant.id, Decimal("150.2"), Decimal("210.4"))
    dana_id = data_staff.credentials["client_id"]
    for actor, actor_id in (("staff:nobody", ""), ("staff:nobody", dana_id),
                            ("staff:arun", actuary.credentials["client_id"])):
        with pytest.raises(dispute_decisions.FourEyes):
            await dispute_decisions.decide(policy.excess_id, "PRIMARY", "a reason", actor, actor_id)
    row = await dispute_decisions.latest_dispute(policy.excess_id)
    assert (row["state"], row["proposed_by"]) == ("OPEN", "")
    done = await dispute_decisions.decide(policy.excess_id, "PRIMARY", "a reason", "staff:dana", dana_id)
    assert (done.dispute["state"], done.dispute["proposed_by_id"]) == ("PROPOSED", dana_id)
