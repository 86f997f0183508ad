"""A 12-month quote at a target whose dry months offer fewer than two viable covers (issue 33,
1: Mumbai, Chennai and Pune answered 400 "no viable covers … 1 of the 2 a line item holds"),
over HTTP with a real Temporal server and database.

- Mumbai (wet): excess and deficit rainfall in the monsoon; January to April offer only the
  maximum-temperature cover (rain there is too rare for a meaningful trigger).
- Kachchh (dry, pin code 370001): January to April and December offer one cover.
A month with one viable cover gets a line item holding it, priced and sized as a two-cover
one; a month with none gets no line item and is in `uncoveredMonths` with why (here: its only
cover held for an actuary); a period without any is a 400 naming monitoringTargetId. Such a
quote converts, activates, is monitored for its covered months only, and prints.
Pricing is Monte Carlo: two 12-month quotes price their targets' catalogue year; the rest
reuse it."""

from __future__ import annotations

import asyncio
import io
from decimal import ROUND_HALF_EVEN, Decimal

import pytest
from pypdf import PdfReader

from models.temporal.ids import policy_workflow_id
from tests.conftest import assert_problem

MUMBAI = "IN-18.875N-072.875E"  # pin code 400001
KACHCHH = "IN-23.375N-069.625E"  # pin code 370001
ONE_COVER = {MUMBAI: {1, 2, 3, 4}, KACHCHH: {1, 2, 3, 4, 12}}
S = Decimal(100_000)


def year_quote(target: str, start: str = "2027-01-01", end: str = "2027-12-31") -> dict:
    return {"monitoringTargetId": target, "riskPeriodFrom": start, "riskPeriodTo": end,
            "sumInsuredForLineItem": {"amount": 100000, "currency": "INR"}}


def amount(money: dict) -> Decimal:
    assert money["currency"] == "INR"
    return Decimal(str(money["amount"]))


@pytest.fixture(scope="module")
async def quotes(tenant) -> dict[str, dict]:
    answers = await asyncio.gather(*(tenant.post("/quotes", json=year_quote(t), timeout=900) for t in ONE_COVER))
    for r in answers:
        assert r.status_code == 200, r.text
    return {t: r.json() for t, r in zip(ONE_COVER, answers)}


async def _check_year(tenant, quote: dict, target: str) -> None:
    items = quote["lineItems"]
    assert quote["uncoveredMonths"] == []
    assert [int(i["coverages"][0]["riskPeriodStart"][5:7]) for i in items] == list(range(1, 13))
    one = {m for m, i in enumerate(items, start=1) if len(i["coverages"]) == 1}
    assert one == ONE_COVER[target], one
    assert all(len(i["coverages"]) == 2 for m, i in enumerate(items, start=1) if m not in one)
    premium = Decimal(0)
    for item in items:
        # every line item (one cover or two) insures S, one unit of the ₹100,000 cover each
        assert amount(item["sumInsured"]) == amount(item["totalSumInsured"]) == S
        assert Decimal(str(item["quantity"])) == 1
        first = (await tenant.get(f"/internal/coverages/{item['coverages'][0]['id']}")).json()
        assert amount(item["minPayout"]) == amount(first["minPayout"])  # quantity × the first cover's, to the paisa
        assert amount(item["payoutPerUnit"]) == amount(first["payoutPerUnit"])
        rates = sum(Decimal(str(c["grossWrittenPremiumPct"])) for c in item["coverages"])
        premium += (rates * S * 100).quantize(Decimal(1), rounding=ROUND_HALF_EVEN)
    assert amount(quote["totalSumInsured"]) == 12 * S
    assert amount(quote["grossPremiumAmount"]) == premium / 100  # the line items' exact sum
    for m in one:
        (cover,) = items[m - 1]["coverages"]
        assert cover["triggerValue"] > 0 and 0 < cover["grossWrittenPremiumPct"] < 1


async def test_a_wet_target_is_quoted_for_the_year_with_one_cover_in_its_dry_months(tenant, quotes):
    await _check_year(tenant, quotes[MUMBAI], MUMBAI)
    # January to April: the heat cover alone (no rain cover has a meaningful trigger there)
    assert {quotes[MUMBAI]["lineItems"][m]["coverages"][0]["triggerUnit"] for m in range(4)} == {"°C"}


async def test_a_dry_target_is_quoted_for_the_year_with_one_cover_in_its_dry_months(tenant, quotes):
    await _check_year(tenant, quotes[KACHCHH], KACHCHH)


