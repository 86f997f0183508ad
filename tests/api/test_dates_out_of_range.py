"""Every route that takes a month, a date or a date-time answers 400 problem+json naming the
field when the value is outside its range, never 500 (issue 33, section 6:
`GET /internal/bordereaux/9999-12/risk.csv` answered 500, `year 10000 is out of range`).

One table of the routes (path, query or body) and one of extreme values, crossed: each pair
must be a 4xx problem+json (a 400 names the field). `test_every_dated_route_is_in_the_table`
walks the OpenAPI document so a new route taking a date, or a parameter named like one, fails
until it is added here."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from tests.conftest import assert_problem

MONTHS = ["0001-01", "0000-01", "9999-12", "9999-11", "2026-13", "2026-00", "10000-01", "1899-12", "2199-12-01"]
DAYS = ["0001-01-01", "0000-01-01", "9999-12-31", "9999-12-30", "9999-01-01", "2027-13-01", "2027-02-30",
        "1899-12-31", "10000-01-01"]
RANGES = [  # travel stays: ISO 8601 intervals of dates or date-times
    "9999-12-30/9999-12-31", "9999-12-31/P1D", "9999-12-31/P3D", "9999-12-31T23:00:00Z/P2D", "9999-12-31T20:00:00-05:00/P1D",
    "0001-01-01/0001-01-02", "0001-01-01T00:00:00+05:30/P1D", "0000-01-01/0000-01-02", "2027-13-01/2027-13-02",
    "9999-12-20/P30D",
]
TARGET = "IN-12.875N-077.625E"  # Bengaluru


@dataclass(frozen=True)
class Route:
    """One dated input of one route: `call(who, value)` makes the request; `field` is what a 400
    names; `who` the fixture of the caller."""

    name: str
    who: str
    field: str
    values: list[str]
    call: Callable


def _quote(which: str):
    def call(who, value):
        period = {"riskPeriodFrom": "2027-01-01", "riskPeriodTo": "2027-01-31"}
        period[which] = value
        if which == "riskPeriodFrom":
            period["riskPeriodTo"] = value  # a one-day period at the extreme
        body = {"monitoringTargetId": TARGET, "sumInsuredForLineItem": {"amount": 1000, "currency": "INR"}, **period}
        return who.post("/quotes", json=body)
    return call


def _travel_event(who, value):
    return who._http.get(f"/travel/{who.id}/parametric-event", params={"validated_day": value},
                         headers={"Authorization": f"Bearer {who.credentials['api_key']}"})


def _travel_coverages(who, value):
    return who._http.get(f"/travel/{who.id}/coverages", params={"lat": "12.97", "long": "77.59", "time_range": value},
                         headers={"Authorization": f"Bearer {who.credentials['api_key']}"})


def _observation(who, value):
    row = {"monitoringTargetId": TARGET, "dataSet": "IMD-RF-DAILY", "variable": "rainfall_mm", "day": value, "value": 1,
           "source": "test"}
    return who.post("/internal/observations", json={"observations": [row]})


def _accept(who, value):
    row = {"monitoringTargetId": TARGET, "dataSet": "IMD-RF-DAILY", "variable": "rainfall_mm", "day": value}
    return who.post("/internal/observations/quality/accept", json={"observations": [row], "reason": "checked by hand"})


def _capacity(who, value):
    return who.post("/internal/capacity-limits", json={"limit": {"amount": 1, "currency": "INR"}, "month": value,
                                                       "monitoringTargetId": TARGET})


ROUTES = [
    Route("GET risk bordereau", "tenant", "month", MONTHS, lambda who, v: who.get(f"/internal/bordereaux/{v}/risk.csv")),
    Route("GET claims bordereau", "tenant", "month", MONTHS, lambda who, v: who.get(f"/internal/bordereaux/{v}/claims.csv")),
    Route("GET risk bordereau (staff)", "operations_staff", "month", MONTHS,
          lambda who, v: who.get(f"/internal/bordereaux/{v}/risk.csv")),
    Route("POST bordereaux run", "operations_staff", "month", MONTHS,
          lambda who, v: who.post(f"/internal/bordereaux/{v}/runs")),
    Route("POST capacity limit", "operations_staff", "month", MONTHS, _capacity),
    Route("POST quote from", "tenant", "riskPeriodFrom", DAYS, _quote("riskPeriodFrom")),
    Route("POST quote to", "tenant", "riskPeriodTo", DAYS, _quote("riskPeriodTo")),
    Route("GET policies from", "tenant", "from", DAYS, lambda who, v: who.get("/policies", params={"from": v})),
    Route("GET policies to", "tenant", "to", DAYS, lambda who, v: who.get("/policies", params={"to": v})),
    Route("GET catalogue from", "tenant", "from", DAYS,
          lambda who, v: who.get("/internal/coverages", params={"monitoringTargetId": TARGET, "from": v})),
    Route("GET catalogue to", "tenant", "to", DAYS,
          lambda who, v: who.get("/internal/coverages", params={"monitoringTargetId": TARGET, "to": v})),
    Route("GET events", "tenant", "validated_day", DAYS,
          lambda who, v: who.get("/parametric-events", params={"validated_day": v})),
    Route("GET internal events", "tenant", "validated_day", DAYS,
          lambda who, v: who.get("/internal/parametric-events", params={"validated_day": v})),
    Route("GET travel events", "tenant", "validated_day", DAYS, _travel_event),
    Route("GET travel coverages", "tenant", "time_range", RANGES, _travel_coverages),
    Route("POST observations", "data_staff", "observations[0].day", DAYS, _observation),
    Route("GET observation quality", "data_staff", "month", MONTHS,
          lambda who, v: who.get("/internal/observations/quality", params={"month": v})),
    Route("GET basis risk", "data_staff", "month", MONTHS,
          lambda who, v: who.get("/internal/observations/basis-risk", params={"month": v})),
    Route("POST quality accept", "data_staff", "observations[0].day", DAYS, _accept),
]
CASES = [pytest.param(r, v, id=f"{r.name}:{v}") for r in ROUTES for v in r.values]


@pytest.mark.parametrize(("route", "value"), CASES)
async def test_a_date_outside_its_range_is_a_4xx_naming_the_field(tenant, operations_staff, data_staff, route, value):
    who = {"tenant": tenant, "operations_staff": operations_staff, "data_staff": data_staff}[route.who]
    r = await route.call(who, value)
    assert 400 <= r.status_code < 500 and r.status_code not in (401, 403), (route.name, value, r.status_code, r.text)
    body = assert_problem(r, r.status_code)
    if r.status_code == 400:
        fields = [e["field"].replace("[0]", ".0") for e in body.get("errors") or []]
        assert route.field.replace("[0]", ".0") in fields, (route.name, value, body)


def test_every_dated_route_is_in_the_table(settings):
    """Every operation whose parameters or body carry a date, a date-time or a month (by
    format, pattern or name) is one of ROUTES: a new one must be added (and answer 400)."""
    from api.app import create_app

    doc = create_app(settings, None).openapi_schema.to_schema()
    schemas = doc["components"]["schemas"]
    covered = {
        ("get", "/internal/bordereaux/{month}/risk.csv"), ("get", "/internal/bordereaux/{month}/claims.csv"),
        ("post", "/internal/bordereaux/{month}/runs"), ("post", "/internal/capacity-limits"), ("post", "/quotes"),
        ("get", "/policies"), ("get", "/internal/coverages"), ("get", "/parametric-events"),
        ("get", "/internal/parametric-events"), ("get", "/travel/{tenant_id}/parametric-event"),
        ("get", "/travel/{tenant_id}/coverages"), ("post", "/internal/observations"),
        ("get", "/internal/observations/quality"), ("get", "/internal/observations/basis-risk"),
        ("post", "/internal/observations/quality/accept"),
    }

    def dated(schema: dict, name: str = "", seen: frozenset = frozenset()) -> bool:
        if "$ref" in schema:
            ref = schema["$ref"].rsplit("/", 1)[-1]
            return ref not in seen and dated(schemas[ref], name, seen | {ref})
        if schema.get("format") in ("date", "date-time") or r"\d{4}-" in schema.get("pattern", ""):
            return True
        if any(w in name.lower() for w in ("date", "month", "day", "time_range", "period")) or name in ("from", "to"):
            return True
        parts = itertools.chain(schema.get("oneOf", []), schema.get("anyOf", []), schema.get("allOf", []),
                                [schema["items"]] if "items" in schema else [])
        return any(dated(s, name, seen) for s in parts) or any(
            dated(s, n, seen) for n, s in schema.get("properties", {}).items())

    found = set()
    for path, operations in doc["paths"].items():
        for method, op in operations.items():
            if not isinstance(op, dict) or "responses" not in op:
                continue
            params = [p for p in op.get("parameters", []) if p["name"] not in ("x-tenant-id", "Idempotency-Key")]
            bodies = [c.get("schema", {}) for c in op.get("requestBody", {}).get("content", {}).values()]
            if any(dated(p.get("schema", {}), p["name"]) for p in params) or any(dated(b) for b in bodies):
                found.add((method, path))
    assert found - covered == set(), f"dated routes not in ROUTES: {sorted(found - covered)}"
