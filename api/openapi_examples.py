"""Examples of the OpenAPI document, by component name: request bodies (the README's bodies,
and bodies like them for the operations the README does not show; each one a body the API
accepts) and answers (recorded from the running service). tests/api/test_openapi_examples.py
decodes every one into its Struct."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

_TARGET = "IN-12.875N-077.625E"  # Bengaluru, pin code 560001
_INR_250K = {"amount": 250000, "currency": "INR"}

REQUEST_EXAMPLES: dict[str, dict[str, Any]] = {
    "NewQuote": {
        "a year of monthly covers": {
            "monitoringTargetId": _TARGET, "riskPeriodFrom": "2027-01-01", "riskPeriodTo": "2027-12-31",
            "sumInsuredForLineItem": _INR_250K, "externalRef": "crop-loan-4711",
        },
    },
    "NewBusinessPartner": {
        "a policyholder": {
            "@type": "NewBusinessPartner", "name": "Shree Ganesh Farmers Cooperative", "role": "POLICY_HOLDER",
            "contactName": "Anita Rao", "contactEmailAddress": "anita.rao@example.com",
            "contactPhoneNumber": "+91 80 2345 6789", "taxStatus": "REGISTERED",
            "address": {"@type": "NewAddress", "countryCode": "IN", "street": "12 MG Road", "city": "Bengaluru",
                        "state": "Karnataka", "postcode": "560001"},
        },
    },
    "NewFastQuote": {
        "two covers of one month": {
            "@type": "NewFastQuote", "name": "Monsoon 2027", "customerId": "8d2f6c1e-4b7a-4c3e-9f21-5a6b7c8d9e01",
            "coverageIds": ["0f8e7d6c-5b4a-5392-8170-6f5e4d3c2b1a", "1a2b3c4d-5e6f-5a7b-8c9d-0e1f2a3b4c5d"],
            "sumInsured": _INR_250K,
        },
    },
    "AcceptQuote": {"the insurer's policy number": {"externalPolicyId": "POL-2027-000123"}},
    "NewPolicyFromQuote": {"from a completed fast quote": {"@type": "NewPolicyFromQuote",
                                                           "quoteId": "3c9d1e2f-7a8b-4c5d-9e0f-1a2b3c4d5e6f"}},
    "TravelQuoteRequest": {
        "a 3-night stay, 1,500 INR a night": {"coverage_id": "5e6f7a8b-9c0d-5e1f-8a2b-3c4d5e6f7a8b",
                                              "max_payout": 1500, "qty": 3, "technical_client_ref": "booking-1"},
    },
    "TravelPolicyRequest": {"accept the quote": {"quote_id": "7a8b9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c0d", "acceptance": True}},
    "ObservationBatch": {
        "a day of final rainfall": {
            "reason": "IMD final grid",
            "observations": [{"monitoringTargetId": _TARGET, "dataSet": "IMD-RF-DAILY", "variable": "rainfall_mm",
                              "day": "2027-07-14", "value": 12.5, "source": "IMD"}],
        },
    },
    "QualityAcceptance": {
        "a spike checked against the gauge log": {
            "reason": "the gauge log confirms a cloudburst that day",
            "observations": [{"monitoringTargetId": _TARGET, "dataSet": "IMD-RF-DAILY", "variable": "rainfall_mm",
                              "day": "2027-07-14"}],
        },
    },
    "RevisionApproval": {"approved": {"reason": "checked against the station log"}},
    "RevisionRefusal": {"refused": {"reason": "the station was under maintenance that day"}},
    "NewWebhookEndpoint": {
        "payouts and policies": {"url": "https://hooks.example.com/parametric",
                                 "eventTypes": ["payout.recorded", "policy.expired"],
                                 "description": "claims system"},
    },
    "SecretRotation": {"a day of overlap": {"overlapSeconds": 86400}},
    "NewPayoutHold": {"sanctions screening": {"policyId": "9b0c1d2e-3f4a-4b5c-8d6e-7f8a9b0c1d2e",
                                              "reason": "sanctions screening"}},
    "PayoutHoldRelease": {"cleared": {"reason": "screening cleared"}},
    "NewPricingRun": {"a larger rerun": {"simulations": 262144}},
    "NewCapacityLimit": {
        "one target in one month": {"monitoringTargetId": _TARGET, "month": "2027-07",
                                    "limit": {"amount": 500000000, "currency": "INR"}},
        "the whole book": {"limit": {"amount": 10000000000, "currency": "INR"}},
    },
    "CapacityLimitChange": {"raised": {"limit": {"amount": 750000000, "currency": "INR"}}},
}


# Answers of the running service, by the answer's component name: recorded from a `make dev`
# run of the README's blocks (var/*.json), long lists shortened (each example's title says so).
# tests/api/test_openapi_examples.py decodes each into its Struct.
RESPONSE_EXAMPLES: dict[str, dict[str, Any]] = json.loads(
    (Path(__file__).with_name("openapi_response_examples.json")).read_text(encoding="utf-8")
)

# Answers recorded from the test suite's calls, by operationId and status: {"200": body, ...}
# (tests/openapi/recorder.py; lists shortened to two items, secrets redacted).
ANSWERS: dict[str, dict[str, Any]] = json.loads(
    (Path(__file__).with_name("openapi_answers.json")).read_text(encoding="utf-8")
) if Path(__file__).with_name("openapi_answers.json").exists() else {}
