"""Record histories of runs that cross a deploy: started on an older release's code, continued
on this commit's, so that they pass this commit's patch points with the older code's events
before them (the markers only such runs write: docs/workflow-versioning.md).

    .venv/bin/python -m tests.replay.cross LABEL [SCENARIO ...]

For each scenario, one Temporal server (the time-skipping test server, or the dev server
where a quote's child must outlive its parent) and one SQLite database serve both phases:

1. a git worktree of the older commit (`git worktree add --detach`, removed afterwards);
   `tests/replay/crossing/<release>.py SCENARIO` runs in a subprocess with that tree first
   on PYTHONPATH: it migrates the database as that release did, starts the runs on its own
   workers, drives them to where the deploy finds them, writes their ids and exits;
2. here, the deploy: the database migrated forward, this commit's workers on the same task
   queue, the runs driven past the patch points; their histories are written to
   `tests/replay/histories/LABEL/<name>.json` (a file that exists is never overwritten) and
   added to the manifest.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import uuid
from decimal import Decimal
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
# A private database (spawned pool processes import this module again: they inherit it).
os.environ["PARAMETRIC_VAR_DIR"] = VAR_DIR = os.environ.setdefault("PARAMETRIC_CROSS_VAR_DIR", tempfile.mkdtemp(prefix="parametric-cross-"))
os.environ.pop("DATABASE_URL", None)
os.environ.setdefault("PICCOLO_CONF", "models.db.piccolo_conf")

V0 = "d12c36481d8e856432096f355693b82c004e6d27"  # v0's recording: the workflows before issue 9
V3 = "032a8a3"  # settlement as first recorded (tests/replay/histories/v3/settlement.json)
V4 = "a7cd5d8"  # issue 24's release (tests/replay/histories/v4)

from temporalio import workflow  # noqa: E402


@workflow.defn(sandboxed=False, name="CrossClockWorkflow")
class CrossClockWorkflow:
    """Only a timer: the time-skipping server skips from timer to timer."""

    @workflow.run
    async def run(self, seconds: float) -> None:
        await workflow.sleep(seconds)


class Deploy:
    """Phase 2's side of one scenario: the server, this commit's workers, time."""

    def __init__(self, env, queue: str, state: dict) -> None:
        self.env, self.client, self.queue, self.state = env, env.client, queue, state

    async def advance(self, delta: dt.timedelta) -> None:
        step = dt.timedelta(days=30)
        while delta > dt.timedelta(0):
            chunk = min(delta, step)
            await self.client.start_workflow(
                CrossClockWorkflow.run, chunk.total_seconds(), id=f"clock-{uuid.uuid4()}", task_queue=f"{self.queue}-clock"
            )
            await self.env.sleep(chunk)
            delta -= chunk

    async def until(self, moment: dt.datetime) -> None:
        await self.advance(moment - await self.env.get_current_time())

    async def result(self, handle, timeout: float = 120):
        """A run's result, waited for with time skipping unlocked (a handle this process did
        not start gets none of the SDK's automatic unlocking: 'No completion event found')."""
        if not self.env.supports_time_skipping:
            return await asyncio.wait_for(handle.result(), timeout)
        async with self.env.time_skipping_unlocked():
            return await asyncio.wait_for(handle.result(), timeout)

    def handle(self, workflow_id: str, run_id: str | None = None):
        return self.client.get_workflow_handle(workflow_id, run_id=run_id)

    async def started(self, workflow_id: str):
        """The handle of a workflow another one starts, once the server has it."""
        from temporalio.service import RPCError, RPCStatusCode

        handle = self.handle(workflow_id)
        for _ in range(400):
            try:
                await handle.describe()
                return handle
            except RPCError as err:
                if err.status != RPCStatusCode.NOT_FOUND:
                    raise
                await asyncio.sleep(0.05)
        raise AssertionError(f"{workflow_id} never started")


# --- phase 2 of each scenario: this commit's code takes the runs over --------------------------