async def test_a_month_without_a_viable_cover_is_listed_and_a_period_without_any_is_refused(tenant, quotes, temporal_env):
    """Kachchh's January holds one viable cover; held for an actuary (its catalogue run HELD,
    as docs/catalogue.md's burn check does), January has none to sell."""
    from models.db.tables import Coverage

    (january,) = quotes[KACHCHH]["lineItems"][0]["coverages"]
    await Coverage.update({Coverage.status: "REVIEW"}).where(Coverage.id == january["id"])
    try:
        r = await tenant.post("/quotes", json=year_quote(KACHCHH, "2027-01-01", "2027-03-31"), timeout=900)
        assert r.status_code == 200, r.text
        quote = r.json()
        refused = await tenant.post("/quotes", json=year_quote(KACHCHH, "2027-01-01", "2027-01-31"), timeout=900)
    finally:
        await Coverage.update({Coverage.status: "ACTIVE"}).where(Coverage.id == january["id"])

    (uncovered,) = quote["uncoveredMonths"]
    assert set(uncovered) == {"month", "periodStart", "periodEnd", "reason", "detail"}
    assert uncovered["month"] == "2027-01" and uncovered["reason"] == "HELD_FOR_REVIEW"
    assert (uncovered["periodStart"], uncovered["periodEnd"]) == ("2027-01-01", "2027-01-31")
    assert "held for an actuary" in uncovered["detail"]
    assert [i["name"] for i in quote["lineItems"]] == ["01-02-2027 - 28-02-2027", "01-03-2027 - 31-03-2027"]
    assert amount(quote["totalSumInsured"]) == 2 * S
    # the same in the quote's GET and in the list
    got = (await tenant.get(f"/quotes/{quote['id']}")).json()
    assert got["uncoveredMonths"] == quote["uncoveredMonths"]
    assert (got["riskPeriodFrom"], got["riskPeriodTo"]) == ("2027-01-01", "2027-03-31")
    listed = (await tenant.get("/quotes?size=100")).json()["content"]
    assert next(q for q in listed if q["id"] == quote["id"])["uncoveredMonths"] == quote["uncoveredMonths"]
    assert next(q for q in listed if q["id"] == quotes[MUMBAI]["id"])["uncoveredMonths"] == []

    body = assert_problem(refused, 400)
    assert [e["field"] for e in body["errors"]] == ["monitoringTargetId"]
    assert "no viable covers" in body["detail"]

    # Its policy carries the same months and is monitored and settled over the covered ones.
    policy = await _convert_and_activate(tenant, quote)
    assert policy["uncoveredMonths"] == quote["uncoveredMonths"]
    periods = await _monitored_periods(temporal_env.client, tenant, policy)
    assert periods == [("2027-02-01", "2027-02-28"), ("2027-03-01", "2027-03-31")]
    text = await _schedule_text(tenant, policy)
    assert "Not covered: Jan 2027" in text and "held for an actuary" in text


async def test_a_year_with_one_cover_months_converts_activates_and_prints(tenant, quotes, temporal_env):
    quote = quotes[MUMBAI]
    policy = await _convert_and_activate(tenant, quote)
    assert [[c["id"] for c in i["coverages"]] for i in policy["lineItems"]] == [
        [c["id"] for c in i["coverages"]] for i in quote["lineItems"]
    ]
    assert policy["totalSumInsured"] == quote["totalSumInsured"]
    assert policy["grossPremiumAmount"] == quote["grossPremiumAmount"]
    assert policy["uncoveredMonths"] == []
    assert len(await _monitored_periods(temporal_env.client, tenant, policy)) == 12
    # its policy items: one per cover, a one-cover month's item insuring the whole S
    from models.db.tables import PolicyItem

    items = await PolicyItem.select(PolicyItem.total_sum_insured_minor).where(PolicyItem.policy_id == policy["id"])
    assert len(items) == 4 + 2 * 8 and sum(i["total_sum_insured_minor"] for i in items) == 12 * 10_000_000

    text = await _schedule_text(tenant, policy)
    assert "Maximum temperature" in text and "Jan 2027" in text and "Not covered" not in text


async def _schedule_text(tenant, policy: dict) -> str:
    """The activated policy's schedule (PDF) as text, once rendered."""
    for _ in range(900):
        r = await tenant.get(f"/policies/{policy['id']}/schedule", timeout=60)
        if r.status_code == 200:
            break
        assert r.status_code == 202, r.text
        await asyncio.sleep(0.3)
    assert r.status_code == 200 and r.content.startswith(b"%PDF")
    return " ".join(" ".join(p.extract_text() for p in PdfReader(io.BytesIO(r.content)).pages).split())


async def _convert_and_activate(tenant, quote: dict) -> dict:
    r = await tenant.patch(f"/quotes/{quote['id']}")
    assert r.status_code == 200, r.text
    r = await tenant.patch(f"/policies/{r.json()['id']}")
    assert r.status_code == 200, r.text
    policy = r.json()
    assert policy["status"] == "ACCEPTED" and len(policy["lineItems"]) == len(quote["lineItems"])
    assert (await tenant.get(f"/policies/{policy['id']}")).json()["uncoveredMonths"] == policy["uncoveredMonths"]
    return policy


async def _monitored_periods(client, tenant, policy: dict) -> list[tuple[str, str]]:
    """The periods the policy's workflow monitors (its `status` query)."""
    status = await client.get_workflow_handle(policy_workflow_id(tenant.id, policy["id"])).query("status")
    return [(p["start"], p["end"]) for p in status["periods"]]
