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

# Name → Temporal CLI type, registered on the dev server at start (see temporal-dev.yml).
SEARCH_ATTRIBUTES: dict[str, str] = {
    "TenantId": "Keyword",
    "QuoteState": "Keyword",
    "PolicyStatus": "Keyword",
    "MonitoringTargetId": "Keyword",
    "ExternalRef": "Keyword",
    "CoverageId": "Keyword",
    "PartnerRole": "Keyword",
}


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
