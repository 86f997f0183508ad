"""`parametric check-deployment`: what a configured cluster and database lack for this
service to run (docs/deployment.md). Read-only: it asks, it never creates.

- Temporal: reachable (TLS and API key as the service connects); the namespace exists
  (its retention is shown);
- the search attributes the workflows upsert (models/temporal/search_attributes.py),
  registered with their types: a workflow upserting a missing one fails its task;
- the database: reachable, and its schema version, as the migrations applied against those
  this code ships (pending ones: run `parametric migrate` before the API starts);
- every task queue has a poller of each kind of task it carries (workflows/worker.py):
  a queue without one holds its work until a worker starts.

Each finding is a line `ok` or `MISSING`; the exit status is 1 when anything is missing.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

from models.settings import Settings
from models.temporal.queues import task_queue
from models.temporal.search_attributes import SEARCH_ATTRIBUTES

# The kinds of task each queue carries (workflows/worker.py builds its workers so): the
# settlement queue has no workflow, only settle_period.
QUEUE_TASKS: dict[str, tuple[str, ...]] = {
    "lifecycle": ("workflow", "activity"),
    "pricing": ("workflow", "activity"),
    "documents": ("workflow", "activity"),
    "webhooks": ("workflow", "activity"),
    "settlement": ("activity",),
}


@dataclasses.dataclass
class Finding:
    check: str  # temporal | namespace | search-attributes | database | schema | task-queue
    ok: bool
    detail: str
    missing: list[str] = dataclasses.field(default_factory=list)

    def line(self) -> str:
        return f"{'ok     ' if self.ok else 'MISSING'}  {self.check:<18} {self.detail}"


async def _temporal(settings: Settings) -> tuple[Any, list[Finding]]:
    from models.temporal.client import connect

    try:
        client = await asyncio.wait_for(connect(settings, retries=1), 15)
        await asyncio.wait_for(client.service_client.check_health(), 10)
    except Exception as exc:  # noqa: BLE001 - unreachable, refused TLS, bad key: all "missing"
        return None, [Finding("temporal", False, str(exc), [settings.temporal_address])]
    return client, [Finding("temporal", True, f"{settings.temporal_address} answers")]


async def _namespace(client: Any, settings: Settings) -> Finding:
    from temporalio.api.workflowservice.v1 import DescribeNamespaceRequest

    name = settings.temporal_namespace
    try:
        described = await client.workflow_service.describe_namespace(DescribeNamespaceRequest(namespace=name))
    except Exception as exc:  # noqa: BLE001 - NOT_FOUND, PERMISSION_DENIED
        return Finding("namespace", False, f"{name}: {exc}", [name])
    retention = described.config.workflow_execution_retention_ttl.ToTimedelta()
    return Finding("namespace", True, f"{name} (retention {retention.days} days)")


async def _search_attributes(client: Any, settings: Settings) -> Finding:
    from temporalio.api.enums.v1 import IndexedValueType
    from temporalio.api.operatorservice.v1 import ListSearchAttributesRequest

    try:
        listed = await client.operator_service.list_search_attributes(
            ListSearchAttributesRequest(namespace=settings.temporal_namespace)
        )
    except Exception as exc:  # noqa: BLE001
        return Finding("search-attributes", False, f"cannot list them: {exc}", list(SEARCH_ATTRIBUTES))
    have = {name: IndexedValueType.Name(kind).removeprefix("INDEXED_VALUE_TYPE_") for name, kind in listed.custom_attributes.items()}
    missing = [f"{name} ({kind})" for name, kind in SEARCH_ATTRIBUTES.items() if have.get(name) != kind.upper()]
    if missing:
        return Finding("search-attributes", False, "not registered (or of another type): " + ", ".join(missing), missing)
    return Finding("search-attributes", True, f"all {len(SEARCH_ATTRIBUTES)} registered")


async def _task_queues(client: Any, settings: Settings) -> list[Finding]:
    from temporalio.api.enums.v1 import TaskQueueType
    from temporalio.api.taskqueue.v1 import TaskQueue
    from temporalio.api.workflowservice.v1 import DescribeTaskQueueRequest

    types = {"workflow": TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW, "activity": TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY}
    findings = []
    for kind, tasks in QUEUE_TASKS.items():
        name = task_queue(settings.task_queue, kind)
        without, counts = [], []
        for task in tasks:
            try:
                described = await client.workflow_service.describe_task_queue(
                    DescribeTaskQueueRequest(namespace=settings.temporal_namespace, task_queue=TaskQueue(name=name),
                                             task_queue_type=types[task])
                )
                pollers = len(described.pollers)
            except Exception:  # noqa: BLE001 - counted as no poller
                pollers = 0
            counts.append(f"{pollers} {task} poller{'s' if pollers != 1 else ''}")
            if not pollers:
                without.append(f"{name} ({task})")
        detail = f"{name} [{kind}]: {', '.join(counts)}"
        if without:
            detail += f" — start `parametric worker --queue {kind}`"
        findings.append(Finding("task-queue", not without, detail, without))
    return findings


async def _database(settings: Settings) -> list[Finding]:
    from piccolo.apps.migrations.commands.base import BaseMigrationManager
    from piccolo.apps.migrations.tables import Migration
    from piccolo.conf.apps import Finder

    from models.db.core import close_pool, open_pool, ping

    where = settings.database_url.split("@")[-1]  # never the password of a URL
    try:
        await open_pool()
    except Exception as exc:  # noqa: BLE001
        return [Finding("database", False, f"cannot open {where}: {exc}", [where])]
    try:
        try:
            await asyncio.wait_for(ping(), 10)
        except Exception as exc:  # noqa: BLE001
            return [Finding("database", False, f"cannot reach {where}: {exc}", [where])]
        app = Finder().get_app_config("parametric")
        shipped = sorted(BaseMigrationManager().get_migration_modules(app.resolved_migrations_folder_path))
        applied: set[str] = set()
        if await Migration.table_exists().run():
            rows = await Migration.select(Migration.name).where(Migration.app_name == "parametric").run()
            applied = {r["name"] for r in rows}
        pending = [m for m in shipped if m not in applied]
        ahead = sorted(applied - set(shipped))
        found = [Finding("database", True, f"{where} answers")]
        latest = max(applied & set(shipped), default="none")
        if pending:
            shown = pending if len(pending) <= 6 else [*pending[:3], "…", *pending[-2:]]
            found.append(Finding("schema", False, f"{len(pending)} of {len(shipped)} migrations not applied "
                                 f"(run `parametric migrate`): {', '.join(shown)}", pending))
        else:
            note = f"; {len(ahead)} applied that this code does not ship: {', '.join(ahead)}" if ahead else ""
            found.append(Finding("schema", True, f"version {latest} ({len(shipped)} migrations applied){note}"))
        return found
    finally:
        await close_pool()


async def check_deployment(settings: Settings, pollers: bool = True) -> list[Finding]:
    """Every finding, in the order ops read them (`pollers=False`: before the workers start,
    as a deployment's step between the migrations and the service)."""
    findings: list[Finding] = []
    client, found = await _temporal(settings)
    findings += found
    if client is not None:
        findings.append(await _namespace(client, settings))
        findings.append(await _search_attributes(client, settings))
        if pollers:
            findings += await _task_queues(client, settings)
    findings += await _database(settings)
    return findings
