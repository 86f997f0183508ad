"""The authentication matrix, through real HTTP."""

from __future__ import annotations

import base64
import time
import uuid

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from tests.conftest import assert_problem

TOKEN_PATH = "/auth/{}/oauth2/v2.0/token"


def form(creds: dict, **overrides) -> dict:
    body = {
        "client_id": creds["client_id"],
        "client_secret": creds["client_secret"],
        "scope": creds["scope"],
        "grant_type": "client_credentials",
    }
    body.update(overrides)
    return {k: v for k, v in body.items() if v is not None}


async def test_token_endpoint_issues_a_verifiable_bearer_token(http, tenant, settings):
    r = await http.post(TOKEN_PATH.format(tenant.id), data=form(tenant.credentials))
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["token_type"] == "Bearer"
    assert body["expires_in"] == 3600
    assert r.headers["cache-control"] == "no-store"
    jwks = (await http.get(f"/auth/{tenant.id}/discovery/v2.0/keys")).json()
    header = jwt.get_unverified_header(body["access_token"])
    assert header["alg"] == "ES256" and header["kid"] in {k["kid"] for k in jwks["keys"]}
    key = jwt.PyJWK(next(k for k in jwks["keys"] if k["kid"] == header["kid"])).key
    claims = jwt.decode(body["access_token"], key, algorithms=["ES256"], audience="api://parametric-insurance")
    assert claims["tid"] == tenant.id
    assert claims["iss"] == f"{settings.public_base_url}/auth/{tenant.id}/v2.0"
    assert claims["sub"] == tenant.credentials["client_id"]
    assert claims["exp"] - claims["iat"] == 3600


async def test_openid_configuration_points_to_the_token_endpoint(http, tenant, settings):
    r = await http.get(f"/auth/{tenant.id}/v2.0/.well-known/openid-configuration")
    assert r.status_code == 200
    assert r.json()["token_endpoint"].endswith(TOKEN_PATH.format(tenant.id))
    assert r.json()["issuer"] == settings.issuer_for(tenant.id)


async def test_basic_client_authentication_is_accepted(http, tenant):
    c = tenant.credentials
    basic = base64.b64encode(f"{c['client_id']}:{c['client_secret']}".encode()).decode()
    r = await http.post(
        TOKEN_PATH.format(tenant.id),
        data={"scope": c["scope"], "grant_type": "client_credentials"},
        headers={"Authorization": f"Basic {basic}"},
    )
    assert r.status_code == 200, r.text


@pytest.mark.parametrize(
    ("overrides", "status", "error"),
    [
        ({"client_secret": "wrong"}, 401, "invalid_client"),
        ({"client_id": str(uuid.uuid4())}, 401, "invalid_client"),
        ({"client_id": "not-a-uuid"}, 401, "invalid_client"),
        ({"grant_type": "password"}, 400, "unsupported_grant_type"),
        ({"grant_type": "authorization_code"}, 400, "unsupported_grant_type"),
        ({"scope": "api://someone-else/.default"}, 400, "invalid_scope"),
        ({"scope": "api://parametric-insurance/.default openid"}, 400, "invalid_scope"),
        ({"scope": None}, 400, "invalid_request"),
        ({"client_secret": None}, 400, "invalid_request"),
        ({"grant_type": None}, 400, "invalid_request"),
    ],
)
async def test_token_endpoint_errors_follow_rfc6749(http, tenant, overrides, status, error):
    r = await http.post(TOKEN_PATH.format(tenant.id), data=form(tenant.credentials, **overrides))
    assert r.status_code == status, r.text
    assert r.json()["error"] == error
    assert "access_token" not in r.json()


async def test_token_endpoint_refuses_json_bodies(http, tenant):
    r = await http.post(TOKEN_PATH.format(tenant.id), json=form(tenant.credentials))
    assert r.status_code == 400
    assert r.json()["error"] == "invalid_request"


async def test_a_client_cannot_get_a_token_for_another_tenant(http, tenant, other_tenant):
    r = await http.post(TOKEN_PATH.format(other_tenant.id), data=form(tenant.credentials))
    assert r.status_code == 401
    assert r.json()["error"] == "invalid_client"


async def test_valid_token_and_header_reach_the_api(tenant):
    r = await tenant.get("/index-definitions")
    assert r.status_code == 200, r.text


async def test_missing_tenant_header_is_400(http, tenant):
    r = await http.get("/index-definitions", headers={"Authorization": f"Bearer {await tenant.token()}"})
    body = assert_problem(r, 400)
    assert "x-tenant-id" in body["detail"]


async def test_no_token_is_401_with_challenge(http, tenant):
    r = await http.get("/index-definitions", headers={"x-tenant-id": tenant.id})
    assert_problem(r, 401)
    assert r.headers["www-authenticate"].startswith("Bearer")


async def test_malformed_token_is_401(http, tenant):
    r = await http.get("/index-definitions", headers={"x-tenant-id": tenant.id, "Authorization": "Bearer abc.def.ghi"})
    assert_problem(r, 401)
    assert 'error="invalid_token"' in r.headers["www-authenticate"]


async def test_non_bearer_scheme_is_401(http, tenant):
    r = await http.get("/index-definitions", headers={"x-tenant-id": tenant.id, "Authorization": "Basic Zm9vOmJhcg=="})
    assert_problem(r, 401)


