"""A client generated from /schema/openapi.json by openapi-python-client (a widely used Python
generator) has every operation, and the tenant's main flow runs through it (issue 29).

The header parameter `x-tenant-id` had a schema with no type: the generator skipped every
operation that declares it (62 of 67), so integrators got a client with the token endpoint
and little else. The generator is a dev dependency (pyproject.toml); nothing is downloaded."""

from __future__ import annotations

import asyncio
import datetime as dt
import importlib
import json
import os
import re
import sys
from pathlib import Path

import pytest

from api.openapi_examples import REQUEST_EXAMPLES
from tests.api.test_quotes_policies import new_quote

GENERATOR = Path(sys.executable).with_name("openapi-python-client")


def _module_name(operation_id: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", operation_id).lower()


@pytest.fixture(scope="module")
async def generated(http, tmp_path_factory):
    """The client package the generator makes of the served document (imported as `parametric_client`)."""
    doc = (await http.get("/schema/openapi.json")).json()
    out = tmp_path_factory.mktemp("generated")
    (out / "openapi.json").write_text(json.dumps(doc))
    proc = await asyncio.create_subprocess_exec(
        str(GENERATOR), "generate", "--path", str(out / "openapi.json"), "--output-path",
        str(out / "parametric_client"), "--meta", "none",
        env={**os.environ, "PATH": f"{GENERATOR.parent}:{os.environ.get('PATH', '')}"},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )
    text = (await asyncio.wait_for(proc.communicate(), 300))[0].decode()
    assert proc.returncode == 0, text
    sys.path.insert(0, str(out))
    try:
        yield doc, out / "parametric_client", text
    finally:
        sys.path.remove(str(out))
        for name in [n for n in sys.modules if n == "parametric_client" or n.startswith("parametric_client.")]:
            del sys.modules[name]


def test_every_operation_is_generated(generated):
    doc, package, output = generated
    operations = {op["operationId"] for ops in doc["paths"].values() for op in ops.values()}
    modules = {f.stem for f in package.glob("api/*/*.py") if f.name != "__init__.py"}
    missing = sorted(o for o in operations if _module_name(o) not in modules)
    assert not missing, f"{len(missing)} of {len(operations)} operations not generated: {missing}\n{output}"


def test_every_parameter_has_a_typed_schema(generated):
    doc, _, _ = generated
    untyped = [
        (path, method, p["name"])
        for path, ops in doc["paths"].items()
        for method, op in ops.items()
        for p in op.get("parameters", [])
        if not ({"type", "$ref", "oneOf", "anyOf"} & set(p.get("schema", {})))
    ]
    assert untyped == []


async def test_the_main_flow_runs_through_the_generated_client(generated, tenant, service):
    """The README's main flow with the generated client's functions and models: token (the form
    endpoint, by hand), quote, conversion, activation, a fast quote, a travel stay."""
    client_module = importlib.import_module("parametric_client.client")
    quotes = importlib.import_module("parametric_client.api.tenant_surface.create_quote")
    convert = importlib.import_module("parametric_client.api.tenant_surface.convert_quote")
    activate = importlib.import_module("parametric_client.api.tenant_surface.activate_policy")
    index_definitions = importlib.import_module("parametric_client.api.tenant_surface.list_index_definitions")
    NewQuote = importlib.import_module("parametric_client.models.new_quote").NewQuote

    client = client_module.AuthenticatedClient(base_url=service.base_url, token=await tenant.token(), timeout=600)
    async with client as c:
        listed = await index_definitions.asyncio_detailed(client=c, x_tenant_id=tenant.id)
        assert listed.status_code == 200, listed.content
        created = await quotes.asyncio_detailed(client=c, body=NewQuote.from_dict(new_quote()), x_tenant_id=tenant.id)
        assert created.status_code == 200, created.content
        quote = created.parsed
        assert type(quote).__name__ == "QuoteOut" and len(quote.line_items) == 12
        assert isinstance(quote.total_sum_insured.amount, (int, float))  # a number, as documented
        policy = await convert.asyncio_detailed(quote.id, client=c, x_tenant_id=tenant.id)
        assert policy.status_code == 200, policy.content
        assert policy.parsed.status == "CREATED"
        active = await activate.asyncio_detailed(policy.parsed.id, client=c, x_tenant_id=tenant.id)
        assert active.status_code == 200, active.content
        assert active.parsed.status == "ACCEPTED"

        # a fast quote: a policyholder partner, two catalogue covers of one month, the quote's job
        partners = importlib.import_module("parametric_client.api.internal_surface.create_business_partner")
        coverages = importlib.import_module("parametric_client.api.internal_surface.list_coverages")
        fast_quotes = importlib.import_module("parametric_client.api.internal_surface.create_fast_quote")
        NewBusinessPartner = importlib.import_module("parametric_client.models.new_business_partner").NewBusinessPartner
        NewFastQuote = importlib.import_module("parametric_client.models.new_fast_quote").NewFastQuote
        partner = await partners.asyncio_detailed(
            client=c, body=NewBusinessPartner.from_dict(REQUEST_EXAMPLES["NewBusinessPartner"]["a policyholder"]),
            x_tenant_id=tenant.id)
        assert partner.status_code == 201, partner.content
        month = new_quote()["riskPeriodFrom"]
        listed = await coverages.asyncio_detailed(client=c, target_name="560001", from_=month, to=month[:8] + "31",
                                                  size=100, x_tenant_id=tenant.id)
        assert listed.status_code == 200, listed.content
        ids = [x["id"] for x in json.loads(listed.content)["content"] if x["status"] == "ACTIVE"][:2]
        fast = await fast_quotes.asyncio_detailed(client=c, x_tenant_id=tenant.id, body=NewFastQuote.from_dict({
            "@type": "NewFastQuote", "name": "generated client", "customerId": str(partner.parsed.id), "coverageIds": ids,
            "sumInsured": {"amount": 250000, "currency": "INR"}}))
        assert fast.status_code == 201, fast.content
        assert fast.parsed.state == "created"

    # a travel stay, with the tenant's API key
    stays = importlib.import_module("parametric_client.api.travel_sample_surface.travel_list_coverages")
    stay_quotes = importlib.import_module("parametric_client.api.travel_sample_surface.travel_create_quote")
    decide = importlib.import_module("parametric_client.api.travel_sample_surface.travel_decide_quote")
    TravelQuoteRequest = importlib.import_module("parametric_client.models.travel_quote_request").TravelQuoteRequest
    TravelPolicyRequest = importlib.import_module("parametric_client.models.travel_policy_request").TravelPolicyRequest
    check_in = dt.date.today() + dt.timedelta(days=20)
    travel = client_module.AuthenticatedClient(base_url=service.base_url, token=tenant.credentials["api_key"], timeout=600)
    async with travel as t:
        offered = await stays.asyncio_detailed(tenant.id, client=t, lat="13.0827", long="80.2707",
                                               time_range=f"{check_in}/{check_in + dt.timedelta(days=3)}",
                                               x_tenant_id=tenant.id)
        assert offered.status_code == 200, offered.content
        cover = offered.parsed.coverages[0].id
        quoted = await stay_quotes.asyncio_detailed(tenant.id, client=t, x_tenant_id=tenant.id, body=TravelQuoteRequest.from_dict(
            {"coverage_id": cover, "max_payout": 1500, "qty": 3, "technical_client_ref": "generated"}))
        assert quoted.status_code == 200, quoted.content
        accepted = await decide.asyncio_detailed(tenant.id, client=t, x_tenant_id=tenant.id, body=TravelPolicyRequest.from_dict(
            {"quote_id": quoted.parsed.quote_id, "acceptance": True}))
        assert accepted.status_code == 200, accepted.content
        assert accepted.parsed.policy_id
