"""Who may call what, from the app's own route table (issue 24; docs/roles.md).

Every route handler declares its callers (`api/auth/roles.py`); this test walks the routes
the app really serves, so a route added without a declaration fails here. It then calls
every route as every kind of principal: a tenant's client, a tenant's internal client, a
staff member of each role, and (for routes taking an object of a tenant) another tenant
holding the first tenant's ids. A caller the route does not declare gets 403; one it does
is never answered 401, 403 or 5xx; another tenant's id is a 404."""

from __future__ import annotations

import datetime as dt
import re
import uuid

import pytest

from api.app import create_app
from api.auth.roles import Caller, declared, undeclared
from models.clock import utcnow
from models.db.webhooks import new_secret
from models.db.tables import (
    BusinessPartner,
    ParametricEvent,
    PayoutHold,
    Policy,
    Quote,
    StoredFile,
    WebhookEndpoint,
)

PRINCIPALS = ("tenant", "tenant-internal", "data", "actuary", "operations")
KIND = {
    "tenant": {Caller.TENANT},
    "tenant-internal": {Caller.TENANT, Caller.TENANT_INTERNAL},
    "data": {Caller.DATA},
    "actuary": {Caller.ACTUARY},
    "operations": {Caller.OPERATIONS},
}
PARAM = re.compile(r"\{([a-z_]+):([a-z]+)\}")


def _routes(app) -> list[tuple[str, str, frozenset]]:
    """(method, path, callers) of every route the app serves but Litestar's own (OPTIONS,
    the API docs)."""
    out = []
    for route in app.routes:
        for handler in getattr(route, "route_handlers", ()):
            allowed = declared(handler)
            methods = sorted(m for m in handler.http_methods if m != "OPTIONS")
            if not methods or Caller.PUBLIC in allowed:
                continue
            out.extend((m, route.path, allowed) for m in methods)
    return sorted(set(out))


@pytest.fixture(scope="module")
def app(settings):
    return create_app(settings)


def test_every_route_declares_its_callers(app):
    handlers = [h for route in app.routes for h in getattr(route, "route_handlers", ())]
    assert undeclared(handlers) == []
    # The check can fail: a handler without a declaration is named.
    from litestar import get

    @get("/nobody-said")
    async def forgotten() -> None: ...

    assert undeclared([forgotten]) == ["['GET', 'HEAD'] {'/nobody-said'}"] or undeclared([forgotten]) == [
        "['GET'] {'/nobody-said'}"
    ]
    # ... and so does the app: it refuses to start with one.
    from litestar import Controller

    class Forgotten(Controller):
        path = "/forgotten"

        @get()
        async def nothing(self) -> None: ...

    import api.app as app_module

    with pytest.raises(RuntimeError, match="declare no callers"):
        original = list(app_module.ROUTES)
        app_module.ROUTES.append(Forgotten)
        try:
            create_app()
        finally:
            app_module.ROUTES[:] = original


def test_the_matrix_holds_the_platform_powers_for_staff(app):
    """The routes that move money or prices, or read across tenants, are never a tenant's."""
    table = {(m, p): a for m, p, a in _routes(app)}
    assert table[("POST", "/internal/observations")] == {Caller.DATA}
    assert table[("POST", "/internal/coverages/{coverage_id:uuid}/pricing-runs")] == {Caller.ACTUARY}
    assert table[("POST", "/internal/coverages/{coverage_id:uuid}/pricing-runs/{version:int}/publish")] == {Caller.ACTUARY}
    for (method, path), allowed in table.items():
        if method != "GET" and allowed & {Caller.DATA, Caller.ACTUARY, Caller.OPERATIONS}:
            assert not allowed & {Caller.TENANT, Caller.TENANT_INTERNAL, Caller.TRAVEL}, (method, path)


@pytest.fixture(scope="module")
async def principals(make_tenant, make_staff) -> dict:
    return {
        "tenant": await make_tenant(internal=False),
        "tenant-internal": await make_tenant(internal=True),
        "data": await make_staff("data"),
        "actuary": await make_staff("actuary"),
        "operations": await make_staff("operations"),
    }


