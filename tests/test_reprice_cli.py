"""`parametric reprice` reruns a coverage's pricing on Temporal and prints the comparison.
The rerun is a candidate run by the named staff actuary: another actuary publishes it."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from decimal import Decimal

from models.db import pricing as pricing_db


def _credentials(tmp_path, staff) -> str:
    """A staff member's credentials file, as `parametric staff create` printed them."""
    path = tmp_path / f"{staff.credentials['client_id']}.json"
    path.write_text(json.dumps(staff.credentials))
    return str(path)


async def _reprice(service, *args: str, timeout: float = 300) -> tuple[int, str, str]:
    env = {**os.environ, "TEMPORAL_ADDRESS": service.temporal_address, "TEMPORAL_TASK_QUEUE": service.task_queue}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "api.cli", "reprice", *args,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env,
    )
    out, err = await asyncio.wait_for(proc.communicate(), timeout)
    return proc.returncode, out.decode(), err.decode()


async def test_reprice_cli_makes_a_candidate_and_prints_the_change(tenant, service, actuary, second_actuary, tmp_path):
    listed = (await tenant.get("/internal/coverages?targetName=400001&from=2027-08-01&to=2027-08-31&size=10")).json()
    coverage = next(c for c in listed["content"] if c["riskTypeId"] == "RAINFALL")
    for _ in range(600):  # version 1 (the catalogue's) first
        runs = await pricing_db.pricing_runs(coverage["id"])
        if runs and runs[0].status == "COMPLETED":
            break
        await asyncio.sleep(0.2)
    code, text, err = await _reprice(service, coverage["id"], "--simulations", "50000", "--elr", "0.6",
                                   "--credentials", _credentials(tmp_path, actuary))
    assert code == 0, err
    assert "pricing run v2 started" in text
    assert "Risk premium" in text and "TVaR 99.5%" in text and "Expected loss ratio" in text
    header = next(line for line in text.splitlines() if "v1" in line and "v2" in line)
    assert "change" in header
    elr_row = next(line for line in text.splitlines() if line.startswith("Expected loss ratio"))
    runs = await pricing_db.pricing_runs(coverage["id"])
    # v1 (the catalogue's, risk-loaded) shows the ratio its premium came to; v2 the override
    assert f"{runs[0].expected_loss_ratio:.6f}" in elr_row and "0.6" in elr_row
    assert runs[0].expected_loss_ratio < Decimal("0.6")
    # A candidate run by arun: the price is still v1's, and the CLI says how to publish it.
    assert [(r.version, r.status) for r in runs] == [(1, "COMPLETED"), (2, "CANDIDATE")]
    assert runs[1].requested_by == "staff:arun" and runs[1].simulations >= 50000
    assert "v2 is a candidate: quotes use v1 until another actuary publishes it" in text
    assert f"POST /internal/coverages/{coverage['id']}/pricing-runs/2/publish" in text
    after = (await tenant.get(f"/internal/coverages/{coverage['id']}")).json()
    assert after["riskPremium"] == coverage["riskPremium"]
    path = f"/internal/coverages/{coverage['id']}/pricing-runs/2/publish"
    assert (await actuary.post(path)).status_code == 403  # arun ran it
    r = await second_actuary.post(path)
    assert r.status_code == 200, r.text
    assert (await tenant.get(f"/internal/coverages/{coverage['id']}")).json()["expectedLossRatio"] == 0.6


async def test_reprice_cli_refuses_unknown_coverages_and_non_actuaries(service, actuary, data_staff, tmp_path):
    unknown = "7d0a8f0e-0000-4000-8000-000000000000"
    code, _, err = await _reprice(service, unknown, "--credentials", _credentials(tmp_path, actuary), timeout=120)
    assert code != 0
    assert "does not exist" in err
    code, _, err = await _reprice(service, unknown, "--credentials", _credentials(tmp_path, data_staff), timeout=120)
    assert code != 0 and "'dana' does not hold the actuary role" in err
    code, _, err = await _reprice(service, unknown, timeout=120)
    assert code != 0 and "--credentials" in err


async def test_reprice_cli_runs_as_the_actuary_whose_credentials_it_has(service, actuary, second_actuary, tmp_path):
    """Review of issues 24/25, finding 2: `--as NAME` alone named the rerun's actuary, so an
    actuary could run one as `--as bea` and publish it himself through the API (four eyes
    by a name anyone could type). Now the credentials say who runs it; `--as` must agree."""
    unknown = "7d0a8f0e-0000-4000-8000-000000000000"
    code, _, err = await _reprice(service, unknown, "--as", "bea", timeout=120)
    assert code != 0 and "--credentials" in err  # a name alone: refused
    code, _, err = await _reprice(service, unknown, "--as", "bea", "--credentials", _credentials(tmp_path, actuary),
                                  timeout=120)
    assert code != 0 and "the credentials are staff member 'arun''s, not 'bea''s" in err
    wrong = dict(second_actuary.credentials, client_secret="guess")
    (tmp_path / "wrong.json").write_text(json.dumps(wrong))
    code, _, err = await _reprice(service, unknown, "--credentials", str(tmp_path / "wrong.json"), timeout=120)
    assert code != 0 and "not a staff member's valid credentials" in err
