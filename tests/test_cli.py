"""`parametric tenants create` prints credentials that work against the running API."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.conftest import assert_problem


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "api.cli", *args], capture_output=True, text=True, env=os.environ.copy(), timeout=120
    )


async def test_tenants_create_prints_json_credentials_usable_with_the_api(http, service):
    result = run_cli("tenants", "create", "cli-tenant")
    assert result.returncode == 0, result.stderr
    creds = json.loads(result.stdout)
    assert set(creds) == {"tenant_id", "client_id", "client_secret", "api_key", "scope"}
    assert creds["scope"] == "api://parametric-insurance/.default"
    r = await http.post(
        f"/auth/{creds['tenant_id']}/oauth2/v2.0/token",
        data={
            "client_id": creds["client_id"],
            "client_secret": creds["client_secret"],
            "scope": creds["scope"],
            "grant_type": "client_credentials",
        },
    )
    assert r.status_code == 200, r.text
    headers = {"Authorization": f"Bearer {r.json()['access_token']}", "x-tenant-id": creds["tenant_id"]}
    assert (await http.get("/index-definitions", headers=headers)).status_code == 200
    # Not internal: the internal surface is closed to it.
    assert_problem(await http.get(f"/internal/business-partners/{creds['client_id']}", headers=headers), 403)


async def test_secrets_are_stored_hashed(service):
    from models.tables import ApiClient

    result = run_cli("tenants", "create", "hash-check", "--internal")
    creds = json.loads(result.stdout)
    row = await ApiClient.objects().where(ApiClient.id == creds["client_id"]).first()
    assert row.internal is True
    assert creds["client_secret"] not in row.secret_hash and row.secret_hash.startswith("$argon2")
    assert creds["api_key"] not in row.api_key_sha256
