"""A quote's capital from the book (issue 27; docs/portfolio.md, "Capital from the book"), over
real HTTP with a real Temporal server: once the whole book's risk has been computed, a quote's
capital load is its share of the book's tail. The book here is one large July policy at one
target (A); the same July package quoted again at A pays in the book's worst years and keeps
its capital (share near 1), while at another target (B, independent of A in the model) it
diversifies the book and costs less than it did before the book was there. A tenant quote and
a fast quote of one package still cost the same (one package, one price).

The whole-book result's paths are removed when the module ends (and before it starts), so the
rest of the suite prices on the packages' own capital as before."""

from __future__ import annotations

import asyncio
import datetime as dt
from decimal import Decimal

import pytest

from models.db.tables import PortfolioPaths
from tests.api.test_business_partners import PARTNER
from tests.api.test_fast_quotes import new_fast_quote, wait_for_state

A = "IN-26.875N-080.875E"  # Lucknow
B = "IN-22.625N-088.375E"  # Kolkata
WIDER = ("IN-23.125N-072.625E", "IN-25.625N-085.125E")  # Ahmedabad, Patna: targets no other test prices
YEAR = dt.date.today().year + 1
JULY = (f"{YEAR}-07-01", f"{YEAR}-07-31")
QUOTE_SUM = 100_000
BOOK_SUM = 20_000_000  # 200 times the quote


def gross(quote: dict) -> Decimal:
    return Decimal(str(quote["grossPremiumAmount"]["amount"]))


async def tenant_quote(owner, target: str, sum_insured: int = QUOTE_SUM, period=JULY) -> dict:
    body = {"monitoringTargetId": target, "riskPeriodFrom": period[0], "riskPeriodTo": period[1],
            "sumInsuredForLineItem": {"amount": sum_insured, "currency": "INR"}}
    r = await owner.post("/quotes", json=body, timeout=600)
    assert r.status_code == 200, r.text
    return r.json()


async def fast_quote(owner, partner_id: str, quote: dict) -> dict:
    ids = [c["id"] for item in quote["lineItems"] for c in item["coverages"]]
    r = await owner.post("/internal/fast-quotes", json=new_fast_quote(partner_id, ids, f"{QUOTE_SUM}.00"))
    assert r.status_code == 201, r.text
    body = await wait_for_state(owner, r.json()["id"], ("completed", "error"))
    assert body["state"] == "completed", body
    return body


async def computed(staff) -> dict:
    for _ in range(240):
        r = await staff.get("/internal/portfolio")
        if r.status_code == 200 and r.json()["status"] == "CURRENT":
            return r.json()
        assert r.status_code in (200, 202), r.text
        await asyncio.sleep(0.5)
    raise AssertionError(f"the whole book's risk was not computed: {r.status_code} {r.text}")


@pytest.fixture(scope="module")
async def no_stored_book():
    await PortfolioPaths.delete(force=True)
    yield
    await PortfolioPaths.delete(force=True)


@pytest.fixture(scope="module")
async def priced(no_stored_book, make_tenant, operations_staff):
    """Quotes at A and B before and after a large policy at A entered the book."""
    owner = await make_tenant(internal=True)
    partner = await owner.post("/internal/business-partners", json=PARTNER)
    assert partner.status_code == 201, partner.text
    partner_id = partner.json()["id"]
    before = {t: await tenant_quote(owner, t) for t in (A, B)}
    before_fast = await fast_quote(owner, partner_id, before[B])

    big = await tenant_quote(owner, A, BOOK_SUM)
    draft = await owner.patch(f"/quotes/{big['id']}")
    assert draft.status_code == 200, draft.text
    policy_id = draft.json()["id"]
    assert (await owner.patch(f"/policies/{policy_id}")).status_code == 200
    book = await computed(operations_staff)

    after = {t: await tenant_quote(owner, t) for t in (A, B)}
    after_fast = {t: await fast_quote(owner, partner_id, after[t]) for t in (A, B)}
    after_views = {t: (await owner.get(f"/internal/quotes/{after[t]['id']}")).json() for t in (A, B)}

    # A wider book: the monsoon (July to September) at two more targets, as large: its tail is
    # no longer flat.
    policies = [policy_id]
    for target in WIDER:
        year = await tenant_quote(owner, target, BOOK_SUM, (f"{YEAR}-07-01", f"{YEAR}-09-30"))
        draft = await owner.patch(f"/quotes/{year['id']}")
        assert draft.status_code == 200, draft.text
        policies.append(draft.json()["id"])
        assert (await owner.patch(f"/policies/{policies[-1]}")).status_code == 200
    wider = await computed(operations_staff)
    assert wider["version"] == book["version"] + 1
    wider_fast = await fast_quote(owner, partner_id, await tenant_quote(owner, B))
    yield {"before": before, "before_fast": before_fast, "after": after, "after_fast": after_fast, "book": book,
           "wider": wider, "wider_fast": wider_fast, "after_views": after_views, "owner": owner,
           "partner_id": partner_id}
    for policy in policies:
        assert (await owner.delete(f"/policies/{policy}")).status_code == 200