async def v0_quote_converted(deploy: Deploy) -> dict:
    """A v0 quote (lifecycle 1) converted after the deploy: its `convert` update starts the
    policy's workflow as its child, on this code, with no quote id: that policy takes every
    patched path of a policy (policy-draft-lapses, policy-checked-transitions-<update id>,
    policy-schedule-workflow, policy-starts-settlement, bounded-write-policy-start-settlements),
    is activated and cancelled while ACCEPTED."""
    from models.temporal.ids import policy_schedule_workflow_id, policy_workflow_id
    from models.temporal.quotes import CONVERT_UPDATE_V0
    from workflows.policies import PolicyWorkflow

    state = deploy.state
    quote = deploy.handle(state["quote_workflow_id"])
    policy_id = await quote.execute_update(CONVERT_UPDATE_V0, result_type=str)
    assert await deploy.result(quote) == "ACCEPTED"
    policy = await deploy.started(policy_workflow_id(state["tenant_id"], policy_id))
    await policy.execute_update(PolicyWorkflow.activate)
    schedule = await deploy.started(policy_schedule_workflow_id(state["tenant_id"], policy_id))
    await deploy.result(schedule, 120)
    await policy.execute_update(PolicyWorkflow.cancel)
    assert await deploy.result(policy, 60) == "CANCELED"
    return {"from-v0-quote-converted": await quote.fetch_history(), "from-v0-quote-converted-policy": await policy.fetch_history()}


async def v0_draft(deploy: Deploy) -> dict:
    """A v0 draft (no lapse deadline: it passed that point on v0's code) activated after the
    deploy, then ACTIVE at its first risk start, then cancelled."""
    from workflows.policies import PolicyWorkflow

    state = deploy.state
    policy = deploy.handle(state["policy_workflow_id"])
    with deploy.env.auto_time_skipping_disabled():
        await policy.execute_update(PolicyWorkflow.activate)
    await schedule_done(deploy)
    start_at = dt.datetime.combine(dt.date.fromisoformat(state["start"]), dt.time(0), tzinfo=dt.timezone.utc)
    await deploy.until(start_at + dt.timedelta(days=3))
    assert (await policy.query(PolicyWorkflow.status))["status"] == "ACTIVE"
    with deploy.env.auto_time_skipping_disabled():
        await policy.execute_update(PolicyWorkflow.cancel)
    assert await deploy.result(policy, 60) == "CANCELED"
    return {"from-v0-policy-draft": await policy.fetch_history()}


async def v0_schedule_failing(deploy: Deploy) -> dict:
    """A v0 policy activated before the deploy whose schedule render (an awaited activity
    then) was failing: it exhausts its retries on this code, which starts the schedule's own
    workflow instead of failing the policy (policy-schedule-failure-not-fatal); the renderer
    is back for that workflow. Then cancelled while ACCEPTED."""
    from models.temporal.ids import policy_schedule_workflow_id
    from workflows.policies import PolicyWorkflow

    state = deploy.state
    policy = deploy.handle(state["policy_workflow_id"])
    schedule_id = policy_schedule_workflow_id(state["tenant_id"], state["policy_id"])
    await deploy.advance(dt.timedelta(minutes=15))  # the render's last attempts, a minute apart
    await deploy.started(schedule_id)
    RENDERER["down"] = False
    await deploy.result(deploy.handle(schedule_id), 120)
    with deploy.env.auto_time_skipping_disabled():
        await policy.execute_update(PolicyWorkflow.cancel)
    assert await deploy.result(policy, 60) == "CANCELED"
    return {"from-v0-policy-schedule-failing": await policy.fetch_history()}


