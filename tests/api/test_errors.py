"""Bad input answers 4xx problem+json, never 500."""

from __future__ import annotations

import json

import pytest

from tests.api.test_business_partners import PARTNER
from tests.conftest import assert_problem

PATH = "/internal/business-partners"


def with_(**changes):
    body = json.loads(json.dumps(PARTNER))
    for key, value in changes.items():
        body[key] = value
    return body


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (with_(role="CUSTOMER"), "role"),
        (with_(name="   "), "name"),
        (with_(name="a\u0000b"), "name"),
        (with_(name="evil\u202etxt.exe"), "name"),
        (with_(contactPhoneNumber="+91 12345678\n"), "contactPhoneNumber"),
        (with_(contactEmailAddress=""), "contactEmailAddress"),
        (with_(role=3), "role"),
        (with_(name=""), "name"),
        (with_(name="x" * 500), "name"),
        (with_(contactEmailAddress="not-an-email"), "contactEmailAddress"),
        (with_(contactPhoneNumber="call me"), "contactPhoneNumber"),
        (with_(taxStatus="NaN"), "taxStatus"),
        (with_(address={"countryCode": "India"}), "address.countryCode"),
        (with_(address="Bengaluru"), "address"),
        ({k: v for k, v in PARTNER.items() if k != "name"}, "name"),
        (with_(address={k: v for k, v in PARTNER["address"].items() if k != "countryCode"}), "address.countryCode"),
        ([], None),
        ("just a string", None),
    ],
)
async def test_invalid_fields_are_400_with_field_errors(tenant, body, field):
    r = await tenant.post(PATH, json=body)
    problem = assert_problem(r, 400)
    if field:
        assert field in [e["field"] for e in problem.get("errors", [])] or field in problem["detail"], problem
    assert problem["title"] == "Invalid input"


@pytest.mark.parametrize(
    "raw",
    [
        b"{not json",
        b"",
        b'{"name": "a",}',
        b"\xff\xfe",
        b"NaN",
        b'{"name": NaN}',
        b'{"name": Infinity}',
        b'{"name": "\xff"}',
        b'{"name": "Mons\xe9on", "role": "INTERMEDIARY"}',
    ],
)
async def test_malformed_json_is_400(tenant, raw):
    r = await tenant.post(PATH, content=raw, headers={"content-type": "application/json"})
    assert_problem(r, 400)


async def test_deeply_nested_json_is_400(tenant):
    raw = b'{"address": ' + b"[" * 5000 + b"]" * 5000 + b"}"
    r = await tenant.post(PATH, content=raw, headers={"content-type": "application/json"})
    assert r.status_code == 400, r.text


async def test_oversized_body_is_413(tenant, settings):
    raw = json.dumps(with_(name="x" * (settings.max_body_bytes + 10))).encode()
    r = await tenant.post(PATH, content=raw, headers={"content-type": "application/json"})
    assert_problem(r, 413)


async def test_unknown_route_and_method_are_problems(tenant):
    assert_problem(await tenant.get("/no-such-thing"), 404)
    assert_problem(await tenant.delete("/index-definitions"), 405)


async def test_bad_path_parameter_is_4xx(tenant):
    r = await tenant.get("/internal/business-partners/not-a-uuid")
    assert r.status_code in (400, 404)
    assert r.headers["content-type"].startswith("application/problem+json")


async def test_server_errors_leak_no_stack_trace(service, tenant, monkeypatch):
    """An unexpected exception in a handler answers a bare 500 problem."""
    from api.catalogue import controller as catalogue
    from models.db.tables import IndexDefinition

    def boom(*args, **kwargs):
        raise RuntimeError("secret internals /etc/passwd")

    monkeypatch.setattr(IndexDefinition, "select", boom)
    r = await tenant.get("/index-definitions")
    body = assert_problem(r, 500)
    assert "secret" not in r.text and "Traceback" not in r.text and "RuntimeError" not in r.text
    assert body["detail"] == "The server could not complete the request."
    assert catalogue  # the module under test


