"""The OpenAPI 3.1 document lists every endpoint with its schemas and the bearer scheme."""

from __future__ import annotations

import re

from litestar.routes import HTTPRoute


async def test_openapi_lists_every_route_with_problem_responses(http, service):
    r = await http.get("/schema/openapi.json")
    assert r.status_code == 200
    doc = r.json()
    assert doc["openapi"].startswith("3.1")
    assert doc["components"]["securitySchemes"]["BearerToken"]["scheme"] == "bearer"
    from api.app import create_app

    app = create_app()
    documented = {path.rstrip("/") or "/" for path in doc["paths"]}
    for route in app.routes:
        if isinstance(route, HTTPRoute) and not route.path.startswith("/schema"):
            assert re.sub(r":\w+}", "}", route.path) in documented, route.path
    for path, operations in doc["paths"].items():
        for method, op in operations.items():
            assert op.get("operationId"), (path, method)
            if op.get("security") == [{}] or path.startswith("/auth") or path in ("/health", "/.well-known/jwks.json"):
                continue
            for code in ("400", "401", "403"):
                assert code in op["responses"], (path, method, code)
                assert "application/problem+json" in op["responses"][code]["content"], (path, method)


async def test_request_and_response_schemas_are_documented(http):
    doc = (await http.get("/schema/openapi.json")).json()
    create = doc["paths"]["/internal/business-partners"]["post"]
    assert "requestBody" in create
    assert "201" in create["responses"]
    schemas = doc["components"]["schemas"]
    assert any("NewBusinessPartner" in name for name in schemas)
    assert any(name.startswith("Problem") for name in schemas)


async def test_docs_page_is_served(http):
    r = await http.get("/schema")
    assert r.status_code == 200
    assert "text/html" in r.headers["content-type"]


async def test_every_authenticated_operation_declares_the_tenant_header(http):
    doc = (await http.get("/schema/openapi.json")).json()
    for path, operations in doc["paths"].items():
        if path.startswith("/auth") or path in ("/health", "/.well-known/jwks.json"):
            continue
        for method, op in operations.items():
            headers = {p["name"]: p for p in op.get("parameters", []) if p["in"] == "header"}
            assert "x-tenant-id" in headers, (path, method)
            assert headers["x-tenant-id"]["required"] is (not path.startswith("/travel")), (path, method)


async def test_the_docs_page_loads_nothing_from_the_network(http):
    """/schema renders offline: every script, style sheet and icon it loads is served here
    (it loaded @scalar/api-reference@latest from a CDN, so it was a blank page offline)."""
    import re

    for page in ("/schema", "/schema/swagger"):
        r = await http.get(page)
        assert r.status_code == 200 and "text/html" in r.headers["content-type"], page
        loaded = re.findall(r"<(?:script|link)[^>]*?(?:src|href)=[\"']([^\"']+)", r.text)
        assert len(loaded) >= 3, (page, loaded)
        for url in loaded:
            assert url.startswith("/schema/assets/"), (page, url)
            asset = await http.get(url)
            assert asset.status_code == 200 and len(asset.content) > 0, url
    bundle = await http.get("/schema/assets/swagger-ui-bundle.js")
    assert "javascript" in bundle.headers["content-type"] and len(bundle.content) > 500_000
