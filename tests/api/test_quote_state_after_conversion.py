"""The quote's workflow tells the truth within seconds of a conversion (issue 29): after
PATCH /quotes/{id}, ops searching Temporal by QuoteState find the quote ACCEPTED with its
PolicyId, and its workflow has ended, within a few seconds. Before, the quote's workflow was
not told: QuoteState said CREATED until the quote's deadline (up to 30 days) and its
workflow ran until then. Over real HTTP with a real Temporal dev server."""

from __future__ import annotations

import asyncio

from models.temporal.ids import quote_workflow_id
from models.temporal.search_attributes import POLICY_ID, QUOTE_STATE
from tests.api.test_quotes_policies import new_quote

SECONDS = 5.0  # "within seconds": the signal is sent in the conversion's own workflow task


async def test_after_a_conversion_the_quote_workflow_says_accepted_within_seconds(tenant, temporal_env):
    created = await tenant.post("/quotes", json=new_quote(externalRef=None))
    assert created.status_code == 200, created.text
    quote_id = created.json()["id"]
    handle = temporal_env.client.get_workflow_handle(quote_workflow_id(tenant.id, quote_id))
    assert (await handle.describe()).typed_search_attributes.get(QUOTE_STATE) == "CREATED"

    r = await tenant.patch(f"/quotes/{quote_id}")
    assert r.status_code == 200, r.text
    policy_id = r.json()["id"]
    loop = asyncio.get_running_loop()
    deadline = loop.time() + SECONDS
    while True:
        description = await handle.describe()
        attrs = description.typed_search_attributes
        if attrs.get(QUOTE_STATE) == "ACCEPTED" or loop.time() > deadline:
            break
        await asyncio.sleep(0.1)
    assert attrs.get(QUOTE_STATE) == "ACCEPTED", f"QuoteState {attrs.get(QUOTE_STATE)} {SECONDS} s after the conversion"
    assert attrs.get(POLICY_ID) == policy_id
    # the quote's workflow has nothing left to wait for: it ended, its deadline timer cancelled
    assert await asyncio.wait_for(handle.result(), SECONDS) == "ACCEPTED"
    assert (await handle.query("status"))["policyId"] == policy_id
    # and the search ops run finds it (visibility, not only the workflow's own attributes)
    query = f'WorkflowType = "QuoteWorkflow" AND QuoteState = "ACCEPTED" AND PolicyId = "{policy_id}"'
    for _ in range(int(SECONDS * 10)):
        found = [w.id async for w in temporal_env.client.list_workflows(query)]
        if found:
            break
        await asyncio.sleep(0.1)
    assert found == [handle.id]
