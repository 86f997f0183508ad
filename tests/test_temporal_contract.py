"""The API calls workflows by name (models/temporal/): every name it uses must be one the
workflow definitions register, so a renamed update fails here, not in production."""

from __future__ import annotations

import pytest
from temporalio.workflow import _Definition

from models.temporal import catalogue, catalogue_batches, observations, partners, policies, pricing, quotes
from workflows.catalogue import CatalogueWorkflow
from workflows.catalogue_documents import CatalogueDocumentsWorkflow
from workflows.documents import CoverageDocumentsWorkflow, PolicyScheduleWorkflow
from workflows.observations import ObservationRevisionWorkflow
from workflows.partners import BusinessPartnerWorkflow
from workflows.policies import PolicyWorkflow
from workflows.pricing import CoveragePricingWorkflow
from workflows.quotes import QuoteWorkflow

# (workflow class, contract name of the workflow, {kind: names the contract calls})
CONTRACT = [
    (QuoteWorkflow, quotes.QUOTE_WORKFLOW, {
        "updates": [quotes.CREATED_UPDATE, quotes.REJECT_UPDATE, quotes.CONVERT_UPDATE_V0],
        "signals": [quotes.CONVERTED_SIGNAL],
        "queries": [quotes.STATUS_QUERY],
    }),
    (PolicyWorkflow, policies.POLICY_WORKFLOW, {
        "updates": [policies.CONVERT_UPDATE, policies.ACTIVATE_UPDATE, policies.CANCEL_UPDATE],
        "queries": [policies.STATUS_QUERY],
    }),
    (PolicyScheduleWorkflow, policies.POLICY_SCHEDULE_WORKFLOW, {}),
    (CatalogueWorkflow, catalogue.CATALOGUE_WORKFLOW, {
        "updates": [catalogue.ENSURE_UPDATE],
        "queries": [catalogue_batches.PRICING_QUERY],
    }),
    (CatalogueDocumentsWorkflow, catalogue_batches.CATALOGUE_DOCUMENTS_WORKFLOW, {
        "queries": [catalogue_batches.DOCUMENTS_QUERY],
    }),
    (CoveragePricingWorkflow, pricing.COVERAGE_PRICING_WORKFLOW, {
        "queries": [pricing.STAGE_QUERY],
        "updates": [pricing.PUBLISH_UPDATE],
    }),
    (CoverageDocumentsWorkflow, pricing.COVERAGE_DOCUMENTS_WORKFLOW, {}),
    (BusinessPartnerWorkflow, partners.BUSINESS_PARTNER_WORKFLOW, {}),
    (ObservationRevisionWorkflow, observations.OBSERVATION_REVISION_WORKFLOW, {
        "updates": [observations.DECIDE_UPDATE],
        "queries": [observations.REVISION_STATUS_QUERY],
    }),
]


@pytest.mark.parametrize("cls,name,handlers", CONTRACT, ids=[c[1] for c in CONTRACT])
def test_the_contract_names_are_the_definitions_names(cls, name, handlers):
    definition = _Definition.from_class(cls)
    assert definition.name == name
    for kind, names in handlers.items():
        registered = set(getattr(definition, kind))
        assert set(names) <= registered, f"{name}: {kind} {set(names) - registered} not defined"


def test_the_api_loads_no_workflow_activity_or_renderer_code():
    """`import api.app` must not pull in workflow code or what it passes through (activities,
    the renderer): the API talks to workflows by name. Checked in a fresh interpreter."""
    import subprocess
    import sys

    code = (
        "import sys, api.app, api.cli;"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'workflows', 'activities', 'reports', 'weasyprint'}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_every_status_query_answers_a_struct_of_its_own():
    """Issue 33 (7): a workflow's `status` query is typed, one msgspec Struct per workflow type
    (it answered a dict), so a client decodes it with `result_type` and the shape is declared."""
    import msgspec

    from workflows.settlement import SettlementWorkflow
    from workflows.worker import WORKFLOWS

    answers = {}
    for cls in WORKFLOWS:
        query = _Definition.from_class(cls).queries.get("status")
        if query is not None:
            answers[cls.__name__] = query.ret_type
    assert {QuoteWorkflow.__name__, PolicyWorkflow.__name__, SettlementWorkflow.__name__} <= set(answers)
    for name, answer in answers.items():
        assert isinstance(answer, type) and issubclass(answer, msgspec.Struct), f"{name}: {answer}"
    assert len(set(answers.values())) == len(answers)  # one each
