"""The data's own basis risk (issue 34; docs/observations.md, "The data's own basis risk"):
`GET /internal/observations/basis-risk?month=YYYY-MM`, for data, operations and actuary staff.
Per data set pair (primary vs calibrated fallback, provisional vs final) and index definition,
over the covers whose risk period starts in the month: how often the trigger decision flips and
the mean absolute difference of the index, from the observations stored now."""

from __future__ import annotations

import datetime as dt
from typing import Annotated

from litestar import Controller, Response, get
from litestar.params import QueryParameter

from api.auth.roles import Caller, callers
from api.openapi_docs import AUTHED, problems, tenant_header
from api.problems import InvalidInput
from api.responses import DecimalNumberResponse
from models.db import basis_risk as basis_risk_db
from models.domain import bordereaux as months
from models.domain.basis_risk import basis_risk, unit_of
from models.wire.basis_risk import BasisRiskRow, BasisRiskView

METHOD = (
    "covers whose risk period starts in the month, on a data set with a source ladder; PRIMARY_FALLBACK: the index "
    "on the primary's highest rungs (final, else provisional) against the index on the fallback alone, calibrated "
    "to the primary on their stored overlap in the 3 years before the period (at the target, else pooled); "
    "PROVISIONAL_FINAL: the index on the primary's provisional values against its final values; a cover counts "
    "when both are complete (no SUSPECT value); it flips when one triggers and the other does not"
)

MONTH = Annotated[str, QueryParameter(description="YYYY-MM: the covers whose risk period starts in this month")]


def month_first(text: str):
    try:
        return months.parse_month(text)
    except months.BadMonth as bad:
        raise InvalidInput.of_field("month", str(bad)) from None


class BasisRiskController(Controller):
    opt = callers(Caller.DATA, Caller.OPERATIONS, Caller.ACTUARY)
    path = "/internal/observations/basis-risk"
    tags = ["Internal surface"]
    parameters = tenant_header()

    @get(operation_id="getDataBasisRisk",
         summary="The data's own basis risk of a month: trigger flips and index differences between sources",
         description="Per data set pair (primary vs calibrated fallback, provisional vs final) and index definition, "
                     "over the covers whose risk period starts in `month`: how many were compared, how often the "
                     "trigger decision flips, the mean and largest absolute difference of the index, from the "
                     "observations stored now (docs/observations.md, \"The data's own basis risk\").",
         responses=problems(*AUTHED))
    async def basis_risk(self, month: MONTH) -> Response[BasisRiskView]:
        first = month_first(month)
        last = months.next_month(first) - dt.timedelta(days=1)
        rows = basis_risk(await basis_risk_db.covers_between(first, last))
        view = BasisRiskView(month=months.month_text(first), method=METHOD, rows=[BasisRiskRow(
            data_set=r.data_set, other=r.other, comparison=r.comparison, index_code=r.index_code,
            unit=unit_of(r.index_code), covers=r.covers, compared=r.compared, flips=r.flips, flip_rate=r.flip_rate,
            mean_abs_difference=r.mean_abs_difference, max_abs_difference=r.max_abs_difference,
        ) for r in rows])
        return DecimalNumberResponse(view, status_code=200)
