"""A pricing rerun is a candidate until a second actuary publishes it (issue 24, finding 2:
a tenant's rerun `{"simulations":1000,"expectedLossRatio":1}` became every tenant's price
within 2 s). Quotes keep the coverage's published price; the one who ran a rerun cannot
publish it (403); reports and the audit trail name both; `requestedBy` never shows a
tenant's client id (finding 3)."""

from __future__ import annotations

import asyncio
import io
import uuid
from decimal import Decimal

import pytest
from pypdf import PdfReader

from models.clock import utcnow
from models.db import pricing as pricing_db
from models.db.tables import PricingRun
from models.temporal.ids import coverage_pricing_workflow_id
from models.temporal.pricing import COVERAGE_PRICING_WORKFLOW, PriceCoverageInput, PricingRunResult
from models.temporal.queues import task_queue
from tests.api.test_business_partners import PARTNER
from tests.api.test_coverages import wait_until_priced
from tests.api.test_fast_quotes import completed_quote
from tests.conftest import assert_problem

CHENNAI = "600001"
MONTH = ("2027-10-01", "2027-10-31")
QUERY = f"targetName={CHENNAI}&from={MONTH[0]}&to={MONTH[1]}&size=100"
SUM_INSURED = {"amount": 250000, "currency": "INR"}


def money(value: dict) -> Decimal:
    return Decimal(str(value["amount"]))


def pdf_text(content: bytes) -> str:
    """The PDF's text with every run of whitespace (line breaks too) as one space."""
    return " ".join(" ".join(page.extract_text() for page in PdfReader(io.BytesIO(content)).pages).split())


@pytest.fixture(scope="module")
async def catalogue(tenant) -> list[dict]:
    first = (await tenant.get(f"/internal/coverages?{QUERY}")).json()
    body = await wait_until_priced(tenant, QUERY, len(first["content"]))
    active = [c for c in body["content"] if c["status"] == "ACTIVE"]
    assert len(active) >= 3, body
    return active


async def quote(client, target: str) -> dict:
    r = await client.post(
        "/quotes",
        json={"monitoringTargetId": target, "riskPeriodFrom": MONTH[0], "riskPeriodTo": MONTH[1],
              "sumInsuredForLineItem": SUM_INSURED, "externalRef": "four-eyes"},
        timeout=600,
    )
    assert r.status_code == 200, r.text
    return r.json()


def cover_pct(quote_body: dict, coverage_id: str) -> Decimal:
    (item,) = quote_body["lineItems"]
    return next(Decimal(str(c["grossWrittenPremiumPct"])) for c in item["coverages"] if c["id"] == coverage_id)


async def wait_status(client, path: str, statuses: tuple[str, ...], timeout: float = 300) -> dict:
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        r = await client.get(path)
        assert r.status_code == 200, r.text
        run = r.json()
        if run["status"] in statuses or run["status"] == "FAILED":
            assert run["status"] in statuses, run
            return run
        assert asyncio.get_running_loop().time() < deadline, run
        await asyncio.sleep(0.25)