def _filled(path: str, ids: dict[str, str], tenant_id: str) -> str:
    def value(match: re.Match) -> str:
        name, kind = match.groups()
        if name == "tenant_id":
            return tenant_id
        if name in ids:
            return ids[name]
        return "1" if kind == "int" else str(uuid.uuid4())

    return PARAM.sub(value, path)


# Bodies that pass validation, so a stranger's call reaches the object's look-up.
BODIES = {"/internal/quotes/{quote_id:uuid}/accept": {"externalPolicyId": "ext-1"}}


async def _call(principal, method: str, path: str, route: str = ""):
    kwargs = {"json": BODIES.get(route, {})} if method in ("POST", "PUT", "PATCH") else {}
    return await principal._http.request(method, path, headers=await principal.headers(), timeout=120, **kwargs)


async def test_every_route_as_every_kind_of_principal(app, principals, service):
    checked = 0
    for method, path, allowed in _routes(app):
        travel = path.startswith("/travel/")
        for name in PRINCIPALS:
            principal = principals[name]
            url = _filled(path, {}, principal.id)
            if "from=" not in url and path == "/internal/coverages":
                url += "?size=1"
            r = await _call(principal, method, url)
            kinds = {Caller.TRAVEL} if travel and name.startswith("tenant") else KIND[name]
            if kinds & allowed:
                assert r.status_code not in (401, 403) and r.status_code < 500, (name, method, url, r.status_code, r.text)
            elif travel:  # a staff token is no API key of the path's tenant
                assert r.status_code in (401, 403), (name, method, url, r.status_code, r.text)
            else:
                assert r.status_code == 403, (name, method, url, r.status_code, r.text)
                assert r.headers["content-type"].startswith("application/problem+json")
            checked += 1
    assert checked >= 5 * 45  # 49 routes when this was written


@pytest.fixture(scope="module")
async def owned_ids(principals) -> dict[str, str]:
    """One object of each tenant-owned kind, belonging to the internal tenant (written to the
    database directly: the test is about who may read and change them, not how they came)."""
    owner = uuid.UUID(principals["tenant-internal"].id)
    now = utcnow()
    quote_id, policy_id, event_id, endpoint_id, partner_id, file_id = (uuid.uuid4() for _ in range(6))
    await Quote.insert(Quote(id=quote_id, tenant_id=owner, kind="TENANT", name="q", status="CREATED", state="completed",
                             currency="INR", created_at=now, updated_at=now))
    await Policy.insert(Policy(id=policy_id, tenant_id=owner, quote_id=quote_id, kind="TENANT", name="p",
                               status="ACTIVE", inception_date=dt.date(2027, 1, 1), expiry_date=dt.date(2027, 1, 31),
                               currency="INR", total_sum_insured_minor=100, gross_premium_minor=10,
                               created_at=now, updated_at=now))
    await ParametricEvent.insert(ParametricEvent(
        id=event_id, tenant_id=owner, policy_id=policy_id, coverage_id=uuid.uuid4(), settlement_key=f"route-access:{event_id}",
        event_type="EXCESS_RAINFALL", validated_day=dt.date.today(), index_value=1, currency="INR", payout_minor=0,
        created_at=now))
    await WebhookEndpoint.insert(WebhookEndpoint(id=endpoint_id, tenant_id=owner, url="https://example.com/hook",
                                                 event_types=["*"], secret=new_secret(), created_at=now, updated_at=now))
    await BusinessPartner.insert(BusinessPartner(id=partner_id, tenant_id=owner, name="n", role="POLICY_HOLDER",
                                                 contact_name="c", contact_email="c@example.com", contact_phone="1",
                                                 address={}, tax_status="REGISTERED", created_at=now))
    await StoredFile.insert(StoredFile(id=file_id, tenant_id=owner, kind="policy-schedule", filename="f.pdf",
                                       media_type="application/pdf", size_bytes=3, sha256="0" * 64, content=b"pdf",
                                       created_at=now))
    hold_id = uuid.uuid4()
    await PayoutHold.insert(PayoutHold(id=hold_id, tenant_id=owner, policy_id=policy_id, state="HELD", reason="r",
                                       held_by="staff:olga", held_at=now))
    return {"hold_id": str(hold_id), "quote_id": str(quote_id), "policy_id": str(policy_id), "event_id": str(event_id),
            "endpoint_id": str(endpoint_id), "partner_id": str(partner_id), "file_id": str(file_id)}


