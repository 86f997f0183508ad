"""Public paths end at a path segment (review of issue 24): `/schema` is Litestar's API
documents and public, but a route of our own at `/schema-x` is not under it. The old
prefix test (`startswith("/schema")`, and the middleware's `^/schema`) had no boundary: a
`/schema-x` controller declaring nothing counted as public, and every `/schema-x` path
skipped authentication. Real HTTP on apps served with the real middleware and guard."""

from __future__ import annotations

import httpx
import pytest
from litestar import Controller, get

import api.app
from api.auth.roles import Caller, callers, under_public_prefix
from tests.conftest import Server, assert_problem, free_port


class SchemaLookalike(Controller):
    """Declares nothing: open to no one, and the app refuses to start with it."""

    path = "/schema-x"

    @get("/", sync_to_thread=False)
    def lookalike(self) -> dict:
        return {"secret": "for nobody"}


class TenantSchemaLookalike(Controller):
    """A tenant route whose path happens to start with /schema."""

    path = "/schema-reports"
    opt = callers(Caller.TENANT)

    @get("/", sync_to_thread=False)
    def reports(self) -> dict:
        return {"reports": []}


def test_the_public_prefix_is_a_whole_path_segment():
    assert under_public_prefix("/schema") and under_public_prefix("/schema/openapi.json")
    assert not under_public_prefix("/schema-x") and not under_public_prefix("/schemas")


def test_an_app_with_a_schema_lookalike_declaring_nothing_refuses_to_start(monkeypatch, settings):
    monkeypatch.setattr(api.app, "ROUTES", [*api.app.ROUTES, SchemaLookalike])
    with pytest.raises(RuntimeError, match="routes that declare no callers"):
        api.app.create_app(settings)


async def test_a_schema_lookalike_route_is_authenticated_like_any_other(monkeypatch, settings, database, temporal_env, tenant):
    monkeypatch.setattr(api.app, "ROUTES", [*api.app.ROUTES, TenantSchemaLookalike])
    app = api.app.create_app(settings, temporal_env.client)
    async with Server(app, free_port()) as served, httpx.AsyncClient(base_url=served.base_url) as client:
        # No credential: the middleware asks for one (it used to skip the path).
        r = await client.get("/schema-reports", headers={"x-tenant-id": tenant.id})
        assert_problem(r, 401)
        # A tenant's token: authenticated, so the route's declaration lets it in (it was a 403:
        # the middleware had skipped the path, so the guard saw nobody).
        r = await client.get("/schema-reports", headers=await tenant.headers())
        assert r.status_code == 200 and r.json() == {"reports": []}, r.text
        assert (await client.get("/schema/openapi.json")).status_code == 200  # the real one stays public