async def wait_document(client, path: str, field: str, not_id: str | None = None, timeout: float = 240) -> str:
    """The run's document `field` once set (and other than `not_id`): its text."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        run = (await client.get(path)).json()
        if run[field] and run[field] != not_id:
            r = await client.get(f"/internal/files/{run[field]}")
            assert r.status_code == 200, r.text
            return run[field], pdf_text(r.content)
        assert asyncio.get_running_loop().time() < deadline, run
        await asyncio.sleep(0.5)


async def test_a_rerun_is_a_candidate_until_a_second_actuary_publishes_it(
    catalogue, tenant, other_tenant, make_tenant, actuary, second_actuary, data_staff, operations_staff
):
    target = catalogue[0]["monitoringTargetId"]
    before = await quote(other_tenant, target)
    coverage_id = before["lineItems"][0]["coverages"][0]["id"]
    coverage_path = f"/internal/coverages/{coverage_id}"
    current = (await tenant.get(coverage_path)).json()
    runs_path = f"{coverage_path}/pricing-runs"
    version = len((await actuary.get(runs_path)).json()) + 1
    partner = (await tenant.post("/internal/business-partners", json=PARTNER)).json()["id"]

    # The rerun of finding 2: 202, and it ends as a CANDIDATE, not as the price.
    r = await actuary.post(runs_path, json={"simulations": 1000, "expectedLossRatio": 1})
    assert r.status_code == 202, r.text
    assert r.json()["requestedBy"] == "arun" and r.json()["publishedBy"] is None
    run_path = f"{runs_path}/{version}"
    candidate = await wait_status(actuary, run_path, ("CANDIDATE",))
    assert candidate["requestedBy"] == "arun" and candidate["publishedBy"] is None and candidate["publishedAt"] is None
    # A candidate is a draft under review, not a price: tenants do not see it.
    assert_problem(await tenant.get(run_path), 404)
    assert version not in [r["version"] for r in (await tenant.get(runs_path)).json()]
    assert candidate["grossPremiumIndicationPct"] != current["grossPremiumIndicationPct"]
    await asyncio.sleep(2)  # finding 2 saw the price move within 2 s
    unchanged = ("riskPremium", "riskPremiumPct", "grossPremiumIndicationPct", "expectedLossRatio", "simulations")
    assert {k: (await tenant.get(coverage_path)).json()[k] for k in unchanged} == {k: current[k] for k in unchanged}
    # Nothing a quote pays moved: a third tenant's identical quote, a fast quote's risk premium.
    third = await make_tenant(internal=True)
    during = await quote(third, target)
    assert during["grossPremiumAmount"] == before["grossPremiumAmount"]
    # a cover's premium in a quote is its part of the package's (issue 26): unchanged too
    assert cover_pct(during, coverage_id) == cover_pct(before, coverage_id)
    fast = await completed_quote(tenant, partner, [coverage_id])
    assert Decimal(fast["pricingReport"]["premium"]["adjustedExpectedLoss"]) == pytest.approx(
        Decimal(str(current["riskPremiumPct"])) * 250000, abs=Decimal("0.05")
    )

    # The candidate's documents are there to review, and say what they are.
    report_id, text = await wait_document(actuary, run_path, "technicalPricingReportFileId")
    assert "Run by arun" in text and "not yet published" in text.lower()
    fact_id, fact = await wait_document(actuary, run_path, "factSheetReportFileId")
    assert "not yet published" in fact.lower()
    assert (await tenant.get(coverage_path)).json()["technicalPricingReportFileId"] != report_id
    # ... by actuaries only (issue 33: any tenant read them at /files and /internal/files).
    for draft in (report_id, fact_id):
        for client in (tenant, other_tenant, data_staff, operations_staff):
            assert_problem(await client.get(f"/internal/files/{draft}"), 404)
        assert_problem(await tenant.get(f"/files/{draft}"), 404)
        assert (await second_actuary.get(f"/internal/files/{draft}")).status_code == 200

    # Four eyes: not the one who ran it, not a tenant.
    publish = f"{run_path}/publish"
    refused = assert_problem(await actuary.post(publish), 403)
    assert "another actuary" in refused["detail"]
    assert_problem(await tenant.post(publish), 403)
    assert_problem(await other_tenant.post(publish), 403)
    assert {k: (await tenant.get(coverage_path)).json()[k] for k in unchanged} == {k: current[k] for k in unchanged}

    r = await second_actuary.post(publish)
    assert r.status_code == 200, r.text
    published = r.json()
    assert published["status"] == "COMPLETED" and published["version"] == version
    assert published["requestedBy"] == "arun" and published["publishedBy"] == "bea" and published["publishedAt"]
    assert (await tenant.get(run_path)).json() == published  # published: the tenants' audit trail shows it
    now = (await tenant.get(coverage_path)).json()
    assert now["grossPremiumIndicationPct"] == candidate["grossPremiumIndicationPct"]
    assert now["riskPremium"] == candidate["riskPremium"] and now["expectedLossRatio"] == 1
    after = await quote(third, target)
    # the package is priced again on the published run's figures (issue 26: a cover's part of it)
    assert cover_pct(after, coverage_id) != cover_pct(before, coverage_id)
    assert money(after["grossPremiumAmount"]) < money(before["grossPremiumAmount"])  # ELR 1: no loadings
    fast = await completed_quote(tenant, partner, [coverage_id])
    assert Decimal(fast["pricingReport"]["premium"]["adjustedExpectedLoss"]) == pytest.approx(
        Decimal(str(candidate["riskPremiumPct"])) * 250000, abs=Decimal("0.05")
    )
    # Published once: again is a conflict, for anyone.
    assert_problem(await second_actuary.post(publish), 409)

    # The documents are rendered again for the published price, naming both.
    published_report, text = await wait_document(actuary, run_path, "technicalPricingReportFileId", not_id=report_id)
    assert "Run by arun" in text and "Published by bea" in text and "not yet published" not in text.lower()
    _, fact = await wait_document(actuary, run_path, "factSheetReportFileId")
    assert "arun" in fact and "bea" in fact
    for _ in range(120):  # the coverage links them once rendered
        if (await tenant.get(coverage_path)).json()["technicalPricingReportFileId"] == published_report:
            break
        await asyncio.sleep(0.5)
    else:
        raise AssertionError("the coverage does not link the published documents")
    # Published: the candidate's documents are the catalogue's too.
    assert (await other_tenant.get(f"/internal/files/{report_id}")).status_code == 200
    assert (await other_tenant.get(f"/files/{fact_id}")).status_code == 200


async def test_publishing_what_is_no_candidate(catalogue, actuary, second_actuary, tenant):
    coverage = catalogue[1]
    runs_path = f"/internal/coverages/{coverage['id']}/pricing-runs"
    # version 1: the catalogue's own pricing, published when priced
    first = (await tenant.get(f"{runs_path}/1")).json()
    assert first["status"] == "COMPLETED" and first["publishedBy"] == first["requestedBy"]
    conflict = assert_problem(await actuary.post(f"{runs_path}/1/publish"), 409)
    assert "already published" in conflict["detail"]
    assert_problem(await actuary.post(f"{runs_path}/999/publish"), 404)
    assert_problem(await actuary.post(f"/internal/coverages/{uuid.uuid4()}/pricing-runs/1/publish"), 404)
    # Still simulating: not yet a candidate.
    r = await actuary.post(runs_path, json={"simulations": 200000})
    version = r.json()["version"]
    running = await second_actuary.post(f"{runs_path}/{version}/publish")
    if running.status_code != 200:  # (a fast machine may have finished it already)
        assert "not a candidate" in assert_problem(running, 409)["detail"]
    await wait_status(actuary, f"{runs_path}/{version}", ("CANDIDATE", "COMPLETED"))
    # An older candidate cannot replace a newer published price.
    r = await actuary.post(runs_path, json={"simulations": 1000})
    older = r.json()["version"]
    await wait_status(actuary, f"{runs_path}/{older}", ("CANDIDATE",))
    r = await actuary.post(runs_path, json={"simulations": 1000, "seed": 7})
    newer = r.json()["version"]
    await wait_status(actuary, f"{runs_path}/{newer}", ("CANDIDATE",))
    assert (await second_actuary.post(f"{runs_path}/{newer}/publish")).status_code == 200
    stale = assert_problem(await second_actuary.post(f"{runs_path}/{older}/publish"), 409)
    assert f"v{newer}" in stale["detail"]


async def test_requested_by_never_shows_a_tenant_client(catalogue, tenant, other_tenant, actuary):
    """Runs recorded before roles hold the requesting tenant client's id: shown neutrally."""
    coverage = catalogue[2]
    client_id = other_tenant.credentials["client_id"]
    runs_path = f"/internal/coverages/{coverage['id']}/pricing-runs"
    version = len((await actuary.get(runs_path)).json()) + 1
    now = utcnow()
    await PricingRun.insert(
        PricingRun(
            id=uuid.uuid4(), coverage_id=uuid.UUID(coverage["id"]), version=version, status="COMPLETED",
            workflow_id=coverage_pricing_workflow_id(coverage["id"], version), simulations=1000, seed=1,
            expected_loss_ratio=Decimal("1"), currency="INR", requested_by=client_id, created_at=now,
            completed_at=now,
        )
    )
    for r in (await tenant.get(runs_path), await tenant.get(f"{runs_path}/{version}")):
        assert r.status_code == 200 and client_id not in r.text
    old = (await tenant.get(f"{runs_path}/{version}")).json()
    assert old["requestedBy"] == old["publishedBy"] == "tenant client (before roles)"
    first = (await tenant.get(f"{runs_path}/1")).json()
    assert first["requestedBy"] == "catalogue@parametric.example"


