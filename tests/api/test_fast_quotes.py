"""The internal surface's fast quotes through HTTP with a real Temporal server: the job's
states, the joint pricing report and document, acceptance, rejection, policies from quotes,
refusals and isolation (issue 12)."""

from __future__ import annotations

import asyncio
import uuid
from decimal import Decimal

import pytest

from models.temporal.ids import quote_workflow_id
from models.temporal.search_attributes import QUOTE_STATE
from tests.api.test_business_partners import PARTNER
from tests.api.test_coverages import wait_until_priced
from tests.conftest import assert_problem

MUMBAI = "400001"
QUERY = f"targetName={MUMBAI}&from=2027-06-01&to=2027-08-31&size=100"


@pytest.fixture(scope="module")
async def catalogue(tenant):
    first = (await tenant.get(f"/internal/coverages?{QUERY}")).json()
    body = await wait_until_priced(tenant, QUERY, len(first["content"]))
    return [c for c in body["content"] if c["status"] == "ACTIVE"]


@pytest.fixture(scope="module")
async def customer(tenant):
    r = await tenant.post("/internal/business-partners", json=PARTNER)
    assert r.status_code == 201, r.text
    return r.json()["id"]


def new_fast_quote(customer_id: str, coverage_ids: list[str], amount="250000.00") -> dict:
    return {
        "@type": "NewFastQuote",
        "name": "Monsoon cover for Acme's Mumbai warehouse",
        "customerId": customer_id,
        "coverageIds": coverage_ids,
        "sumInsured": {"amount": amount, "currency": "INR"},
    }


async def wait_for_state(tenant, quote_id: str, states: tuple[str, ...], timeout: float = 180) -> dict:
    deadline = asyncio.get_running_loop().time() + timeout
    seen = []
    while True:
        r = await tenant.get(f"/internal/quotes/{quote_id}")
        assert r.status_code == 200, r.text
        body = r.json()
        if not seen or seen[-1] != body["state"]:
            seen.append(body["state"])
        if body["state"] in states or asyncio.get_running_loop().time() > deadline:
            body["_seen"] = seen
            return body
        await asyncio.sleep(0.1)


async def completed_quote(tenant, customer, coverage_ids) -> dict:
    r = await tenant.post("/internal/fast-quotes", json=new_fast_quote(customer, coverage_ids))
    assert r.status_code == 201, r.text
    return await wait_for_state(tenant, r.json()["id"], ("completed", "error"))


async def test_a_fast_quote_runs_its_job_to_completed_with_a_joint_report_and_document(tenant, catalogue, customer, temporal_env):
    ids = [c["id"] for c in catalogue]
    r = await tenant.post("/internal/fast-quotes", json=new_fast_quote(customer, ids))
    assert r.status_code == 201, r.text
    created = r.json()
    assert created["@type"] == "Quote" and created["state"] == "created"
    assert r.headers["location"] == f"/internal/quotes/{created['id']}"
    assert created["sumInsured"]["amount"] == 250000  # a JSON number, as on every other reply
    assert created["grossPremium"] is None and created["pricingReport"] is None
    assert created["coverageIds"] == ids and created["customerId"] == customer

    body = await wait_for_state(tenant, created["id"], ("completed", "error"))
    assert body["state"] == "completed", body
    assert set(body["_seen"]) <= {"created", "queued", "running", "completed"}
    report = body["pricingReport"]
    # joint figures: E[total] is the sum of the covers' (linearity), the tail is not
    covers = report["covers"]
    assert [c["coverageId"] for c in covers] == ids
    total_el = float(report["expectedPayout"])
    assert total_el == pytest.approx(sum(float(c["expectedPayout"]) for c in covers), rel=1e-6)
    assert float(report["var99"]) < sum(float(c["var99"]) for c in covers)
    assert 0 < report["probabilityOfAnyPayout"] < 1
    band = report["expectedPayoutBand"]
    assert float(band["low"]) < total_el < float(band["high"])
    assert float(report["tvar99"]) >= float(report["var99"]) and float(report["tvar995"]) >= float(report["var995"])
    premium = report["premium"]
    assert Decimal(str(body["grossPremium"]["amount"])) == Decimal(premium["grossPremium"])
    assert body["grossPremium"]["currency"] == "INR"
    assert 0 <= report["probabilityOfExhaustion"] <= report["probabilityOfAnyPayout"]
    assert float(premium["grossPremium"]) > float(premium["adjustedExpectedLoss"]) > 0
    # the covers of one month form one line item of S (issue 26): the total is months x S,
    # the most the quote can pay (before: covers x S)
    months = {c["start"] for c in catalogue}
    assert float(body["totalSumInsured"]["amount"]) == 250000 * len(months)
    assert len(report["lineItems"]) == len(months)

    # the document downloads through the internal file endpoint
    doc = await tenant.get(f"/internal/files/{body['quoteDocumentFileId']}")
    assert doc.status_code == 200 and doc.content[:5] == b"%PDF-"

    # ops see it in Temporal: one QuoteWorkflow with the state as a search attribute
    handle = temporal_env.client.get_workflow_handle(quote_workflow_id(tenant.id, created["id"]))
    description = await handle.describe()
    assert description.workflow_type == "QuoteWorkflow"
    assert description.typed_search_attributes.get(QUOTE_STATE) == "CREATED"
    # Its document goes ahead of catalogue documents on the documents queue: a customer
    # waits on it (it waited minutes behind a new target's catalogue renders before).
    scheduled = {
        e.activity_task_scheduled_event_attributes.activity_type.name: e.activity_task_scheduled_event_attributes
        for e in (await handle.fetch_history()).events
        if e.HasField("activity_task_scheduled_event_attributes")
    }
    assert scheduled["render_fast_quote_document"].priority.priority_key == 1


