"""Taking in observations: validate a batch as a whole, store it, and tell the settlement
workflows whose period the new or revised values fall in (docs/observations.md). Shared by
`POST /internal/observations` and `parametric observations import`."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict

from temporalio.client import Client
from temporalio.common import WorkflowIDConflictPolicy

from api.problems import InvalidInput
from models.clock import utcnow
from models.db import observations as observations_db
from models.db.tables import Settlement
from models.domain.observations import MAX_BATCH, ObservationIn, RowProblem, check_batch, parse_csv_rows
from models.temporal.ids import settlement_workflow_id
from models.temporal.settlement import DATA_CHANGED_SIGNAL, SETTLEMENT_WORKFLOW, SettlementInput
from models.wire.common import FieldError


class BatchRefused(InvalidInput):
    """400: the rows at fault, each named `observations[i].field`."""


async def validate(rows: list[ObservationIn], max_rows: int | None = MAX_BATCH) -> list[RowProblem]:
    problems = check_batch(rows, today=utcnow().date(), max_rows=max_rows)
    if not problems:
        problems = await observations_db.unknown_targets(rows)
    return problems


async def validate_file(records: list[dict[str, str]]) -> tuple[list[ObservationIn], list[RowProblem]]:
    """A CSV file's records: read, then checked as one batch of any size."""
    rows, problems = parse_csv_rows(records)
    if problems:
        return rows, problems
    return rows, await validate(rows, max_rows=None)


def refusal(problems: list[RowProblem]) -> BatchRefused:
    shown = problems[:100]
    errors = [
        FieldError(field="observations" if p.row < 0 else f"observations[{p.row}].{p.field}", message=p.message)
        for p in shown
    ]
    rows = sorted({p.row for p in problems if p.row >= 0})
    more = f" (first {len(shown)} shown)" if len(problems) > len(shown) else ""
    detail = f"{len(problems)} problem(s) in {len(rows)} row(s){more}; nothing was written"
    return BatchRefused(detail, errors=errors)


async def notify_settlements(temporal: Client, task_queue: str, rows: list[ObservationIn]) -> int:
    """Signal (or start again, if closed) the settlement of every coverage whose period holds
    a day of the batch and whose settlement has begun (waiting, flagged or settled): data it
    waited for, or a revision of data it settled on. Returns how many were told."""
    days_by_target: dict[str, set[dt.date]] = defaultdict(set)
    for r in rows:
        days_by_target[r.monitoring_target_id].add(r.day)
    periods: set[tuple[str, dt.date, dt.date]] = set()
    for target, days in days_by_target.items():
        found = await Settlement.select(Settlement.period_start, Settlement.period_end).where(
            (Settlement.monitoring_target_id == target)
            & (Settlement.period_start <= max(days))
            & (Settlement.period_end >= min(days))
        )
        for f in found:
            if any(f["period_start"] <= d <= f["period_end"] for d in days):
                periods.add((target, f["period_start"], f["period_end"]))
    for target, start, end in sorted(periods):
        await temporal.start_workflow(
            SETTLEMENT_WORKFLOW,
            SettlementInput(target_id=target, start=start, end=end),
            id=settlement_workflow_id(target, start, end),
            task_queue=task_queue,
            start_signal=DATA_CHANGED_SIGNAL,
            id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        )
    return len(periods)


async def ingest(rows: list[ObservationIn], temporal: Client | None, task_queue: str):
    """Validate, store, notify; raises BatchRefused (nothing written) for a bad batch."""
    problems = await validate(rows)
    if problems:
        raise refusal(problems)
    outcome = await observations_db.store_batch(rows)
    changed = rows if (outcome.new or outcome.revised) else []
    notified = await notify_settlements(temporal, task_queue, changed) if temporal is not None and changed else 0
    return outcome, notified