async def v0_active(deploy: Deploy) -> dict:
    """A v0 policy ACTIVE since its first risk start (on v0's code) meets its second start
    after the deploy (policy-cancel-settles-first-1), and is cancelled while ACTIVE
    (policy-checked-transitions-<update id>)."""
    from workflows.policies import PolicyWorkflow

    state = deploy.state
    policy = deploy.handle(state["policy_workflow_id"])
    start = dt.date.fromisoformat(state["start"])
    second = dt.date(start.year + start.month // 12, start.month % 12 + 1, 1)
    await deploy.until(dt.datetime.combine(second, dt.time(0), tzinfo=dt.timezone.utc) + dt.timedelta(days=2))
    assert (await policy.query(PolicyWorkflow.status))["status"] == "ACTIVE"
    with deploy.env.auto_time_skipping_disabled():
        await policy.execute_update(PolicyWorkflow.cancel)
    assert await deploy.result(policy, 60) == "CANCELED"
    return {"from-v0-policy-active": await policy.fetch_history()}


async def v3_waiting(deploy: Deploy) -> dict:
    """The deploy finds a settlement waiting for a missing day (daily checks done on v3's
    code: 032a8a3, which dispatched no webhooks; a7cd5d8's settlements dispatched them
    without a marker and cannot replay here, docs/workflow-versioning.md) and its ended
    policy checking daily: the settlement switches at its next check
    (settlement-bounded-wait-<n>: daily until flagged, then weekly), the policy at its next
    check (policy-awaits-settlement-<n>: one activity the server retries). The day arrives
    two weeks after the flag; the period settles, the policy expires, the settlement closes
    after its revision window."""
    from models.db import observations as observations_db
    from models.domain.observations import ObservationIn
    from models.temporal.ids import settlement_workflow_id
    from models.temporal.settlement import DATA_CHANGED_SIGNAL
    from workflows.settlement import MISSING_DATA_WINDOW, REVISION_WINDOW, due_at

    state = deploy.state
    start, end = dt.date.fromisoformat(state["start"]), dt.date.fromisoformat(state["end"])
    settlement = deploy.handle(settlement_workflow_id(state["target_id"], start, end))
    policy = deploy.handle(state["policy_workflow_id"])
    await deploy.until(due_at(end) + MISSING_DATA_WINDOW + dt.timedelta(days=14))
    assert (await settlement.query("status"))["state"] == "FLAGGED"
    await observations_db.store_batch(
        [ObservationIn(state["target_id"], "IMD-RF-DAILY", "rainfall_mm", start, None, Decimal("7"), "IMD")]
    )
    with deploy.env.auto_time_skipping_disabled():
        await settlement.signal(DATA_CHANGED_SIGNAL)
    await deploy.advance(dt.timedelta(days=2))
    assert await deploy.result(policy, 60) == "EXPIRED"
    await deploy.advance(REVISION_WINDOW + dt.timedelta(days=1))
    assert await deploy.result(settlement, 60) == "SETTLED"
    return {
        "from-v3-settlement-waiting": await settlement.fetch_history(),
        "from-v3-policy-awaiting-settlement": await policy.fetch_history(),
    }


async def v4_ending(deploy: Deploy) -> dict:
    """The deploy finds a policy on its end timer and its settlement on its due timer (the
    same instant): the settlement's first run is this code's (settlement-dispatch-webhooks,
    settlement-bounded-revisions), the policy looks SETTLED_CHECK_MARGIN later
    (policy-awaits-settlement-0) and expires; the settlement closes after its window."""
    from models.temporal.ids import settlement_workflow_id
    from workflows.settlement import REVISION_WINDOW, due_at

    state = deploy.state
    start, end = dt.date.fromisoformat(state["start"]), dt.date.fromisoformat(state["end"])
    settlement = deploy.handle(settlement_workflow_id(state["target_id"], start, end))
    policy = deploy.handle(state["policy_workflow_id"])
    await deploy.until(due_at(end) + dt.timedelta(days=1))
    assert await deploy.result(policy, 60) == "EXPIRED"
    await deploy.advance(REVISION_WINDOW)
    assert await deploy.result(settlement, 60) == "SETTLED"
    return {"from-v4-policy-ending": await policy.fetch_history(), "from-v4-settlement-due": await settlement.fetch_history()}


async def schedule_done(deploy: Deploy) -> None:
    from models.temporal.ids import policy_schedule_workflow_id

    schedule = await deploy.started(policy_schedule_workflow_id(deploy.state["tenant_id"], deploy.state["policy_id"]))
    with deploy.env.auto_time_skipping_disabled():
        await asyncio.wait_for(schedule.result(), 120)


RENDERER = {"down": False}

from temporalio import activity  # noqa: E402

from activities.documents import PolicyScheduleRequest, render_policy_schedule  # noqa: E402


@activity.defn(name="render_policy_schedule")
async def render_while_up(request: PolicyScheduleRequest):
    """The renderer, down while RENDERER says so."""
    from temporalio.exceptions import ApplicationError

    if RENDERER["down"]:
        raise ApplicationError("the renderer is down")
    return await render_policy_schedule(request)


def render_overrides() -> dict:
    return {"render_policy_schedule": render_while_up}


# name: (older commit, its phase-1 script, phase-1 scenario, server, phase 2, faults)
SCENARIOS = {
    "v0-quote-converted": (V0, "v0.py", "quote", "dev", v0_quote_converted, None),
    "v0-policy-draft": (V0, "v0.py", "draft", "skipping", v0_draft, None),
    "v0-policy-schedule-failing": (V0, "v0.py", "schedule-failing", "skipping", v0_schedule_failing, "renderer"),
    "v0-policy-active": (V0, "v0.py", "active", "skipping", v0_active, None),
    "v3-settlement-waiting": (V3, "settlement.py", "waiting", "skipping", v3_waiting, None),
    "v4-policy-ending": (V4, "settlement.py", "ending", "skipping", v4_ending, None),
}


async def start_server(kind: str):
    from temporalio.api.enums.v1 import IndexedValueType
    from temporalio.api.operatorservice.v1 import AddSearchAttributesRequest
    from temporalio.testing import WorkflowEnvironment

    from models.temporal.converter import data_converter
    from models.temporal.search_attributes import SEARCH_ATTRIBUTES, search_attribute_keys

    binaries = Path(sys.executable).parent
    if kind == "dev":
        return await WorkflowEnvironment.start_local(
            data_converter=data_converter, search_attributes=search_attribute_keys(),
            dev_server_existing_path=str(binaries / "temporal"), dev_server_extra_args=["--log-level", "error"],
        )
    env = await WorkflowEnvironment.start_time_skipping(
        test_server_existing_path=str(binaries / "temporal-test-server"), data_converter=data_converter
    )
    indexed = {"Keyword": IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD, "Datetime": IndexedValueType.INDEXED_VALUE_TYPE_DATETIME, "Text": IndexedValueType.INDEXED_VALUE_TYPE_TEXT}
    await env.client.operator_service.add_search_attributes(
        AddSearchAttributesRequest(
            namespace=env.client.namespace, search_attributes={n: indexed[k] for n, k in SEARCH_ATTRIBUTES.items()}
        )
    )
    return env


def worktree(commit: str) -> Path:
    path = Path(tempfile.mkdtemp(prefix=f"parametric-{commit[:7]}-")) / "tree"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(path), commit], check=True, capture_output=True)
    return path


