"""A cover is never sold twice (issue 33, section 2). A tenant quote for the 1st to the 28th of
a month made catalogue coverages for those days, listed to every tenant and labelled like the
month's ("Maximum temperature · New Delhi, Delhi · Dec 2026"); a fast quote of "the first two
ACTIVE" then held a 1-28 and a 1-31 cover of one index at one target, and its policy paid
twice for one event. Now:

- a partial period's covers are made to order for the quote: labelled with their dates and
  never listed in the catalogue, which lists each index once per target and period;
- a fast quote of two covers of one index at one target sharing a day is refused (400,
  naming `coverageIds[i]`), and so is the conversion of a quote that holds such a pair
  (400, naming `lineItems[i].coverages[k]`)."""

from __future__ import annotations

import datetime as dt
import uuid

import msgspec
import pytest

from api.catalogue.window import first_of_next_month
from models.clock import business_today
from models.db.quotes import line_item_rows
from models.db.tables import LineItem
from tests.api.test_business_partners import PARTNER
from tests.api.test_coverages import wait_until_priced
from tests.api.test_fast_quotes import completed_quote, new_fast_quote
from tests.conftest import assert_problem

BENGALURU_PIN = "560001"
BENGALURU = "IN-12.875N-077.625E"
FIRST = first_of_next_month(business_today())
MONTH_END = first_of_next_month(FIRST) - dt.timedelta(days=1)
PART_END = FIRST + dt.timedelta(days=27)  # the 28th


@pytest.fixture(scope="module")
async def customer(tenant):
    r = await tenant.post("/internal/business-partners", json=PARTNER)
    assert r.status_code == 201, r.text
    return r.json()["id"]


@pytest.fixture(scope="module")
async def partial_quote(tenant) -> dict:
    """A tenant quote for the 1st to the 28th of next month (its covers made for those days)."""
    body = {
        "monitoringTargetId": BENGALURU,
        "riskPeriodFrom": FIRST.isoformat(),
        "riskPeriodTo": PART_END.isoformat(),
        "sumInsuredForLineItem": {"amount": 150000, "currency": "INR"},
    }
    r = await tenant.post("/quotes", json=body, timeout=600)
    assert r.status_code == 200, r.text
    return r.json()


@pytest.fixture(scope="module")
async def month_catalogue(tenant, partial_quote) -> list[dict]:
    """The catalogue's listing of that month at the same target, once priced."""
    query = f"targetName={BENGALURU_PIN}&from={FIRST}&to={MONTH_END}&size=100"
    r = await tenant.get(f"/internal/coverages?{query}")
    assert r.status_code == 200, r.text
    body = await wait_until_priced(tenant, query, len(r.json()["content"]))
    return body["content"]


def whole_month(coverage: dict) -> bool:
    return coverage["start"].startswith(FIRST.isoformat()) and coverage["end"].startswith(MONTH_END.isoformat())


def partial_covers(quote: dict) -> list[dict]:
    return [c for item in quote["lineItems"] for c in item["coverages"]]


async def test_a_partial_periods_covers_carry_their_dates(tenant, partial_quote):
    covers = partial_covers(partial_quote)
    assert covers and all(c["riskPeriodEnd"] == PART_END.isoformat() for c in covers), covers
    for c in covers:
        r = await tenant.get(f"/internal/coverages/{c['id']}")
        assert r.status_code == 200, r.text
        label = r.json()["label"]
        # was "… · Dec 2026", the full month's label
        assert label.endswith(f"{FIRST:%d %b %Y} - {PART_END:%d %b %Y}"), label


async def test_the_catalogue_lists_each_index_once_per_period(month_catalogue, partial_quote):
    partial_ids = {c["id"] for c in partial_covers(partial_quote)}
    listed = {c["id"] for c in month_catalogue}
    assert not partial_ids & listed, "a partial period's covers are not catalogue entries"
    seen: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for c in month_catalogue:
        key = (c["indexDefinitionId"], c["monitoringTargetId"])
        for start, end in seen.get(key, []):
            assert c["end"] < start or end < c["start"], f"{key} listed twice for overlapping periods"
        seen.setdefault(key, []).append((c["start"], c["end"]))
    assert all(c["end"].startswith(MONTH_END.isoformat()) for c in month_catalogue)


async def test_a_fast_quote_of_one_index_twice_for_the_same_days_is_refused(tenant, customer, partial_quote, month_catalogue):
    part = partial_covers(partial_quote)[0]
    whole = next(
        c for c in month_catalogue
        if c["indexDefinitionId"] == part["indexDefinition"]["id"] and c["status"] == "ACTIVE" and whole_month(c)
    )
    r = await tenant.post("/internal/fast-quotes", json=new_fast_quote(customer, [whole["id"], part["id"]], "150000.00"))
    problem = assert_problem(r, 400)
    errors = {e["field"]: e["message"] for e in problem["errors"]}
    assert set(errors) == {"coverageIds[1]"}, problem
    assert part["id"] in errors["coverageIds[1]"] and whole["id"] in errors["coverageIds[1]"]
    assert f"{FIRST} to {PART_END}" in errors["coverageIds[1]"]


async def test_a_quote_holding_one_index_twice_is_not_converted(tenant, customer, month_catalogue):
    """A quote written before the rule (its covers frozen in its line items) cannot become a
    policy: the conversion names the second cover by its place in the quote."""
    whole = next(c for c in month_catalogue if c["status"] == "ACTIVE" and whole_month(c))
    quote = await completed_quote(tenant, customer, [whole["id"]])
    assert quote["state"] == "completed", quote
    [item] = await line_item_rows(tenant.id, quote_id=uuid.UUID(quote["id"]))
    first = item.covers[0]
    twin = msgspec.structs.replace(first, coverage_id=uuid.uuid4(), end=first.end - dt.timedelta(days=3))
    await LineItem.update({LineItem.covers: msgspec.to_builtins([first, twin])}).where(LineItem.id == item.id)

    r = await tenant.post(f"/internal/quotes/{quote['id']}/accept", json={"externalPolicyId": "H2-TWICE"})
    problem = assert_problem(r, 400)
    assert [e["field"] for e in problem["errors"]] == ["lineItems[0].coverages[1]"], problem
    assert str(twin.coverage_id) in problem["errors"][0]["message"]
    # nothing was converted: the quote is still open
    assert (await tenant.get(f"/internal/quotes/{quote['id']}")).json()["state"] == "completed"
