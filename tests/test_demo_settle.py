"""`parametric demo settle` without `--rain-mm` (issue 34), against the test stack: the
simulated feed's daily run (the real ingest workflow) brings last month's values as the
real-time product gives them (provisional) and, for its two months before, the archive's
(final) beside the reanalysis; the month settles INITIAL. The demo's archive step publishes
the month's simulated archive and the same run brings its final values as revisions: the
FINAL true-up, for every cover. The overlap is enough for the fallback's calibration."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import os
import sys
import uuid

from models.db.demo import last_month

PIN = "302001"  # Jaipur: a target no settlement test uses


async def _cli(*args: str, env: dict) -> str:
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "api.cli", *args, env=env,
                                                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), 600)
    assert proc.returncode == 0, err.decode()[-3000:]
    print(err.decode())  # the demo's steps
    return out.decode()


async def test_demo_settle_pays_initial_on_the_real_time_product_then_final_on_the_archive(service):
    from models.db.catalogue import target_for_pin
    from models.db.ladder_reads import calibration
    from models.db.observations import latest_values
    from models.domain.settlement_basis import MIN_PAIRS

    demo = f"demo-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "DEMO_TENANT_NAME": demo, "TEMPORAL_ADDRESS": service.temporal_address,
           "TEMPORAL_TASK_QUEUE": service.task_queue}
    await _cli("tenants", "create", demo, "--internal", env=env)
    settled = json.loads(await _cli("demo", "settle", "--pin", PIN, "--wait", "180", env=env))

    covers = {c["coverageId"] for c in settled["initial"]["covers"]}
    assert len(covers) == 2 and {c["coverageId"] for c in settled["final"]["covers"]} == covers
    assert {c["kind"] for c in settled["initial"]["covers"]} == {"SETTLEMENT"}
    assert {c["kind"] for c in settled["final"]["covers"]} == {"ADJUSTMENT"}
    assert all(c["indexError"] != "0" for c in settled["initial"]["covers"])  # paid on provisional values
    assert all(c["indexError"] == "0" and c["paidIndex"] == c["indexValue"] for c in settled["final"]["covers"])

    target = await target_for_pin(PIN)
    start, end = last_month(dt.datetime.now(dt.UTC).date())
    month = await latest_values(target, "IMD-RF-DAILY", "rainfall_mm", start, end)
    assert len(month) == (end - start).days + 1 and not any(v.provisional for v in month)  # the archive's, at the end
    assert max(v.revision for v in month) >= 2  # ... revising the real-time product's
    fitted = await calibration(target, "IMD-RF-DAILY", "REAN-SFC-HOURLY", "rainfall_mm", end)
    assert fitted is not None and fitted.scope == "target" and fitted.pairs >= MIN_PAIRS