async def test_accept_makes_a_policy_draft_that_is_accepted_like_a_tenant_one(tenant, catalogue, customer):
    quote = await completed_quote(tenant, customer, [catalogue[0]["id"], catalogue[1]["id"]])
    r = await tenant.post(f"/internal/quotes/{quote['id']}/accept", json={"externalPolicyId": "ACME-POL-0001"})
    assert r.status_code == 200, r.text
    accepted = r.json()
    assert accepted["state"] == "accepted" and accepted["externalPolicyId"] == "ACME-POL-0001"
    policy_id = accepted["policyId"]
    # a second policy from the same quote is a conflict, either way
    again = await tenant.post("/internal/policies", json={"@type": "NewPolicyFromQuote", "quoteId": quote["id"]})
    assert_problem(again, 409)
    assert_problem(await tenant.post(f"/internal/quotes/{quote['id']}/accept", json={"externalPolicyId": "X"}), 409)
    assert_problem(await tenant.post(f"/internal/quotes/{quote['id']}/reject"), 409)

    r = await tenant.post(f"/internal/policies/{policy_id}/accept")
    assert r.status_code == 200, r.text
    policy = r.json()
    assert policy["@type"] == "Policy" and policy["status"] == "ACCEPTED"
    assert policy["signatureConfirmed"] is True and policy["activatedAt"].endswith("+00:00")
    assert "." in policy["activatedAt"]
    assert policy["externalPolicyId"] == "ACME-POL-0001"
    assert len(policy["policyItems"]) == 2
    item = policy["policyItems"][0]
    assert item["@type"] == "PolicyItem" and item["coverage"]["@type"] == "Coverage"
    # the two covers of one month share its line item's 250,000 (issue 26: the items add up)
    assert sum(i["totalSumInsured"]["amount"] for i in policy["policyItems"]) == policy["totalSumInsured"]["amount"]
    assert policy["totalSumInsured"]["amount"] == 250000 * len({catalogue[0]["start"], catalogue[1]["start"]})
    # one domain: the tenant surface lists and shows the same policy
    listed = (await tenant.get("/policies?size=100")).json()
    assert {p["id"]: p["status"] for p in listed["content"]}[policy_id] == "ACCEPTED"


