"""A client generated from /schema/openapi.json by openapi-python-client (a widely used Python
generator) has every operation, and the tenant's main flow runs through it (issue 29).

The header parameter `x-tenant-id` had a schema with no type: the generator skipped every
operation that declares it (62 of 67), so integrators got a client with the token endpoint
and little else. The generator is a dev dependency (pyproject.toml); nothing is downloaded."""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import re
import sys
from pathlib import Path

import pytest

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
    """Token (the form endpoint, by hand), then quote, conversion and activation with the
    generated client's functions and models."""
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
