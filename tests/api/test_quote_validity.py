"""A quote's `validUntil`, its document and the service's acceptance say the same deadline
(issue 33, section 2): the last (UTC) day acceptance is open, closing at 00:00 UTC the day
after, which is the earlier of the validity day's end and the risk period's start
(models/domain/lifecycle.py). Before, a December fast quote answered `validUntil` 29 Dec and
its PDF "accept before this date" while the service refused acceptance from 1 Dec 00:00 UTC.

The acceptance boundary is checked with the API's clock moved (`utcnow` replaced), not by
sleeping: the API refuses a conversion at its deadline itself (409), before any workflow."""

from __future__ import annotations

import datetime as dt
import io
import re

import pypdf
import pytest

import api.quotes.service as quote_service
from api.catalogue.window import first_of_next_month
from models.clock import business_today, utcnow
from models.domain.lifecycle import day_start, last_acceptance_day, quote_deadline
from reports.formatting import format_date
from tests.api.test_business_partners import PARTNER
from tests.api.test_coverages import wait_until_priced
from tests.api.test_fast_quotes import completed_quote
from tests.conftest import assert_problem

DELHI = "110001"


def flat(text: str) -> str:
    return re.sub(r"\s+", "", text).casefold()


@pytest.mark.parametrize("days_ahead", [1, 2, 3, 29, 30, 31, 45])
def test_the_last_acceptance_day_is_the_day_before_the_deadline(days_ahead):
    """For risk periods starting tomorrow, in 3 days, at a month's start or beyond the
    validity: the deadline is 00:00 UTC after the last acceptance day, never later than the
    risk start, never later than the validity day's end."""
    today = dt.date(2026, 11, 29)
    valid_until = today + dt.timedelta(days=30)  # as stored: the day given + 30
    start = today + dt.timedelta(days=days_ahead)
    last = last_acceptance_day(valid_until, start)
    assert quote_deadline(valid_until, start) == day_start(last + dt.timedelta(days=1))
    assert last == min(valid_until, start - dt.timedelta(days=1))
    assert quote_deadline(valid_until, start) <= day_start(start)


@pytest.fixture(scope="module")
async def next_month_covers(tenant):
    """Delhi's catalogue for the first month on sale: its covers start on the 1st of next
    month, the case of the issue (a risk start within the 30 days of validity)."""
    first = first_of_next_month(business_today())
    last = first_of_next_month(first) - dt.timedelta(days=1)
    query = f"targetName={DELHI}&from={first}&to={last}&size=100"
    r = await tenant.get(f"/internal/coverages?{query}")
    assert r.status_code == 200, r.text
    body = await wait_until_priced(tenant, query, len(r.json()["content"]))
    active = [c for c in body["content"] if c["status"] == "ACTIVE" and c["end"][:10] == last.isoformat()]
    assert active, body
    return active


@pytest.fixture(scope="module")
async def customer(tenant):
    r = await tenant.post("/internal/business-partners", json=PARTNER)
    assert r.status_code == 201, r.text
    return r.json()["id"]


async def test_valid_until_and_the_document_say_the_deadline_the_service_keeps(tenant, customer, next_month_covers, monkeypatch):
    cover = next_month_covers[0]
    start = dt.date.fromisoformat(cover["start"][:10])
    quote = await completed_quote(tenant, customer, [cover["id"]])
    assert quote["state"] == "completed", quote
    today = utcnow().date()
    last = min(today + dt.timedelta(days=30), start - dt.timedelta(days=1))
    closes = day_start(last + dt.timedelta(days=1))
    assert closes <= day_start(start)
    # the API: the last day acceptance is open (was the day given + 30, past the risk start)
    assert quote["validUntil"] == last.isoformat()

    # the document says that date, and when acceptance closes (UTC, and IST beside it)
    r = await tenant.get(f"/internal/files/{quote['quoteDocumentFileId']}")
    assert r.status_code == 200 and r.content[:5] == b"%PDF-"
    text = flat("\n".join(p.extract_text() or "" for p in pypdf.PdfReader(io.BytesIO(r.content)).pages).replace("\u00a0", " "))
    assert flat(f"This quote is valid until {format_date(last)} (UTC)") in text
    assert flat(f"acceptance closes at {closes:%Y-%m-%d %H:%M} UTC (05:30 IST)") in text
    assert flat("accept before this date") not in text

    # the service: at the closing moment acceptance is refused, naming that moment
    monkeypatch.setattr(quote_service, "utcnow", lambda: closes)
    refused = await tenant.post(f"/internal/quotes/{quote['id']}/accept", json={"externalPolicyId": "H2-LATE"})
    problem = assert_problem(refused, 409)
    assert f"expired at {closes:%Y-%m-%d %H:%M} UTC" in problem["detail"]
    # ...and on the last day, up to the last instant before it, it is accepted
    monkeypatch.setattr(quote_service, "utcnow", lambda: closes - dt.timedelta(microseconds=1))
    accepted = await tenant.post(f"/internal/quotes/{quote['id']}/accept", json={"externalPolicyId": "H2-IN-TIME"})
    assert accepted.status_code == 200, accepted.text
    assert accepted.json()["state"] == "accepted"


BENGALURU = "IN-12.875N-077.625E"


async def test_a_tenant_quote_for_next_month_says_its_deadline_and_keeps_it(tenant, monkeypatch):
    """The tenant surface (its quote in the internal view): a quote for the first week of next
    month (the earliest it sells: tomorrow when today is a month's last day) has `validUntil`
    the day before the start, and acceptance (`PATCH /quotes/{id}`) is open until 00:00 UTC
    of the start, not a moment after."""
    start = first_of_next_month(business_today())
    body = {
        "monitoringTargetId": BENGALURU,
        "riskPeriodFrom": start.isoformat(),
        "riskPeriodTo": (start + dt.timedelta(days=6)).isoformat(),
        "sumInsuredForLineItem": {"amount": 100000, "currency": "INR"},
    }
    r = await tenant.post("/quotes", json=body, timeout=600)
    assert r.status_code == 200, r.text
    quote_id = r.json()["id"]
    internal = (await tenant.get(f"/internal/quotes/{quote_id}")).json()
    last = start - dt.timedelta(days=1)
    assert internal["validUntil"] == last.isoformat(), internal  # was the day given + 30
    closes = day_start(start)

    monkeypatch.setattr(quote_service, "utcnow", lambda: closes)
    problem = assert_problem(await tenant.patch(f"/quotes/{quote_id}"), 409)
    assert f"expired at {closes:%Y-%m-%d %H:%M} UTC" in problem["detail"]
    monkeypatch.setattr(quote_service, "utcnow", lambda: closes - dt.timedelta(microseconds=1))
    converted = await tenant.patch(f"/quotes/{quote_id}")
    assert converted.status_code == 200, converted.text
