"""Ops find a tenant's workflows by its name, beside its id (issue 29): quotes, policies and
business partners carry the `TenantName` search attribute (Text: every custom Keyword the
dev server allows is taken), set when the API starts them. A query by the whole name or by
one of its words lists them. Before, only `TenantId` was searchable (the name was in the
summary alone, which visibility does not index). Over real HTTP with a real Temporal dev
server."""

from __future__ import annotations

import asyncio
import uuid

from models.temporal.ids import quote_workflow_id
from models.temporal.search_attributes import TENANT_NAME
from tests.api.test_business_partners import PARTNER
from tests.api.test_quotes_policies import new_quote


async def _listed(client, query: str, expected: set[str], seconds: float = 10.0) -> set[str]:
    found: set[str] = set()
    for _ in range(int(seconds * 10)):
        found = {w.id async for w in client.list_workflows(query)}
        if expected <= found:
            break
        await asyncio.sleep(0.1)
    return found


async def test_a_tenants_workflows_are_found_by_its_name(make_tenant, temporal_env):
    word = f"orchard{uuid.uuid4().hex[:8]}"
    name = f"Sunrise {word} Mutual"
    tenant = await make_tenant(internal=True, name=name)

    created = await tenant.post("/quotes", json=new_quote(externalRef=None), timeout=600)
    assert created.status_code == 200, created.text
    quote_id = created.json()["id"]
    converted = await tenant.patch(f"/quotes/{quote_id}")
    assert converted.status_code == 200, converted.text
    policy_id = converted.json()["id"]
    partner = await tenant.post("/internal/business-partners", json=PARTNER)
    assert partner.status_code == 201, partner.text

    quote = temporal_env.client.get_workflow_handle(quote_workflow_id(tenant.id, quote_id))
    assert (await quote.describe()).typed_search_attributes.get(TENANT_NAME) == name
    expected = {
        quote.id,
        f"policy:{tenant.id}:{policy_id}",
        f"business-partner:{tenant.id}:{partner.json()['id']}",
    }
    # one word of the name, as ops type it in the query box
    assert await _listed(temporal_env.client, f'TenantName = "{word}"', expected) == expected
    # the whole name, and with the workflow type
    assert await _listed(temporal_env.client, f'TenantName = "{name}"', expected) == expected
    policies = await _listed(
        temporal_env.client, f'WorkflowType = "PolicyWorkflow" AND TenantName = "{word}"', {f"policy:{tenant.id}:{policy_id}"}
    )
    assert policies == {f"policy:{tenant.id}:{policy_id}"}
    # another tenant's name finds none of them
    assert not await _listed(temporal_env.client, f'TenantName = "nosuch{word}"', set(), seconds=0.1)
