"""The quality checks' SUSPECT values and missing days, and their acceptance by data staff
(issue 34; docs/observations.md, "Quality checks"). Data and operations staff list a
month's; a data staff member accepts listed values (stored again as GOOD, `accepted:<check>`;
the settlements over their days are told) or replaces them through POST /internal/observations."""

from __future__ import annotations

import datetime as dt
from typing import Annotated

from litestar import Controller, get, post
from litestar.di import NamedDependency, Provide
from litestar.params import JSONBody, QueryParameter
from temporalio.client import Client

from api.auth.roles import Caller, callers
from api.auth.tokens import Principal
from api.dates import checked_day
from api.deps import provide_temporal
from api.openapi_docs import AUTHED, problems, tenant_header
from api.problems import InvalidInput
from api.settlement.observations import refusal, tell_or_leave_to_sweep
from models.clock import business_today
from models.db import observation_quality as quality_db
from models.domain.capacity import month_bounds, parse_month
from models.settings import Settings
from models.temporal.queues import task_queue
from models.wire.observation_quality import (
    MissingDays,
    QualityAcceptance,
    QualityAccepted,
    QualityList,
    SuspectValue,
)


def month_span(text: str) -> tuple[dt.date, dt.date]:
    """First and last day of a YYYY-MM month in the service's calendar; 400 naming `month` otherwise."""
    try:
        return month_bounds(parse_month(text or ""))
    except ValueError as bad:
        raise InvalidInput.of_field("month", str(bad)) from None


def _suspect(row: dict) -> SuspectValue:
    return SuspectValue(
        monitoring_target_id=row["monitoring_target_id"], data_set=row["data_set"], variable=row["variable"],
        day=row["observed_on"], hour=row["hour"], value=row["value"], source=row["source"],
        provisional=row["provisional"], revision=row["revision"], check=row["quality_check"] or "reported",
        submitted_by=row["submitted_by"], received_at=row["received_at"],
    )


class ObservationQualityController(Controller):
    path = "/internal/observations/quality"
    tags = ["Internal surface"]
    parameters = tenant_header()
    dependencies = {"temporal": Provide(provide_temporal)}

    @get(
        operation_id="listObservationQuality",
        opt=callers(Caller.DATA, Caller.OPERATIONS),
        summary="A month's SUSPECT values (latest revisions) with the check each failed, and its missing days",
        description=(
            "Every stored value is checked (physical range, spike against the target's 1-in-1000 day, flat "
            "line, neighbour consistency); one that fails is stored SUSPECT naming the check and is never paid "
            "until a data staff member accepts it (`POST .../accept`) or replaces it (POST /internal/observations). "
            "`missing`: series with values in the month but not on every day of it."
        ),
        responses=problems(*AUTHED),
    )
    async def list_quality(
        self, month: Annotated[str, QueryParameter(description="YYYY-MM")] = "",
    ) -> QualityList:
        first, last = month_span(month)
        rows = await quality_db.suspect_values(first, last)
        today = business_today()  # observation days are Indian ones (IST)
        missing = await quality_db.missing_in(first, min(last, today)) if first <= today else []
        return QualityList(
            month=f"{first:%Y-%m}", suspect=[_suspect(r) for r in rows[: quality_db.MAX_LISTED]],
            more=len(rows) > quality_db.MAX_LISTED,
            missing=[MissingDays(m["monitoring_target_id"], m["data_set"], m["variable"], m["days"]) for m in missing],
        )

    @post(
        "/accept",
        operation_id="acceptSuspectObservations",
        opt=callers(Caller.DATA),
        summary="Accept SUSPECT values: stored again as GOOD, naming the check accepted and who accepted it",
        description=(
            "Each listed value's latest revision must be SUSPECT (else 400 naming `observations[i]`, nothing "
            "stored); a value accepted already is left (`alreadyAccepted`). The settlements over the days are "
            "told at once, or by the settlement-notices sweep."
        ),
        status_code=200,
        responses=problems(*AUTHED),
    )
    async def accept(
        self, data: JSONBody[QualityAcceptance], principal: NamedDependency[Principal],
        temporal: NamedDependency[Client], settings: NamedDependency[Settings],
    ) -> QualityAccepted:
        reason = data.reason.strip()
        if not reason:
            raise InvalidInput.of_field("reason", "required: say why the values are right")
        for i, v in enumerate(data.observations):  # the service's calendar, before any lookup
            checked_day(v.day, f"observations[{i}].day")
        values = [quality_db.ValueKey(v.monitoring_target_id, v.data_set, v.variable, v.day, v.hour) for v in data.observations]
        try:
            done = await quality_db.accept(values, principal.actor, reason)
        except quality_db.NotAcceptable as err:
            raise refusal(err.problems) from None
        notified = await tell_or_leave_to_sweep(temporal, task_queue(settings.task_queue, "lifecycle"), done.notices)
        return QualityAccepted(accepted=done.accepted, already_accepted=done.already, settlements_notified=notified)