async def test_a_workflow_call_outliving_its_deadline_is_a_retryable_503(service, tenant, monkeypatch):
    """An update or query the SDK gave up on (its RPC deadline passed, as a stalled worker
    makes it) is the engine being slow: 503 with Retry-After, not a 500."""
    from temporalio.client import WorkflowUpdateRPCTimeoutOrCancelledError

    from models.db.tables import IndexDefinition

    def stalled(*args, **kwargs):
        raise WorkflowUpdateRPCTimeoutOrCancelledError()

    monkeypatch.setattr(IndexDefinition, "select", stalled)
    r = await tenant.get("/index-definitions")
    body = assert_problem(r, 503)
    assert r.headers["retry-after"] == "2" and "retry" in body["detail"]


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", "application/xml"])
async def test_non_json_bodies_are_415(tenant, content_type):
    r = await tenant.post(PATH, content=json.dumps(PARTNER), headers={"content-type": content_type})
    assert_problem(r, 415)


async def test_empty_body_says_a_body_is_required(tenant):
    r = await tenant.post(PATH, content=b"", headers={"content-type": "application/json"})
    body = assert_problem(r, 400)
    assert "body" in body["detail"]


async def test_duplicate_tenant_header_is_400(http, tenant, other_tenant):
    headers = [
        ("Authorization", f"Bearer {await tenant.token()}"),
        ("x-tenant-id", tenant.id),
        ("x-tenant-id", other_tenant.id),
    ]
    assert_problem(await http.get("/index-definitions", headers=headers), 400)


async def test_problem_titles_are_one_per_type(tenant):
    a = (await tenant.get("/no-such-thing")).json()
    b = (await tenant.get("/internal/business-partners/7d0a8f0e-0000-4000-8000-000000000000")).json()
    assert a["type"] == b["type"] and a["title"] == b["title"] == "Resource not found"


async def test_every_bad_field_is_named_at_once_in_words(tenant):
    """Issue 29: `POST /quotes` with `{}` named only monitoringTargetId, and a bad e-mail
    answered with msgspec's raw regular expression. Every bad field is named, in words."""
    problem = assert_problem(await tenant.post("/quotes", json={}), 400)
    assert [e["field"] for e in problem["errors"]] == [
        "monitoringTargetId", "riskPeriodFrom", "riskPeriodTo", "sumInsuredForLineItem"]
    assert {e["message"] for e in problem["errors"]} == {"is required"}
    assert "4 fields" in problem["detail"]

    problem = assert_problem(await tenant.post("/quotes", json={
        "monitoringTargetId": 5, "riskPeriodFrom": "2027-02-30", "riskPeriodTo": "2027-03-31",
        "sumInsuredForLineItem": {"amount": "x", "currency": 7}}), 400)
    by_field = {e["field"]: e["message"] for e in problem["errors"]}
    assert by_field["monitoringTargetId"] == "must be text, not a whole number"
    assert by_field["riskPeriodFrom"] == "must be a date (YYYY-MM-DD)"
    assert set(by_field) == {"monitoringTargetId", "riskPeriodFrom", "sumInsuredForLineItem.amount",
                             "sumInsuredForLineItem.currency"}

    from tests.api.test_business_partners import PARTNER

    bad = {**PARTNER, "role": "BOSS", "contactEmailAddress": "not-an-address", "contactPhoneNumber": "12",
           "address": {**PARTNER["address"], "countryCode": "india"}}
    problem = assert_problem(await tenant.post("/internal/business-partners", json=bad), 400)
    by_field = {e["field"]: e["message"] for e in problem["errors"]}
    assert by_field == {
        "role": "must be one of INTERMEDIARY, POLICY_HOLDER, RISK_CARRIER",
        "contactEmailAddress": "must be an e-mail address such as name@example.com",
        "contactPhoneNumber": "must be a phone number of 6 to 20 digits, spaces, brackets or dashes, optionally after a +",
        "address.countryCode": "must be two capital letters (ISO 3166-1), e.g. IN",
    }
    assert "regex" not in str(problem) and "Expected" not in str(problem)
