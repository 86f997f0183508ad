"""Internal surface: a coverage's pricing runs (audit), reruns by actuaries and their
publication by a second actuary (four eyes, docs/catalogue.md)."""

from __future__ import annotations

import uuid
from typing import Annotated

from api.responses import DecimalNumberResponse
from litestar import Controller, Response, get, post
from litestar.di import NamedDependency, Provide
from litestar.params import Body, FromPath
from temporalio.client import Client

from api.auth.tokens import Principal
from api.deps import provide_temporal
from api.openapi_docs import AUTHED, problems, tenant_header
from api.pricing.responses import pricing_run_out
from api.pricing.service import publish_candidate, publish_held, start_pricing_run, was_held
from api.problems import InvalidInput, NotFound
from models.db import catalogue as catalogue_db
from models.db import pricing as pricing_db
from models.domain.model_versions import KEPT_MODEL_VERSIONS
from models.domain.statuses import PricingRunStatus
from models.settings import Settings
from models.wire.internal import NewPricingRun, PricingRunOut
from api.auth.roles import Caller, callers


async def _catalogue_coverage_or_404(coverage_id: uuid.UUID):
    """A catalogue coverage (a travel stay's cover is not one: 404)."""
    row = await catalogue_db.catalogue_coverage_row(coverage_id)
    if row is None:
        raise NotFound(f"coverage {coverage_id} does not exist")
    return row


# Runs a tenant does not see: an actuary's candidate is a draft under review, not a price,
# until another actuary publishes it (and a lapsed one never was one); a held catalogue run
# is not a price until an actuary publishes it.
_STAFF_ONLY = {PricingRunStatus.CANDIDATE, PricingRunStatus.LAPSED, PricingRunStatus.HELD}


def _shown_to(principal: Principal, run) -> bool:
    return principal.staff or run.status not in _STAFF_ONLY


class PricingRunController(Controller):
    opt = callers(Caller.TENANT_INTERNAL, Caller.ACTUARY, Caller.OPERATIONS)
    path = "/internal/coverages"
    tags = ["Internal surface"]
    parameters = tenant_header()
    dependencies = {"temporal": Provide(provide_temporal)}

    @get(
        "/{coverage_id:uuid}/pricing-runs",
        operation_id="listPricingRuns",
        summary="Every pricing run of a coverage, oldest first (audit)",
        responses=problems(*AUTHED, 404),
    )
    async def list_runs(self, coverage_id: FromPath[uuid.UUID], principal: NamedDependency[Principal]) -> list[PricingRunOut]:
        await _catalogue_coverage_or_404(coverage_id)
        return [pricing_run_out(r) for r in await pricing_db.pricing_runs(coverage_id) if _shown_to(principal, r)]

    @get(
        "/{coverage_id:uuid}/pricing-runs/{version:int}",
        operation_id="getPricingRun",
        summary="One pricing run",
        responses=problems(*AUTHED, 404),
    )
    async def get_run(
        self, coverage_id: FromPath[uuid.UUID], version: FromPath[int], principal: NamedDependency[Principal]
    ) -> PricingRunOut:
        await _catalogue_coverage_or_404(coverage_id)
        run = await pricing_db.pricing_run(coverage_id, version)
        if run is None or not _shown_to(principal, run):
            raise NotFound(f"coverage {coverage_id} has no pricing run {version}")
        return pricing_run_out(run)

    @post(
        "/{coverage_id:uuid}/pricing-runs",
        operation_id="startPricingRun",
        summary="Rerun the pricing with other settings (simulations, seed, expected loss ratio, model version)",
        description=(
            "Answers 202 with the queued run and its Location; poll it until CANDIDATE. A rerun "
            "is a candidate: quotes keep the coverage's published price until another actuary "
            "publishes it (POST .../pricing-runs/{version}/publish). `modelVersion` names a kept "
            "model version (400 otherwise): a rerun of an old run's inputs under its own version "
            "reproduces its figures."
        ),
        status_code=202,
        opt=callers(Caller.ACTUARY),
        responses=problems(*AUTHED, 404, 503),
    )
    async def start_run(
        self,
        coverage_id: FromPath[uuid.UUID],
        principal: NamedDependency[Principal],
        temporal: NamedDependency[Client],
        settings: NamedDependency[Settings],
        data: Annotated[NewPricingRun | None, Body(description="All fields optional")] = None,
    ) -> Response[PricingRunOut]:
        row = await _catalogue_coverage_or_404(coverage_id)
        request = data or NewPricingRun()
        if request.model_version is not None and request.model_version not in KEPT_MODEL_VERSIONS:
            raise InvalidInput.of_field(
                "modelVersion",
                f"{request.model_version!r} is not a kept model version (kept: {', '.join(KEPT_MODEL_VERSIONS)})",
            )
        run = await start_pricing_run(temporal, settings, row, request, principal.actor, requested_by_id=principal.client_id)
        out = pricing_run_out(next(r for r in await pricing_db.pricing_runs(coverage_id) if r.version == run.version))
        return DecimalNumberResponse(
            content=out,
            status_code=202,
            headers={"Location": f"/internal/coverages/{coverage_id}/pricing-runs/{run.version}"},
        )

    @post(
        "/{coverage_id:uuid}/pricing-runs/{version:int}/publish",
        operation_id="publishPricingRun",
        summary="Publish another actuary's candidate rerun, or the catalogue's held run: it becomes the price quotes use",
        description=(
            "Four eyes: the actuary who ran the rerun gets 403. 409 unless the run is a "
            "CANDIDATE newer than the coverage's current price (still running, failed, lapsed, "
            "already published, or older), or the catalogue's run HELD for an actuary (no "
            "human ran it: one actuary publishes it, and the coverage is offered at its price). "
            "Answers 200 with the published run."
        ),
        status_code=200,
        opt=callers(Caller.ACTUARY),
        responses=problems(*AUTHED, 404, 409, 503),
    )
    async def publish_run(
        self,
        coverage_id: FromPath[uuid.UUID],
        version: FromPath[int],
        principal: NamedDependency[Principal],
        temporal: NamedDependency[Client],
        settings: NamedDependency[Settings],
    ) -> Response[PricingRunOut]:
        coverage = await _catalogue_coverage_or_404(coverage_id)
        run = await pricing_db.pricing_run(coverage_id, version)
        if run is None:
            raise NotFound(f"coverage {coverage_id} has no pricing run {version}")
        if was_held(run):
            published = await publish_held(temporal, settings, coverage, run, principal.actor)
        else:
            published = await publish_candidate(temporal, coverage, run, principal.actor, actor_id=principal.client_id)
        return DecimalNumberResponse(content=pricing_run_out(published), status_code=200)