async def test_before_any_book_a_quote_carries_its_own_capital(priced):
    report = priced["before_fast"]["pricingReport"]
    assert report["bookCapital"]["bookVersion"] is None
    assert report["bookCapital"]["capitalShare"] == 1.0
    # the package's own capital, loaded as issue 26 built it
    assert Decimal(report["premium"]["capital"]) > 0
    assert gross(priced["before"][B]) == Decimal(str(priced["before_fast"]["grossPremium"]["amount"]))


async def test_a_quote_that_concentrates_the_book_keeps_its_capital(priced):
    book = priced["after_fast"][A]["pricingReport"]["bookCapital"]
    assert book["bookVersion"] == priced["book"]["version"] and book["bookAsOf"] == priced["book"]["asOf"]
    assert book["paths"] == priced["book"]["simulation"]["paths"]
    assert "bookHash" not in book  # it changes with any tenant's binds: not a tenant's to see
    # the same covers as 200 times more of the book at A: it pays in the book's worst years
    assert book["simulatedShare"] > 0.9 and book["capitalShare"] == book["simulatedShare"], book
    # so its price is (nearly) its stand-alone price
    a_before, a_after = gross(priced["before"][A]), gross(priced["after"][A])
    assert a_after <= a_before
    assert a_after >= Decimal("0.97") * a_before, (a_before, a_after)


async def test_a_quote_that_diversifies_the_book_costs_less(priced):
    report = priced["after_fast"][B]["pricingReport"]
    book = report["bookCapital"]
    # B is independent of A in the model: the book's bad years are not B's
    # less than the concentrating quote's (1.0); not near 0 with this book: its worst 4 % of
    # years all pay its cap (AEP 1-in-25 and beyond: 20,000,000), so inside that flat tail only
    # the quote orders the paths and adds its own bad years (see the next test for a book
    # whose tail is not flat)
    assert book["floor"] <= book["simulatedShare"] < 0.6, book
    assert book["capitalShare"] == book["simulatedShare"]  # above the floor
    assert Decimal(book["eulerCapital"]) < Decimal("0.6") * Decimal(book["quoteCapitalAlone"])
    premium = report["premium"]
    # the share reported is the share charged: the package's own capital times it, to the cent
    assert Decimal(premium["capital"]) == pytest.approx(
        Decimal(str(book["capitalShare"])) * Decimal(book["packageCapital"]), abs=Decimal("0.01"))
    b_before, b_after = gross(priced["before"][B]), gross(priced["after"][B])
    # what it saves is (the share it is spared of) its capital load, grossed up for expenses
    saved = (1 - Decimal(str(book["capitalShare"]))) * Decimal(priced["before_fast"]["pricingReport"]["premium"]["capitalLoad"])
    assert b_after < b_before
    assert b_before - b_after == pytest.approx(saved / Decimal("0.8"), abs=Decimal("1.00")), (b_before, b_after, saved)


async def test_in_a_book_whose_tail_is_not_flat_an_independent_quote_needs_little_capital(priced):
    book = priced["wider_fast"]["pricingReport"]["bookCapital"]
    assert book["bookVersion"] == priced["wider"]["version"]
    assert priced["wider"]["aep"][3]["loss"] != priced["wider"]["aep"][5]["loss"]  # 1-in-100 below 1-in-250
    assert book["simulatedShare"] < 0.15, book
    assert book["simulatedShare"] < priced["after_fast"][B]["pricingReport"]["bookCapital"]["simulatedShare"]
    # the model has no dependence between targets, the record does: never below the floor
    assert book["floor"] == 0.25 and book["capitalShare"] == 0.25, book