def _forge(settings, tenant_id: str, key=None, kid: str | None = None, **claims) -> str:
    """A token signed with a key the service does not know (or the given one)."""
    now = int(time.time())
    body = {
        "iss": settings.issuer_for(tenant_id),
        "aud": settings.audience,
        "sub": "forged",
        "tid": tenant_id,
        "roles": ["internal"],
        "iat": now,
        "nbf": now,
        "exp": now + 600,
    }
    body.update(claims)
    key = key or ec.generate_private_key(ec.SECP256R1())
    return jwt.encode(body, key, algorithm="ES256", headers={"kid": kid or "unknown"})


async def test_bad_signature_is_401(http, tenant, settings, service):
    real_kid = (await _signing(settings)).kid
    token = _forge(settings, tenant.id, kid=real_kid)  # right kid, wrong key
    r = await http.get("/index-definitions", headers={"x-tenant-id": tenant.id, "Authorization": f"Bearer {token}"})
    assert_problem(r, 401)


async def _signing(settings):
    """The service's current signing key, as every API process reads it (the database)."""
    from api.auth.tokens import TokenService

    return await TokenService(settings).ring()


async def _own(settings, tenant_id: str, **claims) -> str:
    keys = await _signing(settings)
    return _forge(settings, tenant_id, key=keys.private_key, kid=keys.kid, **claims)


async def test_properly_signed_token_is_accepted(http, tenant, settings):
    # Guards the next tests: they fail for the claim they change, not for the signing.
    r = await http.get(
        "/index-definitions", headers={"x-tenant-id": tenant.id, "Authorization": f"Bearer {await _own(settings, tenant.id)}"}
    )
    assert r.status_code == 200, r.text


@pytest.mark.parametrize(
    "claims",
    [
        {"exp": int(time.time()) - 120, "iat": int(time.time()) - 3720, "nbf": int(time.time()) - 3720},
        {"nbf": int(time.time()) + 600},
        {"aud": "api://another-api"},
        {"iss": "https://evil.example/v2.0"},
        {"tid": None},
    ],
    ids=["expired", "not-yet-valid", "wrong-audience", "wrong-issuer", "no-tenant-claim"],
)
async def test_token_claims_are_checked(http, tenant, settings, claims):
    claims = {k: v for k, v in claims.items()}
    token = await _own(settings, tenant.id, **claims)
    if claims.get("tid", "") is None:
        payload = jwt.decode(token, options={"verify_signature": False})
        payload.pop("tid")
        keys = await _signing(settings)
        token = jwt.encode(payload, keys.private_key, algorithm="ES256", headers={"kid": keys.kid})
    r = await http.get("/index-definitions", headers={"x-tenant-id": tenant.id, "Authorization": f"Bearer {token}"})
    assert_problem(r, 401)


async def test_token_of_another_tenant_is_403(http, tenant, other_tenant):
    r = await http.get(
        "/index-definitions", headers={"x-tenant-id": other_tenant.id, "Authorization": f"Bearer {await tenant.token()}"}
    )
    assert_problem(r, 403)


async def test_issuer_of_another_tenant_is_401(http, tenant, other_tenant, settings):
    # A token claiming tenant A but issued for tenant B's issuer is not trusted.
    token = await _own(settings, tenant.id, iss=settings.issuer_for(other_tenant.id))
    r = await http.get("/index-definitions", headers={"x-tenant-id": tenant.id, "Authorization": f"Bearer {token}"})
    assert_problem(r, 401)


async def test_internal_surface_needs_an_internal_client(make_tenant):
    plain = await make_tenant(internal=False)
    r = await plain.get("/internal/business-partners/" + str(uuid.uuid4()))
    assert_problem(r, 403)
    # ... while the tenant surface is open to it.
    assert (await plain.get("/index-definitions")).status_code == 200


async def test_public_endpoints_need_no_credentials(http):
    assert (await http.get("/health")).status_code == 200
    assert (await http.get("/schema/openapi.json")).status_code == 200
    assert (await http.get("/.well-known/jwks.json")).status_code == 200


async def test_discovery_documents_exist_only_for_real_tenants(http, tenant):
    assert (await http.get(f"/auth/{tenant.id}/discovery/v2.0/keys")).status_code == 200
    for bogus in ("not-a-tenant", "%3Cscript%3E", "7d0a8f0e-0000-4000-8000-000000000000"):
        assert_problem(await http.get(f"/auth/{bogus}/v2.0/.well-known/openid-configuration"), 404)
        assert_problem(await http.get(f"/auth/{bogus}/discovery/v2.0/keys"), 404)


async def test_rate_limits_answer_429_with_retry_after(settings, database, temporal_env, tenant):
    """Per-client API limit and per-address token limit, on an app with low limits."""
    from dataclasses import replace

    import httpx

    from api.app import create_app
    from tests.conftest import Server, free_port

    strict = replace(settings, rate_limit_per_second=1, rate_limit_burst=3, token_rate_per_second=1,
                     rate_limit_scope=uuid.uuid4().hex)  # budgets of its own (api/ratelimit.py)
    async with Server(create_app(strict, temporal_env.client), free_port()) as api:
        async with httpx.AsyncClient(base_url=api.base_url) as client:
            headers = await tenant.headers()
            codes = [(await client.get("/index-definitions", headers=headers)).status_code for _ in range(6)]
            assert codes[:3] == [200, 200, 200] and 429 in codes[3:], codes
            limited = await client.get("/index-definitions", headers=headers)
            assert_problem(limited, 429)
            assert int(limited.headers["retry-after"]) >= 1
            token_codes = [
                (await client.post(TOKEN_PATH.format(tenant.id), data=form(tenant.credentials))).status_code
                for _ in range(6)
            ]
            assert 429 in token_codes and token_codes[0] == 200, token_codes