async def test_policy_from_quote_and_reject(tenant, catalogue, customer):
    quote = await completed_quote(tenant, customer, [catalogue[0]["id"]])
    r = await tenant.post("/internal/policies", json={"@type": "NewPolicyFromQuote", "quoteId": quote["id"]})
    assert r.status_code == 201, r.text
    policy = r.json()
    # Its Location reads it back in the same shape; money is a JSON number on every reply.
    assert r.headers["location"] == f"/internal/policies/{policy['id']}"
    again = await tenant.get(r.headers["location"])
    assert again.status_code == 200 and again.json()["id"] == policy["id"]
    assert isinstance(policy["grossPremium"]["amount"], (int, float))
    assert policy["status"] == "CREATED" and policy["quoteId"] == quote["id"]
    assert float(policy["grossPremium"]["amount"]) == float(quote["grossPremium"]["amount"])
    assert (await tenant.get(f"/internal/quotes/{quote['id']}")).json()["state"] == "accepted"
    assert_problem(await tenant.post("/internal/policies", json={"@type": "NewPolicyFromQuote", "quoteId": quote["id"]}), 409)

    other = await completed_quote(tenant, customer, [catalogue[1]["id"]])
    r = await tenant.post(f"/internal/quotes/{other['id']}/reject")
    assert r.status_code == 200, r.text
    assert r.json()["state"] == "rejected"
    assert_problem(await tenant.post("/internal/policies", json={"@type": "NewPolicyFromQuote", "quoteId": other["id"]}), 409)
    assert_problem(await tenant.post(f"/internal/quotes/{other['id']}/accept", json={"externalPolicyId": "X"}), 409)


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda b, ids: b.update(coverageIds=[]), "coverageIds"),
        (lambda b, ids: b.update(coverageIds=[ids[0], ids[0]]), "coverageIds[1]"),
        (lambda b, ids: b.update(coverageIds=[str(uuid.uuid4())]), "coverageIds[0]"),
        (lambda b, ids: b.update(customerId=str(uuid.uuid4())), "customerId"),
        (lambda b, ids: b.update(sumInsured={"amount": "0", "currency": "INR"}), "sumInsured.amount"),
        (lambda b, ids: b.update(sumInsured={"amount": "100", "currency": "USD"}), "sumInsured.currency"),
        (lambda b, ids: b.update(sumInsured={"amount": -5, "currency": "INR"}), "sumInsured.amount"),
        (lambda b, ids: b.update(sumInsured={"amount": "100.123", "currency": "INR"}), "sumInsured.amount"),
    ],
)
async def test_bad_fast_quotes_are_refused_naming_the_field(tenant, catalogue, customer, mutate, field):
    ids = [c["id"] for c in catalogue]
    body = new_fast_quote(customer, ids)
    mutate(body, ids)
    problem = assert_problem(await tenant.post("/internal/fast-quotes", json=body), 400)
    assert field in str(problem), problem


async def test_a_customer_must_be_a_policy_holder(tenant, catalogue):
    r = await tenant.post("/internal/business-partners", json={**PARTNER, "role": "INTERMEDIARY"})
    problem = assert_problem(
        await tenant.post("/internal/fast-quotes", json=new_fast_quote(r.json()["id"], [catalogue[0]["id"]])), 400
    )
    assert "POLICY_HOLDER" in str(problem)


async def test_other_tenants_and_tenant_clients_see_nothing(tenant, other_tenant, make_tenant, catalogue, customer):
    quote = await completed_quote(tenant, customer, [catalogue[0]["id"]])
    assert_problem(await other_tenant.get(f"/internal/quotes/{quote['id']}"), 404)
    assert_problem(await other_tenant.post(f"/internal/quotes/{quote['id']}/reject"), 404)
    assert_problem(await other_tenant.get(f"/internal/files/{quote['quoteDocumentFileId']}"), 404)
    # a partner of another tenant is unknown here
    assert_problem(await other_tenant.post("/internal/fast-quotes", json=new_fast_quote(customer, [catalogue[0]["id"]])), 400)
    outsider = await make_tenant(internal=False)
    assert_problem(await outsider.get(f"/internal/quotes/{quote['id']}"), 403)
    # the tenant surface does not show internal quotes
    assert_problem(await tenant.get(f"/quotes/{quote['id']}"), 404)


async def test_every_fault_of_a_fast_quote_is_named_at_once(tenant, catalogue, customer):
    body = new_fast_quote("00000000-0000-0000-0000-000000000001", [catalogue[0]["id"], catalogue[0]["id"]], amount=0)
    problem = assert_problem(await tenant.post("/internal/fast-quotes", json=body), 400)
    assert {e["field"] for e in problem["errors"]} == {"coverageIds[1]", "sumInsured.amount", "customerId"}
