"""Tokens refused before they expire (review of issues 24/25, finding 5), over real HTTP with
the real CLI:

- a disabled client's tokens (`parametric staff disable`, `parametric tenants
  disable-client`): the old code only stopped new tokens, issued ones worked for their hour;
- a revoked signing key's tokens (`parametric keys revoke KID`): the old code had no way to
  revoke a key before its tokens expired.
Each is refused within a second (api/auth/revocations.py), cached verification or not.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import time

import jwt
from cryptography.hazmat.primitives.asymmetric import ec

from models.clock import utcnow
from tests.api.test_shared_state import cli
from tests.conftest import assert_problem

REVISIONS = "/internal/observation-revisions"


async def _status_becomes(call, status: int, seconds: float = 5.0):
    """The first answer with `status` within `seconds` (a process re-reads what is revoked at
    most a second apart), else the last answer."""
    deadline = time.monotonic() + seconds
    while True:
        r = await call()
        if r.status_code == status or time.monotonic() > deadline:
            return r
        await asyncio.sleep(0.2)


async def test_a_disabled_staff_members_tokens_are_refused(make_staff):
    staff = await make_staff("data")
    assert (await staff.get(REVISIONS)).status_code == 200  # the token is verified and cached
    await cli("staff", "disable", staff.credentials["client_id"])
    r = await _status_becomes(lambda: staff.get(REVISIONS), 401)
    assert_problem(r, 401)
    assert "client is disabled" in r.text, r.text


async def test_a_disabled_tenant_clients_tokens_are_refused(make_tenant):
    tenant = await make_tenant()
    assert (await tenant.get("/index-definitions")).status_code == 200
    await cli("tenants", "disable-client", tenant.credentials["client_id"])
    r = await _status_becomes(lambda: tenant.get("/index-definitions"), 401)
    assert r.status_code == 401, r.text


async def test_a_revoked_signing_keys_tokens_are_refused(http, make_tenant):
    """A key of ours that verifies (imported as a retired key, as another host's key file is):
    a token it signed works until the key is revoked, then never again, and it leaves the JWKS."""
    from api.auth.keys import public_jwk
    from models.db import signing_keys as keys_db

    tenant = await make_tenant()
    private = ec.generate_private_key(ec.SECP256R1())
    jwk = public_jwk(private.public_key())
    await keys_db.add_retired(jwk["kid"], json.dumps(jwk))
    claims = jwt.decode(await tenant.token(), options={"verify_signature": False})  # the service's own claims
    stolen = jwt.encode(claims, private, algorithm="ES256", headers={"kid": jwk["kid"]})
    headers = {"Authorization": f"Bearer {stolen}", "x-tenant-id": tenant.id}
    assert (await http.get("/index-definitions", headers=headers)).status_code == 200
    assert jwk["kid"] in {k["kid"] for k in (await http.get("/.well-known/jwks.json")).json()["keys"]}

    listing = json.loads(await cli("keys", "revoke", jwk["kid"]))
    assert next(k for k in listing if k["kid"] == jwk["kid"])["state"].startswith("revoked")
    r = await _status_becomes(lambda: http.get("/index-definitions", headers=headers), 401)
    assert r.status_code == 401 and "signing key was revoked" in r.text, r.text
    assert (await tenant.get("/index-definitions")).status_code == 200  # the current key's tokens work on
    # Gone from the keys every process publishes (at its next re-read of them).
    assert jwk["kid"] not in {k.kid for k in await keys_db.usable(utcnow() - dt.timedelta(days=1))}


async def test_revoking_an_unknown_key_is_an_error():
    import subprocess
    import sys

    done = await asyncio.to_thread(subprocess.run, [sys.executable, "-m", "api.cli", "keys", "revoke", "no-such-kid"],
                                   capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "no signing key 'no-such-kid'" in done.stderr, done.stderr
