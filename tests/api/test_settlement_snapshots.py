"""`GET /internal/settlements/{coverageId}/snapshot` and `parametric settlement verify`
(issue 34; docs/settlement.md, "Settlements anyone can re-run"), over real HTTP and the real
CLI process, on `settlement_snapshot` rows written as settlement writes them
(`snapshot_body`, `canonical_bytes`, `snapshot_hash` of models/domain/ladder.py): the latest
and an earlier revision read back whole, with a hash that the answer's own JSON still
matches; staff read any coverage's, a tenant's internal client only those its policies hold;
bad and unknown revisions are 400 naming `revision` and 404; the CLI says OK, or MISMATCH
with exit status 1 for a snapshot whose stored body was changed."""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal

import pytest

from models.clock import utcnow
from models.db.tables import PolicyItem, SettlementSnapshot
from models.domain.ladder import canonical_bytes, snapshot_hash
from models.domain.snapshot_check import check_snapshot
from tests.conftest import assert_problem
from tests.test_cli import run_cli
from tests.snapshot_samples import body
from tests.test_snapshot_verify import run_script


async def write_snapshot(snapshot: dict, *, tamper: bool = False) -> None:
    """One row as settlement writes it; `tamper`: the stored body changed after hashing."""
    text = canonical_bytes(snapshot).decode()
    sha = snapshot_hash(snapshot)
    if tamper:
        text = text.replace('"value":"12"', '"value":"120"', 1)
    await SettlementSnapshot.insert(SettlementSnapshot(
        id=f"{snapshot['coverageId']}:s{snapshot['revision']}", coverage_id=uuid.UUID(snapshot["coverageId"]),
        revision=snapshot["revision"], stage=snapshot["stage"], sha256=sha, body=text,
        index_value=Decimal(snapshot["result"]["indexValue"]), created_at=utcnow(),
    ))


@pytest.fixture(scope="module")
async def coverage(tenant, service) -> dict:
    """A coverage held by `tenant`'s policy with two snapshots: INITIAL on provisional values
    (revision 1), FINAL on the archive's (revision 2)."""
    coverage_id = uuid.uuid4()
    initial = body(coverage_id=coverage_id, revision=1, stage="INITIAL", provisional=set(range(31)),
                   values=[Decimal(12)] * 31)
    final = body(coverage_id=coverage_id, revision=2, stage="FINAL", values=[Decimal("12.4")] * 31)
    for snapshot in (initial, final):
        await write_snapshot(snapshot)
    await PolicyItem.insert(PolicyItem(
        id=uuid.uuid4(), tenant_id=uuid.UUID(tenant.id), policy_id=uuid.uuid4(), coverage_id=coverage_id,
        quantity=Decimal(1), currency="INR", sum_insured_minor=100, total_sum_insured_minor=100, total_min_payout_minor=0,
    ))
    return {"id": str(coverage_id), 1: initial, 2: final}


async def test_staff_read_the_latest_and_an_earlier_snapshot(coverage, operations_staff, data_staff, actuary):
    url = f"/internal/settlements/{coverage['id']}/snapshot"
    for staff in (operations_staff, data_staff, actuary):
        r = await staff.get(url)
        assert r.status_code == 200, r.text
        latest = r.json()
        assert {k: latest[k] for k in ("coverageId", "revision", "stage", "sha256", "revisions")} == {
            "coverageId": coverage["id"], "revision": 2, "stage": "FINAL", "sha256": snapshot_hash(coverage[2]),
            "revisions": [1, 2]}
        assert latest["snapshot"] == coverage[2] and dt.datetime.fromisoformat(latest["createdAt"])
    earlier = (await operations_staff.get(url, params={"revision": 1})).json()
    assert earlier["revision"] == 1 and earlier["stage"] == "INITIAL" and earlier["snapshot"] == coverage[1]
    # 31 provisional days of 12 mm: 372 ± √(31 × 2²) = 11.14 mm; INITIAL pays at 360.86 mm.
    assert earlier["snapshot"]["result"] == {"indexValue": "372", "indexError": "11.14", "paidIndex": "360.86",
                                             "payoutPerUnit": "860.75"}
    # The answer's own JSON still hashes to the recorded SHA-256, and recomputes.
    for answer in (latest, earlier):
        assert check_snapshot(answer["snapshot"], answer["sha256"]).ok


async def test_the_stand_alone_script_verifies_the_apis_answer(coverage, operations_staff, tmp_path):
    r = await operations_staff.get(f"/internal/settlements/{coverage['id']}/snapshot?revision=1")
    path = tmp_path / "answer.json"
    path.write_bytes(r.content)
    ran = run_script(path, "--units", "3")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "index     372 (error 11.14), paid on 360.86" in ran.stdout and "cover     2582.25 INR for 3 units" in ran.stdout


async def test_tenants_read_only_the_snapshots_of_coverages_they_hold(coverage, tenant, other_tenant, make_tenant):
    url = f"/internal/settlements/{coverage['id']}/snapshot"
    mine = await tenant.get(url)
    assert mine.status_code == 200 and mine.json()["revision"] == 2
    assert_problem(await other_tenant.get(url), 404)
    assert_problem(await (await make_tenant(internal=False)).get(url), 403)


async def test_unknown_and_bad_revisions(coverage, operations_staff):
    url = f"/internal/settlements/{coverage['id']}/snapshot"
    assert_problem(await operations_staff.get(url, params={"revision": 3}), 404)
    assert_problem(await operations_staff.get(f"/internal/settlements/{uuid.uuid4()}/snapshot"), 404)
    for bad in ("0", "-1", "two"):
        problem = assert_problem(await operations_staff.get(url, params={"revision": bad}), 400)
        assert [e["field"] for e in problem["errors"]] == ["revision"], problem


async def test_the_cli_verifies_a_snapshot_and_names_a_mismatch(coverage):
    ok = run_cli("settlement", "verify", coverage["id"])
    assert ok.returncode == 0, ok.stdout + ok.stderr
    lines = ok.stdout.splitlines()
    assert lines[0].startswith(f"snapshot  coverage {coverage['id']}, revision 2 of [1, 2], FINAL, RAINFALL_MONTHLY_TOTAL")
    assert lines[1] == f"sha256    {snapshot_hash(coverage[2])} OK"
    assert lines[2:] == ["index     384.4 (error 0), paid on 384.4", "payout    1155 INR per unit of cover", "OK"]
    first = run_cli("settlement", "verify", coverage["id"], "--revision", "1")
    assert first.returncode == 0 and "paid on 360.86" in first.stdout and first.stdout.endswith("OK\n")

    changed = body(revision=1)
    await write_snapshot(changed, tamper=True)
    bad = run_cli("settlement", "verify", changed["coverageId"])
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "MISMATCH: recorded" in bad.stdout.splitlines()[1] and bad.stdout.splitlines()[-1].startswith("MISMATCH: sha256")
    assert "result.indexValue" in bad.stdout

    missing = run_cli("settlement", "verify", coverage["id"], "--revision", "9")
    assert missing.returncode == 2 and "no settlement snapshot of revision 9 (it has [1, 2])" in missing.stderr
    assert run_cli("settlement", "verify", "not-a-uuid").returncode == 2
