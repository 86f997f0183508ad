"""`parametric reprice` reruns a coverage's pricing on Temporal and prints the comparison."""

from __future__ import annotations

import asyncio
import os
import sys
from decimal import Decimal

from models.db import pricing as pricing_db


async def test_reprice_cli_keeps_every_run_and_prints_the_change(tenant, service):
    listed = (await tenant.get("/internal/coverages?targetName=400001&from=2027-08-01&to=2027-08-31&size=10")).json()
    coverage = next(c for c in listed["content"] if c["riskTypeId"] == "RAINFALL")
    for _ in range(600):  # version 1 (the catalogue's) first
        runs = await pricing_db.pricing_runs(coverage["id"])
        if runs and runs[0].status == "COMPLETED":
            break
        await asyncio.sleep(0.2)
    env = {**os.environ, "TEMPORAL_ADDRESS": service.temporal_address, "TEMPORAL_TASK_QUEUE": service.task_queue}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "api.cli", "reprice", coverage["id"], "--simulations", "50000", "--elr", "0.6",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 300)
    text = out.decode()
    assert proc.returncode == 0, err.decode()
    assert "pricing run v2 started" in text
    assert "Risk premium" in text and "TVaR 99.5%" in text and "Expected loss ratio" in text
    header = next(line for line in text.splitlines() if "v1" in line and "v2" in line)
    assert "change" in header
    elr_row = next(line for line in text.splitlines() if line.startswith("Expected loss ratio"))
    runs = await pricing_db.pricing_runs(coverage["id"])
    # v1 (the catalogue's, risk-loaded) shows the ratio its premium came to; v2 the override
    assert f"{runs[0].expected_loss_ratio:.6f}" in elr_row and "0.6" in elr_row
    assert runs[0].expected_loss_ratio < Decimal("0.6")
    assert [(r.version, r.status) for r in runs] == [(1, "COMPLETED"), (2, "COMPLETED")]
    assert runs[1].requested_by == "cli" and runs[1].simulations >= 50000


async def test_reprice_cli_refuses_unknown_coverages(service):
    env = {**os.environ, "TEMPORAL_ADDRESS": service.temporal_address, "TEMPORAL_TASK_QUEUE": service.task_queue}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "api.cli", "reprice", "7d0a8f0e-0000-4000-8000-000000000000",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 120)
    assert proc.returncode != 0
    assert "does not exist" in err.decode()
