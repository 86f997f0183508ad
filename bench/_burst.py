"""What a pricing burst asks of the Temporal server (bench/api.py, scenarios g1 and g).

- `ServerRequests`: the server's requests by service and operation, read from its Prometheus
  endpoint (`service_requests`, `persistence_requests`) before and after a scenario, so the
  burst's share of the server shows beside a quiet scenario's.
- `burst_work`: the burst's own workflows (every workflow but quotes, policies and the bare
  baselines' that had an event in the window) counted from their histories: workflows
  started, workflow tasks, activity tasks, local activities, timers and events, inside the
  measured window, and per coverage the burst priced.
"""

from __future__ import annotations

import re
import urllib.request
from collections import Counter
from dataclasses import dataclass, field

# Workflows of the conversions themselves and of the baselines: not the burst's.
NOT_THE_BURST = {"QuoteWorkflow", "PolicyWorkflow", "BareUpdateWorkflow"}
_LINE = re.compile(r'^(service_requests|persistence_requests)\{([^}]*)\}\s+([0-9.e+]+)$')
_LABEL = re.compile(r'(\w+)="([^"]*)"')


def server_requests(metrics_port: int) -> Counter:
    """The Temporal server's request counters so far: `(metric, service, operation)` → count."""
    text = urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=10).read().decode()
    counts: Counter = Counter()
    for line in text.splitlines():
        match = _LINE.match(line)
        if match:
            labels = dict(_LABEL.findall(match.group(2)))
            key = (match.group(1), labels.get("service_name", "?"), labels.get("operation", "?"))
            counts[key] += float(match.group(3))
    return counts


@dataclass
class BurstWork:
    """The burst's workflows' history events inside a window."""

    coverages: int = 0  # coverages the burst priced (the CLI's count)
    started: int = 0  # workflow executions started in the window
    events: int = 0
    workflow_tasks: int = 0  # completed workflow tasks
    activities: int = 0  # activity tasks scheduled
    local_activities: int = 0  # markers (local activities and patches)
    timers: int = 0
    by_type: Counter = field(default_factory=Counter)  # workflow type → events

    def line(self) -> str:
        per = (lambda n: f"{n / self.coverages:.2f}") if self.coverages else (lambda n: "?")
        return (f"{self.coverages} coverages priced; in the window: {self.started} workflows started "
                f"({per(self.started)} per coverage), {self.workflow_tasks} workflow tasks ({per(self.workflow_tasks)}), "
                f"{self.activities} activity tasks ({per(self.activities)}), {self.timers} timers ({per(self.timers)}), "
                f"{self.local_activities} markers ({per(self.local_activities)}), {self.events} events "
                f"({per(self.events)}); events by workflow type {dict(self.by_type)}")


async def burst_work(client, since: float, until: float, coverages: int) -> BurstWork:
    """Count the burst's history events between `since` and `until` (epoch seconds)."""
    import datetime as dt

    start = dt.datetime.fromtimestamp(since - 60, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    work = BurstWork(coverages=coverages)
    async for execution in client.list_workflows(f'StartTime > "{start}" OR ExecutionStatus = "Running"'):
        if execution.workflow_type in NOT_THE_BURST:
            continue
        history = await client.get_workflow_handle(execution.id, run_id=execution.run_id).fetch_history()
        for event in history.events:
            at = event.event_time.ToDatetime(dt.timezone.utc).timestamp()
            if not since <= at <= until:
                continue
            kind = event.WhichOneof("attributes")
            work.events += 1
            work.by_type[execution.workflow_type] += 1
            if kind == "workflow_execution_started_event_attributes":
                work.started += 1
            elif kind == "workflow_task_completed_event_attributes":
                work.workflow_tasks += 1
            elif kind == "activity_task_scheduled_event_attributes":
                work.activities += 1
            elif kind == "marker_recorded_event_attributes":
                work.local_activities += 1
            elif kind == "timer_started_event_attributes":
                work.timers += 1
    return work


def top_requests(before: Counter, after: Counter, seconds: float, service: str = "frontend", top: int = 8) -> str:
    """The service's busiest operations between two readings, per second."""
    diff = Counter({k: after[k] - before.get(k, 0) for k in after if k[0] == "service_requests" and k[1] == service})
    total = sum(diff.values())
    parts = [f"{op} {n / seconds:.0f}" for (_, _, op), n in diff.most_common(top) if n > 0]
    return f"{total / seconds:.0f}/s: " + ", ".join(parts)


def persistence_per_second(before: Counter, after: Counter, seconds: float) -> float:
    return sum(after[k] - before.get(k, 0) for k in after if k[0] == "persistence_requests") / seconds
