"""`parametric tenants create` prints credentials that work against the running API."""

from __future__ import annotations

import datetime as dt
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


async def test_observations_import_validates_the_whole_file_then_reports_new_revised_unchanged(service, tmp_path, make_staff):
    """`parametric observations import FILE.csv`: a bad line refuses the file (nothing
    written); a good file is imported; importing it again changes nothing; a changed value
    is a revision."""
    from models.db.tables import Observation

    header = "monitoring_target_id,data_set,variable,day,hour,value,source,quality,provisional\n"
    good = header + "".join(
        f"IN-12.875N-077.625E,IMD-RF-DAILY,rainfall_mm,2024-06-{d:02d},,{d}.5,IMD,GOOD,false\n" for d in range(1, 11)
    )
    bad = good + "IN-12.875N-077.625E,IMD-RF-DAILY,rainfall_mm,2024-06-31,,1,IMD,GOOD,false\n"  # no 31 June
    bad += "IN-12.875N-077.625E,IMD-RF-DAILY,rainfall_mm,2024-07-01,,-3,IMD,GOOD,false\n"
    before = await Observation.count()
    (tmp_path / "bad.csv").write_text(bad)
    refused = run_cli("observations", "import", str(tmp_path / "bad.csv"))
    assert refused.returncode != 0
    assert "line 12: day: cannot read '2024-06-31'" in refused.stderr and "nothing was written" in refused.stderr
    assert await Observation.count() == before

    (tmp_path / "good.csv").write_text(good)
    first = run_cli("observations", "import", str(tmp_path / "good.csv"))
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout.strip().splitlines()[-1])["rows"] == 10
    again = json.loads(run_cli("observations", "import", str(tmp_path / "good.csv")).stdout.strip().splitlines()[-1])
    assert (again["new"], again["revised"], again["unchanged"]) == (0, 0, 10)
    (tmp_path / "revised.csv").write_text(header + "IN-12.875N-077.625E,IMD-RF-DAILY,rainfall_mm,2024-06-01,,9,IMD,GOOD,false\n")
    unexplained = run_cli("observations", "import", str(tmp_path / "revised.csv"))  # a revision says why
    assert unexplained.returncode != 0 and "--reason" in unexplained.stderr
    (tmp_path / "staff.json").write_text(json.dumps((await make_staff("data")).credentials))
    revised = json.loads(run_cli("observations", "import", str(tmp_path / "revised.csv"), "--reason", "re-read",
                                 "--credentials", str(tmp_path / "staff.json")).stdout.strip().splitlines()[-1])
    assert (revised["new"], revised["revised"], revised["held"]) == (0, 1, 0)


async def test_a_revision_imported_from_the_command_line_names_its_staff_member(service, tmp_path, make_staff):
    """Review of issues 24/25, finding 2: four eyes by a stable identity. A revision imported
    with the CLI recorded `cli:<os user>`, which no staff member's identity ever equals, so
    the data staff member who imported it could approve it through the API as `staff:<name>`.
    Now a revising file needs the submitter's data staff credentials and records
    `staff:<name>`, as the API does; an OS user alone revises nothing."""
    from models.db.tables import Observation

    header = "monitoring_target_id,data_set,variable,day,hour,value,source,quality,provisional\n"
    line = "IN-12.875N-077.625E,IMD-RF-DAILY,rainfall_mm,2019-02-17,,{},IMD,GOOD,false\n"
    (tmp_path / "first.csv").write_text(header + line.format("4.5"))
    assert run_cli("observations", "import", str(tmp_path / "first.csv")).returncode == 0  # new values: no revision
    (tmp_path / "revised.csv").write_text(header + line.format("7.5"))
    as_os_user = run_cli("observations", "import", str(tmp_path / "revised.csv"), "--reason", "re-read")
    assert as_os_user.returncode != 0 and "--credentials" in as_os_user.stderr, as_os_user.stderr

    dana = await make_staff("data")
    operations = await make_staff("operations")
    for who, words in ((dict(dana.credentials, client_secret="wrong"), "not a staff member's valid credentials"),
                       (operations.credentials, "does not hold the data role")):
        (tmp_path / "who.json").write_text(json.dumps(who))
        refused = run_cli("observations", "import", str(tmp_path / "revised.csv"), "--reason", "re-read",
                          "--credentials", str(tmp_path / "who.json"))
        assert refused.returncode != 0 and words in refused.stderr, refused.stderr
    (tmp_path / "dana.json").write_text(json.dumps(dana.credentials))
    done = run_cli("observations", "import", str(tmp_path / "revised.csv"), "--reason", "re-read",
                   "--credentials", str(tmp_path / "dana.json"))
    assert done.returncode == 0, done.stderr
    rows = await Observation.select(Observation.submitted_by, Observation.value).where(
        (Observation.monitoring_target_id == "IN-12.875N-077.625E") & (Observation.variable == "rainfall_mm")
        & (Observation.observed_on == dt.date(2019, 2, 17))
    )
    staff_name = json.loads(run_cli("staff", "list").stdout)
    name = next(s["name"] for s in staff_name if s["client_id"] == dana.credentials["client_id"])
    assert f"staff:{name}" in {r["submitted_by"] for r in rows}, rows