async def test_another_tenants_ids_answer_404_on_every_route(app, principals, owned_ids, make_tenant, service):
    """Tenant-owned objects (quotes, policies, events, webhook endpoints, partners, files)
    of one tenant, asked for by another tenant's internal client: 404 everywhere."""
    stranger = await make_tenant(internal=True)
    checked = 0
    for method, path, allowed in _routes(app):
        names = {m.group(1) for m in PARAM.finditer(path)}
        if not names & owned_ids.keys() or path.startswith("/travel/"):
            continue
        if not allowed & {Caller.TENANT, Caller.TENANT_INTERNAL}:
            continue
        url = _filled(path, owned_ids, stranger.id)
        r = await _call(stranger, method, url, path)
        assert r.status_code == 404, (method, url, r.status_code, r.text)
        checked += 1
    assert checked >= 20
    # The ids are real: their owner reads them.
    owner = principals["tenant-internal"]
    for path in ("/policies/{policy_id}/events", "/internal/webhook-endpoints/{endpoint_id}",
                 "/internal/business-partners/{partner_id}", "/files/{file_id}", "/quotes/{quote_id}",
                 "/internal/payout-holds/{hold_id}"):
        mine = await owner.get(path.format(**owned_ids))
        assert mine.status_code == 200, (path, mine.text)


def test_the_role_matrix_in_the_docs_is_the_apps(app):
    """docs/roles.md shows who may call what; it is the app's own table, regenerated with
    `python -m api.auth.roles` when a route changes."""
    from pathlib import Path

    from api.auth.roles import route_matrix

    text = (Path(__file__).resolve().parents[2] / "docs" / "roles.md").read_text()
    shown = text.split("<!-- matrix:start -->\n", 1)[1].split("\n<!-- matrix:end -->", 1)[0]
    assert shown == route_matrix(app), "docs/roles.md's matrix is stale: run .venv/bin/python -m api.auth.roles"


def test_the_matrix_says_what_the_guard_lets_each_principal_do(app):
    """Tried as a new user (issue 33, "docs/roles.md shows the travel surface rows"): the
    travel rows showed the travel key alone, but a token of the path's tenant (a tenant or
    internal client's) is served there (docs/travel.md; the guard counts any tenant principal
    on `/travel/` as the travel caller), so `GET /travel/{tenant_id}/coverages` with a tenant
    token answered 200 where the matrix said nothing. Every ✓ of the matrix is the guard's
    answer for that kind of principal on that path, and every blank its refusal."""
    from api.auth.roles import MATRIX_COLUMNS, caller_kinds, route_matrix
    from api.auth.tokens import Principal

    principals = {
        Caller.TENANT: Principal("t", "c", internal=False, via="token"),
        Caller.TENANT_INTERNAL: Principal("t", "c", internal=True, via="token"),
        Caller.TRAVEL: Principal("t", "c", internal=False, via="api_key"),
        Caller.DATA: Principal("p", "s", internal=False, via="token", roles=frozenset({"data"})),
        Caller.ACTUARY: Principal("p", "s", internal=False, via="token", roles=frozenset({"actuary"})),
        Caller.OPERATIONS: Principal("p", "s", internal=False, via="token", roles=frozenset({"operations"})),
    }
    allowed = {}
    for route in app.routes:
        for handler in getattr(route, "route_handlers", ()):
            for method in handler.http_methods:
                allowed[(method, re.sub(r"\{([a-z_]+):[a-z]+\}", r"{\1}", route.path))] = declared(handler)
    for line in route_matrix(app).splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        method, path = cells[0].strip("`").split(" ", 1)
        travel = path.startswith("/travel/")
        for column, cell in zip(MATRIX_COLUMNS, cells[1:]):
            if column is Caller.TRAVEL and not travel:
                continue  # an API key authenticates on the travel surface only
            served = bool(caller_kinds(principals[column], travel) & allowed[(method, path)])
            assert (cell == "✓") == served, (method, path, column.value, cell)