async def test_one_package_one_price_against_the_book(priced):
    for target in (A, B):
        assert gross(priced["after"][target]) == Decimal(str(priced["after_fast"][target]["grossPremium"]["amount"]))


async def test_a_tenant_quote_keeps_what_its_price_rests_on(priced):
    """The tenant quote's internal view shows its capital from the book, as the fast quote's
    report has it: which book, the share and its figures."""
    quote = priced["after"][B]
    owner_view = priced["after_views"][B]
    assert owner_view["pricingReport"]["bookCapital"] == priced["after_fast"][B]["pricingReport"]["bookCapital"]
    assert owner_view["grossPremium"]["amount"] == quote["grossPremiumAmount"]["amount"]


async def test_the_daily_schedule_computes_the_whole_book_and_keeps_its_paths(priced, service, temporal_env, settings):
    """The worker's `portfolio-daily` Schedule (00:30 UTC) runs the whole book's risk, so a
    quote's capital is taken against a book at most a day old without anyone asking."""
    from dataclasses import replace

    from models.temporal.portfolio import (
        PORTFOLIO_SCHEDULE_ID,
        PORTFOLIO_WORKFLOW,
        PortfolioComputed,
    )
    from tests.schedules import remove_schedules, triggered_run
    from workflows.worker import ensure_schedules

    client = temporal_env.client
    await ensure_schedules(client, replace(settings, task_queue=service.task_queue))
    try:
        schedule = (await client.get_schedule_handle(PORTFOLIO_SCHEDULE_ID).describe()).schedule
        assert schedule.action.workflow == PORTFOLIO_WORKFLOW
        assert schedule.action.task_queue == f"{service.task_queue}-pricing"
        (calendar,) = schedule.spec.calendars
        assert ([r.start for r in calendar.hour], [r.start for r in calendar.minute]) == ([0], [30])
        computed_run = await triggered_run(client, PORTFOLIO_SCHEDULE_ID, PortfolioComputed)
        assert computed_run.scope == "all"
        assert computed_run.version == priced["wider"]["version"] + 1
        kept = await PortfolioPaths.select(PortfolioPaths.monitoring_target_id, PortfolioPaths.version)
        assert {r["version"] for r in kept} == {computed_run.version}  # only the latest version's paths
        assert {r["monitoring_target_id"] for r in kept} >= {A, *WIDER}
    finally:
        await remove_schedules(client)


async def test_a_book_that_cannot_be_used_falls_back_to_the_packages_own_capital(priced):
    """A whole-book run of another model version, or stored paths that are not the run's
    whole set, must not stop sales (they failed every quote until the next run): the quote is
    priced on its package's own capital and says why. Runs after the Schedule's run above."""
    import json

    from models.db.tables import PortfolioResult

    owner, partner_id = priced["owner"], priced["partner_id"]
    latest = await PortfolioResult.select().where(PortfolioResult.scope == "all").order_by(
        PortfolioResult.version, ascending=False).first()
    result = json.loads(latest["result"])
    real = result["simulation"]["modelVersion"]
    result["simulation"]["modelVersion"] = "pricing-1999.1.0"
    await PortfolioResult.update({PortfolioResult.result: json.dumps(result)}).where(PortfolioResult.id == latest["id"])
    older = (await fast_quote(owner, partner_id, await tenant_quote(owner, B)))["pricingReport"]["bookCapital"]
    assert older["capitalShare"] == 1.0 and older["bookVersion"] == latest["version"]
    assert "pricing-1999.1.0" in older["method"] and real in older["method"], older

    result["simulation"]["modelVersion"] = real
    await PortfolioResult.update({PortfolioResult.result: json.dumps(result)}).where(PortfolioResult.id == latest["id"])
    await PortfolioPaths.delete().where(PortfolioPaths.monitoring_target_id == A)  # one target's paths gone
    quote = await tenant_quote(owner, B)
    partial = (await fast_quote(owner, partner_id, quote))["pricingReport"]["bookCapital"]
    assert partial["capitalShare"] == 1.0 and "could not be read whole" in partial["method"], partial
    assert gross(quote) == gross(priced["before"][B])  # the package's own price
