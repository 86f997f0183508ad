"""By configuration the API trusts an external issuer (Entra-ID style JWKS URL) instead."""

from __future__ import annotations

import time
from dataclasses import replace

import httpx
import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from litestar import Litestar, get

from tests.conftest import Server, assert_problem, free_port

EXTERNAL_ISSUER = "https://login.example.com/{tenant_id}/v2.0"


def _jwk(key: rsa.RSAPrivateKey, kid: str) -> dict:
    jwk = jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key(), as_dict=True)
    return {**jwk, "kid": kid, "use": "sig", "alg": "RS256"}


async def test_tokens_from_an_external_issuer_are_validated_against_its_jwks(settings, database, temporal_env, tenant):
    idp_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    jwks = {"keys": [_jwk(idp_key, "idp-1")]}

    @get("/keys", sync_to_thread=False)
    def keys() -> dict:
        return jwks

    async with Server(Litestar([keys]), free_port()) as idp:
        from api.app import create_app

        external = replace(
            settings,
            external_jwks_url=f"{idp.base_url}/keys",
            external_issuer=EXTERNAL_ISSUER,
        )
        async with Server(create_app(external, temporal_env.client), free_port()) as api:
            now = int(time.time())

            def token(key=idp_key, kid="idp-1", **claims) -> str:
                body = {
                    "iss": EXTERNAL_ISSUER.format(tenant_id=tenant.id),
                    "aud": settings.audience,
                    "sub": "app-123",
                    "azp": "app-123",
                    "tid": tenant.id,
                    "roles": ["internal"],
                    "iat": now,
                    "nbf": now,
                    "exp": now + 600,
                    **claims,
                }
                return jwt.encode(body, key, algorithm="RS256", headers={"kid": kid})

            async with httpx.AsyncClient(base_url=api.base_url) as client:

                async def call(bearer: str) -> httpx.Response:
                    return await client.get(
                        "/index-definitions", headers={"Authorization": f"Bearer {bearer}", "x-tenant-id": tenant.id}
                    )

                assert (await call(token())).status_code == 200
                other_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
                assert_problem(await call(token(key=other_key)), 401)
                assert_problem(await call(token(iss="https://login.example.com/other/v2.0")), 401)
                assert_problem(await call(token(aud="api://other")), 401)
                # The service's own tokens are not accepted in external mode.
                assert_problem(await call(await tenant.token()), 401)
