"""Task queues by what their workers do (workflows/worker.py).

Each is `<base>` + suffix (base: TEMPORAL_TASK_QUEUE). lifecycle: quote and policy workflows
and their short database writes; pricing: the catalogue's orchestration and Monte Carlo on a
process pool (a fast quote's too); documents: document workflows and WeasyPrint; webhooks:
deliveries; settlement: `settle_period`, a month end's database work. A burst of one never
queues ahead of another's work."""

from __future__ import annotations

QUEUE_SUFFIXES = {
    "lifecycle": "",
    "pricing": "-pricing",
    "documents": "-documents",
    "webhooks": "-webhooks",
    "settlement": "-settlement",
}


def task_queue(base: str, kind: str) -> str:
    return base_queue(base) + QUEUE_SUFFIXES[kind]


def base_queue(queue: str) -> str:
    """`parametric` for `parametric` or `parametric-<kind>` (any suffix above)."""
    for suffix in QUEUE_SUFFIXES.values():
        if suffix and queue.endswith(suffix):
            return queue[: -len(suffix)]
    return queue
