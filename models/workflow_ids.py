"""Workflow ids and search-attribute keys: what ops read and filter on in the Temporal UI."""

from __future__ import annotations

import uuid

from temporalio.common import SearchAttributeKey

TENANT_ID = SearchAttributeKey.for_keyword("TenantId")
QUOTE_STATE = SearchAttributeKey.for_keyword("QuoteState")
POLICY_STATUS = SearchAttributeKey.for_keyword("PolicyStatus")
MONITORING_TARGET_ID = SearchAttributeKey.for_keyword("MonitoringTargetId")
EXTERNAL_REF = SearchAttributeKey.for_keyword("ExternalRef")
COVERAGE_ID = SearchAttributeKey.for_keyword("CoverageId")
PARTNER_ROLE = SearchAttributeKey.for_keyword("PartnerRole")
# The two sides of a conversion find each other: a policy carries its quote, a quote its policy.
QUOTE_ID = SearchAttributeKey.for_keyword("QuoteId")
POLICY_ID = SearchAttributeKey.for_keyword("PolicyId")
# The cover period of a quote or policy (first risk day 00:00 UTC, day after the last risk
# day 00:00 UTC): "policies whose cover starts next week".
RISK_PERIOD_START = SearchAttributeKey.for_datetime("RiskPeriodStart")
RISK_PERIOD_END = SearchAttributeKey.for_datetime("RiskPeriodEnd")

# Name → Temporal CLI type, registered on the dev server at start (see temporal-dev.yml).
SEARCH_ATTRIBUTES: dict[str, str] = {
    "TenantId": "Keyword",
    "QuoteState": "Keyword",
    "PolicyStatus": "Keyword",
    "MonitoringTargetId": "Keyword",
    "ExternalRef": "Keyword",
    "CoverageId": "Keyword",
    "PartnerRole": "Keyword",
    "QuoteId": "Keyword",
    "PolicyId": "Keyword",
    "RiskPeriodStart": "Datetime",
    "RiskPeriodEnd": "Datetime",
}


def search_attribute_keys() -> list[SearchAttributeKey]:
    """Typed keys of SEARCH_ATTRIBUTES (to register them on a test server)."""
    make = {"Keyword": SearchAttributeKey.for_keyword, "Datetime": SearchAttributeKey.for_datetime}
    return [make[kind](name) for name, kind in SEARCH_ATTRIBUTES.items()]


# Task queues by what their workers do; each is `<base>` + suffix (base: TEMPORAL_TASK_QUEUE).
# lifecycle: every workflow and the short database writes; pricing: Monte Carlo on a process
# pool; documents: WeasyPrint. A burst of one never delays another.
QUEUE_SUFFIXES = {"lifecycle": "", "pricing": "-pricing", "documents": "-documents"}


def task_queue(base: str, kind: str) -> str:
    return base_queue(base) + QUEUE_SUFFIXES[kind]


def base_queue(queue: str) -> str:
    """`parametric` for `parametric`, `parametric-pricing` or `parametric-documents`."""
    for suffix in QUEUE_SUFFIXES.values():
        if suffix and queue.endswith(suffix):
            return queue[: -len(suffix)]
    return queue


def business_partner_workflow_id(tenant_id: uuid.UUID | str, partner_id: uuid.UUID | str) -> str:
    return f"business-partner:{tenant_id}:{partner_id}"


def quote_workflow_id(tenant_id: uuid.UUID | str, quote_id: uuid.UUID | str) -> str:
    return f"quote:{tenant_id}:{quote_id}"


def policy_workflow_id(tenant_id: uuid.UUID | str, policy_id: uuid.UUID | str) -> str:
    return f"policy:{tenant_id}:{policy_id}"


def coverage_pricing_workflow_id(coverage_id: uuid.UUID | str, version: int) -> str:
    return f"coverage-pricing:{coverage_id}:{version}"


def catalogue_workflow_id(target_id: str) -> str:
    return f"catalogue:{target_id}"


def coverage_documents_workflow_id(coverage_id: uuid.UUID | str, version: int) -> str:
    return f"coverage-documents:{coverage_id}:{version}"


def policy_schedule_workflow_id(tenant_id: uuid.UUID | str, policy_id: uuid.UUID | str) -> str:
    return f"policy-schedule:{tenant_id}:{policy_id}"
