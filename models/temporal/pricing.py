"""Workflow and activity inputs and results of pricing runs."""

from __future__ import annotations

import uuid
from decimal import Decimal
from typing import Any

import msgspec

from models.domain.pricing_runs import PricingOutcome, coverage_seed as coverage_seed  # noqa: F401 - re-exported
from models.domain.terms import CoverTerms
from models.temporal.catalogue import ProposedTerms, ProposeTermsInput, SiteRef

# The pricing workflows' contract (see models/temporal/quotes.py).
COVERAGE_PRICING_WORKFLOW = "CoveragePricingWorkflow"
STAGE_QUERY = "stage"
# A second actuary publishes a candidate rerun (validator: not its requester, still a
# candidate). Refusals are ApplicationErrors of these types.
PUBLISH_UPDATE = "publish"
SAME_ACTUARY = "SameActuary"
NOT_A_CANDIDATE = "NotACandidate"
COVERAGE_DOCUMENTS_WORKFLOW = "CoverageDocumentsWorkflow"

# How long a candidate rerun waits for a second actuary before it lapses.
CANDIDATE_LIFETIME_SECONDS = 14 * 24 * 3600


class PriceCoverageInput(msgspec.Struct, frozen=True):
    coverage_id: uuid.UUID
    version: int
    simulations: int
    seed: int
    expected_loss_ratio: Decimal
    requested_by: str
    # True: an actuary asked for this ELR (gross = EL / ELR); False (every run recorded before
    # the risk load, and every catalogue run): the risk load of activities/pricing/loading.py.
    expected_loss_ratio_override: bool = False
    # True: an actuary's rerun, stored as a CANDIDATE that a second actuary publishes (update
    # `publish`) within `candidate_lifetime_seconds`, or it lapses. False (runs started
    # before four eyes): published as soon as simulated.
    candidate: bool = False
    candidate_lifetime_seconds: int = CANDIDATE_LIFETIME_SECONDS
    # The model version an actuary's rerun asked for (a kept one, activities/pricing/frozen);
    # None: the live engine's (every catalogue run, and every run started before issue 26).
    model_version: str | None = None
    # The requesting actuary's stable staff id (issue 33: four eyes compare ids); "" on runs
    # started before, and on the catalogue's.
    requested_by_id: str = ""


def rerun_start(run: PriceCoverageInput, target_id: str, label: str, pricing_queue: str) -> dict:
    """`Client.start_workflow` keyword arguments that start an actuary's rerun `run` of the
    coverage at `target_id` (`label`: how ops read it) on the pricing queue: the API and
    `parametric reprice` right after committing its QUEUED row, the start sweep
    (activities/start_sweep.py) when that start was lost. Data only."""
    from temporalio.common import SearchAttributePair, TypedSearchAttributes

    from models.domain.actors import shown_actor
    from models.temporal.ids import coverage_pricing_workflow_id
    from models.temporal.search_attributes import COVERAGE_ID, MONITORING_TARGET_ID

    return dict(
        workflow=COVERAGE_PRICING_WORKFLOW,
        arg=run,
        id=coverage_pricing_workflow_id(run.coverage_id, run.version),
        task_queue=pricing_queue,
        search_attributes=TypedSearchAttributes(
            [SearchAttributePair(COVERAGE_ID, str(run.coverage_id)), SearchAttributePair(MONITORING_TARGET_ID, target_id)]
        ),
        static_summary=f"Pricing rerun · {label} · v{run.version} · by {shown_actor(run.requested_by)} · needs a second actuary",
    )


class PublishCandidate(msgspec.Struct, frozen=True):
    """The `publish` update's argument: who publishes (Principal.actor, "staff:bea") and their
    stable staff id (the client id; "" from callers before issue 33: looked up by name)."""

    published_by: str
    published_by_id: str = ""


class PublishCandidateInput(msgspec.Struct, frozen=True):
    run: PriceCoverageInput
    published_by: str


# A pricing run's terms travel as the domain's CoverTerms (the payload of the former
# CoverTermsIn, field for field: recorded histories decode unchanged).
CoverTermsIn = CoverTerms


class SimulationInput(msgspec.Struct, frozen=True):
    run: PriceCoverageInput
    site: SiteRef
    terms: CoverTerms


class StartJointPricingInput(msgspec.Struct, frozen=True):
    """The catalogue's first pricing of several coverages of one target, on one seed."""

    runs: list[PriceCoverageInput]
    seed: int
    simulations: int
    workflow_id: str  # the catalogue workflow that prices them (recorded on each run)


class JointSimulationInput(msgspec.Struct, frozen=True):
    site: SiteRef
    runs: list[SimulationInput]
    seed: int
    simulations: int


class FitOfRun(msgspec.Struct, frozen=True):
    """A run's fit summary (the report's `fit` section), computed after its price."""

    coverage_id: uuid.UUID
    version: int
    fit: dict[str, Any]


class ProposeAndPriceInput(msgspec.Struct, frozen=True):
    """New slots of a target: propose their terms and price the viable ones jointly."""

    proposal: ProposeTermsInput
    simulations: int
    expected_loss_ratio: Decimal
    requested_by: str


class PublishPricingInput(msgspec.Struct, frozen=True):
    run: PriceCoverageInput
    outcome: PricingOutcome


class PricingRunResult(msgspec.Struct, frozen=True):
    coverage_id: uuid.UUID
    version: int
    status: str
    risk_premium: Decimal | None
    gross_premium_indication_pct: Decimal | None


def published_documents_workflow_id(coverage_id: uuid.UUID | str, version: int) -> str:
    """The documents of a published rerun (`coverage-documents:<id>:<version>:published`):
    its candidate's documents were rendered under the plain id before publication."""
    return f"coverage-documents:{coverage_id}:{version}:published"


class ProposedAndPriced(msgspec.Struct, frozen=True):
    """What propose_and_price_coverages found: every slot's proposal, and the viable ones'
    version-1 pricing (`joint`: the input of their fit summaries; None when none is viable)."""

    proposals: list[ProposedTerms]
    priced: list[PublishPricingInput]
    joint: JointSimulationInput | None


class RecordPricedInput(msgspec.Struct, frozen=True):
    site: SiteRef
    proposals: list[ProposedTerms]
    priced: list[PublishPricingInput]
    created_by: str
    expected_loss_ratio: Decimal
    simulations: int
    workflow_id: str
