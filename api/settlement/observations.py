"""Taking in observations over HTTP: the 400 for a refused batch, and a validated batch
submitted (stored, or its revisions of settled amounts held for four eyes: the held
revision's workflow is started; the settlements over the stored rows' days are told).

Telling settlements right after the commit is a shortcut: the rows' settlement notices were
written in their transaction, and if this process dies or the signal fails before they are
marked told, the `settlement-notices` sweep tells them (docs/observations.md)."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence
from functools import partial

from temporalio.client import Client
from temporalio.exceptions import WorkflowAlreadyStartedError
from temporalio.service import RPCError

from api.problems import InvalidInput
from models.db import observation_revisions as revisions_db
from models.db import observations as observations_db
from models.domain.observations import ObservationIn, Provenance, RowProblem
from models.settings import Settings
from models.temporal.observations import HeldRevisionInput, held_input, revision_hold_start
from models.temporal.queues import task_queue
from models.temporal.settlement import data_changed_start
from models.wire.common import FieldError
from models.wire.settlement import ObservationBatchResult

log = logging.getLogger("parametric.observations")


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


async def tell_settlements(temporal: Client, task_queue: str, notices: Sequence[uuid.UUID]) -> int:
    """Tell the settlements of the notices (written with rows just committed) that their
    data changed, then mark the notices told (`models.db.observations.tell_notices`);
    returns how many settlements were told."""
    found = await observations_db.notices_to_tell(notices)
    return (await observations_db.tell_notices(found, partial(_signal, temporal, task_queue))).settlements


async def tell_or_leave_to_sweep(temporal: Client, task_queue: str, notices: Sequence[uuid.UUID]) -> int:
    """`tell_settlements` after the rows' commit; if Temporal cannot be reached, 0 and the
    settlement-notices sweep tells them (a committed write never answers 5xx)."""
    try:
        return await tell_settlements(temporal, task_queue, notices)
    except (RPCError, RuntimeError) as err:
        log.warning("settlements not told now (%s): the settlement-notices sweep tells them", err)
        return 0


async def _signal(temporal: Client, task_queue: str, period: observations_db.Period) -> bool:
    """Signal-with-start the settlement; False if its revision window is over."""
    try:
        await temporal.start_workflow(**data_changed_start(*period, task_queue))
    except WorkflowAlreadyStartedError:
        log.warning("settlement %s:%s..%s is past its revision window: stored data does not re-settle it", *period)
        return False
    return True


async def hold_in_temporal(temporal: Client, task_queue: str, held: HeldRevisionInput) -> str:
    """Start the held revision's workflow, or find it running; returns its id."""
    start = revision_hold_start(held, task_queue)
    await temporal.start_workflow(**start)
    return start["id"]


async def submit(rows: list[ObservationIn], provenance: Provenance, temporal: Client, settings: Settings) -> ObservationBatchResult:
    """Store a validated batch (`models.db.observation_revisions.submit_batch`)."""
    try:
        outcome = await revisions_db.submit_batch(rows, provenance)
    except revisions_db.ReasonRequired as err:
        raise InvalidInput.of_field(
            "reason", f"required: the batch revises {err.revisions} stored value(s) (say why); nothing was written"
        ) from None
    # The batch is committed: what follows is found again if it fails here (Temporal
    # unreachable), so the answer says what was stored and told, never a 5xx a client would
    # retry (its retry finds the rows unchanged).
    lifecycle = task_queue(settings.task_queue, "lifecycle")
    if outcome.revision_id is not None:
        try:
            await hold_in_temporal(temporal, lifecycle, held_input(await revisions_db.revision(outcome.revision_id)))
        except (RPCError, RuntimeError) as err:  # started by the start sweep within a minute or two (or a decision)
            log.warning("held revision %s: its workflow not started now (%s)", outcome.revision_id, err)
    notified = await tell_or_leave_to_sweep(temporal, lifecycle, outcome.notices)
    return ObservationBatchResult(
        received=len(rows), new=outcome.new, revised=outcome.revised, unchanged=outcome.unchanged,
        settlements_notified=notified, held=outcome.held, held_revision_id=outcome.revision_id,
    )
