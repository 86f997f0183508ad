"""Taking in observations over HTTP: the 400 for a refused batch, and a validated batch
submitted (stored, or its revisions of settled amounts held for four eyes: the held
revision's workflow is started; the settlements over the stored rows' days are told)."""

from __future__ import annotations

from temporalio.client import Client

from api.problems import InvalidInput
from models.db import observation_revisions as revisions_db
from models.db import observations as observations_db
from models.domain.observations import ObservationIn, Provenance, RowProblem
from models.settings import Settings
from models.temporal.observations import held_input, hold_in_temporal
from models.temporal.queues import task_queue
from models.temporal.settlement import tell_settlements
from models.wire.common import FieldError
from models.wire.settlement import ObservationBatchResult


class BatchRefused(InvalidInput):
    """400: the rows at fault, each named `observations[i].field`."""


def refusal(problems: list[RowProblem]) -> BatchRefused:
    shown = problems[:100]
    errors = [
        FieldError(
            field="observations" if p.row < 0 else f"observations[{p.row}]" + (f".{p.field}" if p.field else ""),
            message=p.message,
        )
        for p in shown
    ]
    rows = sorted({p.row for p in problems if p.row >= 0})
    more = f" (first {len(shown)} shown)" if len(problems) > len(shown) else ""
    detail = f"{len(problems)} problem(s) in {len(rows)} row(s){more}; nothing was written"
    return BatchRefused(detail, errors=errors)


async def submit(rows: list[ObservationIn], provenance: Provenance, temporal: Client, settings: Settings) -> ObservationBatchResult:
    """Store a validated batch (`models.db.observation_revisions.submit_batch`)."""
    try:
        outcome = await revisions_db.submit_batch(rows, provenance)
    except revisions_db.ReasonRequired as err:
        raise InvalidInput.of_field(
            "reason", f"required: the batch revises {err.revisions} stored value(s) (say why); nothing was written"
        ) from None
    lifecycle = task_queue(settings.task_queue, "lifecycle")
    if outcome.revision_id is not None:
        await hold_in_temporal(temporal, lifecycle, held_input(await revisions_db.revision(outcome.revision_id)))
    notified = 0
    if outcome.stored:
        notified = await tell_settlements(temporal, lifecycle, await observations_db.periods_touched(outcome.stored))
    return ObservationBatchResult(
        received=len(rows), new=outcome.new, revised=outcome.revised, unchanged=outcome.unchanged,
        settlements_notified=notified, held=outcome.held, held_revision_id=outcome.revision_id,
    )