async def test_an_unpublished_candidate_lapses(catalogue, service, temporal_env, second_actuary, tenant):
    """A candidate nobody publishes lapses after its lifetime: its workflow ends, the run is
    LAPSED and can no longer be published."""
    coverage = catalogue[0]
    version = await pricing_db.allocate_pricing_run(
        uuid.UUID(coverage["id"]), 1000, 11, Decimal("0.65"), "staff:arun", "INR"
    )
    result = await temporal_env.client.execute_workflow(
        COVERAGE_PRICING_WORKFLOW,
        PriceCoverageInput(
            coverage_id=uuid.UUID(coverage["id"]), version=version, simulations=1000, seed=11,
            expected_loss_ratio=Decimal("0.65"), requested_by="staff:arun", candidate=True,
            candidate_lifetime_seconds=3,
        ),
        id=coverage_pricing_workflow_id(coverage["id"], version),
        task_queue=task_queue(service.task_queue, "pricing"),
        result_type=PricingRunResult,
    )
    assert result.status == "LAPSED"
    run_path = f"/internal/coverages/{coverage['id']}/pricing-runs/{version}"
    assert (await second_actuary.get(run_path)).json()["status"] == "LAPSED"
    assert_problem(await tenant.get(run_path), 404)  # never a price: staff only
    assert "lapsed" in assert_problem(await second_actuary.post(f"{run_path}/publish"), 409)["detail"]