async def record(name: str, label: str) -> dict:
    from temporalio.worker import Worker

    from models.db.core import close_pool, migrate, open_pool
    from models.db.reference_data import load_reference_data
    from workflows.worker import Workers

    commit, script, phase1, kind, phase2, faults = SCENARIOS[name]
    for stale in Path(VAR_DIR).glob("parametric.sqlite*"):  # each scenario its own database
        stale.unlink()
    env = await start_server(kind)
    tree = worktree(commit)
    queue = f"cross-{uuid.uuid4()}"
    try:
        out = Path(VAR_DIR) / f"{name}.json"
        child_env = {k: v for k, v in os.environ.items() if k != "PICCOLO_CONF"}
        child_env.update(PYTHONPATH=str(tree), PARAMETRIC_VAR_DIR=VAR_DIR)
        target = env.client.service_client.config.target_host
        print(f"{name}: phase 1 on {commit[:7]} ({phase1})", flush=True)
        subprocess.run(
            [sys.executable, str(HERE / "crossing" / script), phase1, target, queue, str(out)],
            cwd=tree, env=child_env, check=True,
        )
        state = json.loads(out.read_text())
        print(f"{name}: phase 2 on this commit", flush=True)
        await open_pool()
        try:
            await migrate()  # the deploy: the release's migrations over the older schema
            await load_reference_data()
            overrides = render_overrides() if faults == "renderer" else None
            RENDERER["down"] = faults == "renderer"
            async with Workers(env.client, queue, pricing_processes=0, activity_overrides=overrides), Worker(
                env.client, task_queue=f"{queue}-clock", workflows=[CrossClockWorkflow]
            ):
                return await phase2(Deploy(env, queue, state))
        finally:
            await close_pool()
    finally:
        await env.shutdown()
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=False, capture_output=True)


def add_to_manifest(path: Path) -> None:
    """As tests/replay/record.py does (importing it would move PARAMETRIC_VAR_DIR)."""
    histories = HERE / "histories"
    with (histories / "MANIFEST.sha256").open("a") as manifest:
        manifest.write(f"{hashlib.sha256(path.read_bytes()).hexdigest()}  {path.relative_to(histories)}\n")


async def main_async(label: str, names: list[str]) -> None:
    out = HERE / "histories" / label
    out.mkdir(parents=True, exist_ok=True)
    for name in names:
        histories = await record(name, label)
        for history_name, history in sorted(histories.items()):
            path = out / f"{history_name}.json"
            if path.exists():
                print(f"{path.relative_to(ROOT)} exists: left as it is (recorded histories never change)")
                continue
            path.write_text(history.to_json())
            add_to_manifest(path)
            print(f"{path.relative_to(ROOT)}: {len(history.events)} events")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("label", help="folder under tests/replay/histories, e.g. v5")
    ap.add_argument("scenarios", nargs="*", help=f"default: all of {', '.join(SCENARIOS)}")
    args = ap.parse_args()
    asyncio.run(main_async(args.label, args.scenarios or list(SCENARIOS)))


if __name__ == "__main__":
    main()
