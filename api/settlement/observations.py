"""Taking in observations over HTTP and from the CLI: the 400 for a refused batch
(the validation, storage and notification are `models.db.observations.ingest`)."""

from __future__ import annotations

from api.problems import InvalidInput
from models.domain.observations import RowProblem
from models.wire.common import FieldError


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
