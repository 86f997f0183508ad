"""Search-attribute keys: what ops filter on in the Temporal UI (docs/runbook.md)."""

from __future__ import annotations

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
# A settlement's state: WAITING (for its data) | SETTLED | FLAGGED (data missing past its
# window: ops act) — "SettlementState = 'FLAGGED'" lists what needs a person.
SETTLEMENT_STATE = SearchAttributeKey.for_keyword("SettlementState")
# The tenant's name beside its id (issue 29: ops search by name). A Text attribute: the
# server allows 10 custom Keyword attributes per namespace on SQL visibility (the dev server)
# and all 10 are taken above; Text has its own allowance (3). Text is tokenised, so
# `TenantName = "acme"` matches a name containing the word acme (docs/runbook.md).
TENANT_NAME = SearchAttributeKey.for_text("TenantName")

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
    "SettlementState": "Keyword",
    "TenantName": "Text",
}


def search_attribute_keys() -> list[SearchAttributeKey]:
    """Typed keys of SEARCH_ATTRIBUTES (to register them on a test server)."""
    make = {
        "Keyword": SearchAttributeKey.for_keyword,
        "Datetime": SearchAttributeKey.for_datetime,
        "Text": SearchAttributeKey.for_text,
    }
    return [make[kind](name) for name, kind in SEARCH_ATTRIBUTES.items()]
