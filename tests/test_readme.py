"""The README's path runs as pasted (issue 29): the bash blocks of "Calling the API", "Watch a
payout" and "The risk carrier's view" (issue 27), in order, in one shell, against the test
stack (its API's address for 127.0.0.1:8000; `make dev`'s demo tenant made first, as `make
dev` makes it). A block that uses a variable it never set, or a command that fails, fails the
test."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import os
import re
import sys
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SECTIONS = ("## Calling the API", "## Watch a payout", "## The risk carrier's view")


def readme_blocks() -> list[str]:
    """The sh/bash blocks of SECTIONS, in the README's order."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = []
    for heading in SECTIONS:
        start = text.index(heading)
        end = text.find("\n## ", start + len(heading))
        section = text[start : end if end != -1 else len(text)]
        blocks += re.findall(r"```(?:sh|bash)\n(.*?)```", section, re.S)
    return blocks


async def test_the_readme_blocks_run_as_pasted(service, tmp_path):
    blocks = readme_blocks()
    assert len(blocks) >= 4
    (tmp_path / ".venv").symlink_to(Path(sys.executable).parents[1])  # the venv running the suite (make install's .venv)
    demo = f"demo-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "DEMO_TENANT_NAME": demo, "TEMPORAL_ADDRESS": service.temporal_address,
           "TEMPORAL_TASK_QUEUE": service.task_queue}
    script = "\n".join([
        "set -eo pipefail",
        # what `make dev` did before: the demo tenant's credentials in var/
        f"mkdir -p var && .venv/bin/parametric tenants create {demo} --internal > var/demo-tenant.json",
        *blocks,
    ]).replace("http://127.0.0.1:8000", service.base_url).replace(
        "tenants create acme ", f"tenants create acme-{demo} ").replace(  # tenant names are unique in the suite's database
        "--tenant acme ", f"--tenant acme-{demo} ").replace(
        "staff create oscar ", f"staff create oscar-{demo} ").replace(  # and so are staff names
        "--email oscar@", f"--email oscar-{demo}@")  # and their e-mails
    (tmp_path / "readme.sh").write_text(script)
    proc = await asyncio.create_subprocess_exec(
        "bash", "readme.sh", cwd=tmp_path, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )
    try:
        out = (await asyncio.wait_for(proc.communicate(), 900))[0].decode(errors="replace")
    finally:
        # The whole book's run keeps its losses per path, against which later quotes take
        # their capital (docs/portfolio.md): the rest of the suite prices as before.
        from models.db.tables import PortfolioPaths

        await PortfolioPaths.delete(force=True)
    assert proc.returncode == 0, out[-4000:]
    var = tmp_path / "var"
    read = lambda name: json.loads((var / name).read_text())  # noqa: E731
    assert read("policy.json")["status"] == "CREATED"
    assert '"status":"ACCEPTED"' in out.replace(" ", "")  # the activation's answer
    assert read("fast-quote.json")["id"]
    assert read("stay-quote.json")["quote_id"]
    settled = read("demo-settle.json")
    assert settled["eventId"] in settled["eventIds"] and settled["policyId"]
    # Both payments (issue 34): INITIAL on the real-time product's values, on the index less
    # its error (ABOVE: the excess cover of the wet month), then the FINAL true-up on the archive's.
    from decimal import Decimal

    initial, final = settled["initial"], settled["final"]
    assert initial["eventIds"] and final["eventIds"] and settled["finalEventId"] in final["eventIds"]
    assert any(c["indexValue"] == "420" and Decimal(c["paidIndex"]) == 420 - Decimal(c["indexError"]) > 400
               for c in initial["covers"]), initial
    assert any(c["indexValue"] == "420" and c["paidIndex"] == "420" for c in final["covers"]), final
    assert (var / "claim.pdf").read_bytes().startswith(b"%PDF")
    assert not (tmp_path / "acme.json").exists()  # secrets go under var/, never the repository root

    # The risk carrier's view: the limit refuses the bind, the book's risk is computed, the
    # demo's policy is in the risk bordereau of the month it was bound in.
    assert read("refused.json")["type"].endswith("/capacity-exceeded")
    assert read("refused.json")["remaining"]["amount"] == 150000 and read("refused.json")["required"]["amount"] == 250000
    assert f"month {read('limit-month.json')['month']}, tenant acme-{demo} (" in read("refused.json")["detail"]  # by name
    portfolio = read("portfolio.json")
    assert portfolio["status"] == "CURRENT" and portfolio["aep"] and portfolio["asIfYears"]
    assert f"{settled['policyId']},Original Premium," in out
    assert (var / "portfolio-risk-report.pdf").read_bytes().startswith(b"%PDF")
    assert "200 application/pdf" in out  # as the README shows it

    # The demo's covers are labelled with their own month (they said next year's: "Oct 2027"
    # on an October 2026 policy).
    from models.db.demo import last_month
    from models.db.tables import Coverage, PolicyItem

    start, _ = last_month(dt.datetime.now(dt.timezone.utc).date())
    items = await PolicyItem.select(PolicyItem.coverage_id).where(PolicyItem.policy_id == uuid.UUID(settled["policyId"]))
    labels = [r["label"] for r in await Coverage.select(Coverage.label).where(
        Coverage.id.is_in([i["coverage_id"] for i in items]))]
    assert labels and all(label.startswith("DEMO · ") and label.endswith(f" · {start:%b %Y}") for label in labels), labels
