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
    from models.db.tables import ApiClient

    result = run_cli("tenants", "create", "hash-check", "--internal")
    creds = json.loads(result.stdout)
    row = await ApiClient.objects().where(ApiClient.id == creds["client_id"]).first()
    assert row.internal is True
    assert creds["client_secret"] not in row.secret_hash and row.secret_hash.startswith("sha256$")
    assert creds["api_key"] not in row.api_key_sha256


async def test_tenant_names_are_unique_and_checked(service):
    assert run_cli("tenants", "create", "unique-co").returncode == 0
    again = run_cli("tenants", "create", "unique-co")
    assert again.returncode != 0 and "add-client" in again.stderr
    for bad in ("", "   ", "a\x01b", "x" * 101):
        assert run_cli("tenants", "create", bad).returncode != 0, bad


async def test_add_client_and_disable_it(http, service):
    first = json.loads(run_cli("tenants", "create", "two-clients").stdout)
    second = run_cli("tenants", "add-client", "two-clients", "--internal")
    assert second.returncode == 0, second.stderr
    creds = json.loads(second.stdout)
    assert creds["tenant_id"] == first["tenant_id"] and creds["client_id"] != first["client_id"]
    listing = json.loads(run_cli("tenants", "list").stdout)
    mine = next(t for t in listing if t["name"] == "two-clients")
    assert {c["client_id"] for c in mine["clients"]} == {first["client_id"], creds["client_id"]}
    assert "client_secret" not in run_cli("tenants", "list").stdout
    assert run_cli("tenants", "disable-client", creds["client_id"]).returncode == 0
    r = await http.post(
        f"/auth/{creds['tenant_id']}/oauth2/v2.0/token",
        data={
            "client_id": creds["client_id"],
            "client_secret": creds["client_secret"],
            "scope": creds["scope"],
            "grant_type": "client_credentials",
        },
    )
    assert r.status_code == 401
    r = await http.get(
        f"/travel/{creds['tenant_id']}/parametric-event?validated_day=2026-01-01",
        headers={"Authorization": f"Bearer {creds['api_key']}"},
    )
    assert r.status_code == 401
    assert run_cli("tenants", "add-client", "no-such-tenant").returncode != 0
