"""HTTP → Temporal → activity → database, and isolation between tenants."""

from __future__ import annotations

import uuid

from models.temporal.ids import business_partner_workflow_id
from tests.conftest import assert_problem

PARTNER = {
    "@type": "NewBusinessPartner",
    "name": "Acme Agri Producers",
    "role": "POLICY_HOLDER",
    "contactName": "Asha Rao",
    "contactEmailAddress": "asha@acme.example",
    "contactPhoneNumber": "+91 80 1234 5678",
    "address": {
        "@type": "NewAddress",
        "countryCode": "IN",
        "houseNumber": "12",
        "street": "MG Road",
        "country": "India",
        "county": "",
        "postcode": "560001",
        "state": "Karnataka",
        "district": "Bengaluru Urban",
        "city": "Bengaluru",
        "stateCode": "KA",
    },
    "taxStatus": "REGISTERED",
}


async def test_create_runs_a_workflow_that_writes_the_partner(tenant, temporal_env):
    r = await tenant.post("/internal/business-partners", json=PARTNER)
    assert r.status_code == 201, r.text
    body = r.json()
    partner_id = body["id"]
    assert r.headers["location"] == f"/internal/business-partners/{partner_id}"
    assert body["@type"] == "BusinessPartner"
    assert body["name"] == PARTNER["name"] and body["role"] == "POLICY_HOLDER"
    assert body["address"]["city"] == "Bengaluru" and body["address"]["stateCode"] == "KA"

    # The workflow ran on Temporal, readable id, tenant search attribute for ops.
    handle = temporal_env.client.get_workflow_handle(business_partner_workflow_id(tenant.id, partner_id))
    description = await handle.describe()
    assert description.workflow_type == "BusinessPartnerWorkflow"
    assert description.status.name == "COMPLETED"
    assert description.typed_search_attributes.get(
        __import__("models.temporal.search_attributes", fromlist=["TENANT_ID"]).TENANT_ID
    ) == tenant.id

    # The activity wrote it to the database: a GET reads it back.
    again = await tenant.get(f"/internal/business-partners/{partner_id}")
    assert again.status_code == 200
    assert again.json() == body


async def test_workflows_are_listed_by_tenant_in_visibility(tenant, other_tenant, temporal_env):
    r = await other_tenant.post("/internal/business-partners", json=PARTNER)
    assert r.status_code == 201
    partner_id = r.json()["id"]
    import asyncio

    ids: list[str] = []
    for _ in range(50):  # visibility is eventually consistent
        ids = [w.id async for w in temporal_env.client.list_workflows(f'TenantId="{other_tenant.id}"')]
        if ids:
            break
        await asyncio.sleep(0.2)
    assert business_partner_workflow_id(other_tenant.id, partner_id) in ids
    assert all(other_tenant.id in wid for wid in ids)


async def test_another_tenants_partner_is_404(tenant, other_tenant):
    r = await tenant.post("/internal/business-partners", json=PARTNER)
    partner_id = r.json()["id"]
    assert_problem(await other_tenant.get(f"/internal/business-partners/{partner_id}"), 404)
    assert_problem(await tenant.get(f"/internal/business-partners/{uuid.uuid4()}"), 404)


async def test_type_tag_is_optional_but_checked(tenant):
    body = {k: v for k, v in PARTNER.items() if k != "@type"}
    assert (await tenant.post("/internal/business-partners", json=body)).status_code == 201
    wrong = {**PARTNER, "@type": "NewFastQuote"}
    assert_problem(await tenant.post("/internal/business-partners", json=wrong), 400)


async def test_created_at_uses_the_spec_date_time_form(tenant):
    body = (await tenant.post("/internal/business-partners", json=PARTNER)).json()
    import re

    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00", body["createdAt"]), body["createdAt"]


async def test_idempotency_key_makes_creation_safe_to_retry(tenant):
    headers = {"Idempotency-Key": "partner-onboarding-77"}
    first = await tenant.post("/internal/business-partners", json=PARTNER, headers=headers)
    again = await tenant.post("/internal/business-partners", json=PARTNER, headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.json()["id"] == first.json()["id"]
    other = await tenant.post("/internal/business-partners", json={**PARTNER, "name": "Other"}, headers=headers)
    assert_problem(other, 422)
