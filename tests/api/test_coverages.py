"""The coverage catalogue: created on demand per target, priced by Temporal workflows,
repriced by actuaries with every run kept."""

from __future__ import annotations

import asyncio
from decimal import Decimal

import pytest

from models.temporal.ids import catalogue_workflow_id, coverage_pricing_workflow_id
from tests.conftest import assert_problem

BENGALURU = "560001"
BENGALURU_TARGET = "IN-12.875N-077.625E"


async def wait_until_priced(tenant, query: str, expected: int, timeout: float = 180) -> dict:
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        body = (await tenant.get(f"/internal/coverages?{query}")).json()
        active = [c for c in body["content"] if c["status"] == "ACTIVE"]
        if len(active) == expected or asyncio.get_running_loop().time() > deadline:
            return body
        await asyncio.sleep(0.5)


@pytest.fixture(scope="module")
async def bengaluru_catalogue(tenant):
    # Two months keep the test quick; the default window is 12 months × 4 indices.
    query = f"targetName={BENGALURU}&from=2027-06-01&to=2027-07-31&size=100"
    r = await tenant.get(f"/internal/coverages?{query}")
    assert r.status_code == 200, r.text
    first = r.json()
    body = await wait_until_priced(tenant, query, len(first["content"]))
    return first, body


async def test_catalogue_for_a_pin_code_is_created_with_model_triggers(bengaluru_catalogue):
    first, body = bengaluru_catalogue
    # 2 months × 4 monthly indices, less any the model finds not viable (e.g. no deficit cover
    # in a month that is often dry).
    assert 4 <= first["totalElements"] <= 8
    for coverage in body["content"]:
        assert coverage["@type"] == "Coverage"
        assert coverage["monitoringTargetId"] == BENGALURU_TARGET
        assert "Bengaluru" in coverage["monitoringTarget"]
        assert coverage["start"].endswith("T00:00:00.000+00:00")
        assert coverage["end"].endswith("T23:59:59.999+00:00")
        assert coverage["limit"] == {"amount": 100000, "currency": "INR"}
        assert coverage["trigger"] > 0
    excess = [c for c in body["content"] if c["riskTypeId"] == "RAINFALL" and c["triggerLabel"].endswith("above")]
    deficit = [c for c in body["content"] if c["triggerLabel"].endswith("below")]
    assert excess and all(c["exit"] > c["trigger"] for c in excess)
    assert all(c["exit"] < c["trigger"] for c in deficit)
    # June in Bengaluru is wetter than the deficit trigger, the excess trigger above its normal.
    june_excess = next(c for c in excess if c["start"].startswith("2027-06"))
    assert 80 < june_excess["trigger"] < 600


async def test_every_coverage_is_priced_with_error_bars(bengaluru_catalogue, tenant):
    _, body = bengaluru_catalogue
    assert all(c["status"] == "ACTIVE" for c in body["content"]), [c["status"] for c in body["content"]]
    for coverage in body["content"]:
        assert 0 < coverage["riskPremiumPct"] < 1
        assert coverage["grossPremiumIndicationPct"] == pytest.approx(
            coverage["riskPremiumPct"] / coverage["expectedLossRatio"], rel=1e-6
        )
        assert coverage["simulations"] >= 100_000
        runs = (await tenant.get(f"/internal/coverages/{coverage['id']}/pricing-runs")).json()
        assert [r["version"] for r in runs] == [1]
        run = runs[0]
        assert run["status"] == "COMPLETED" and run["modelVersion"] and run["dataHash"].startswith("sha256:")
        m = run["metrics"]
        parts = run["premiumParts"]
        # the risk premium is the EL the premium is built on (the model's, or its blend with
        # the burn cost when the two disagree: then the run is flagged for review)
        assert Decimal(str(parts["adjustedExpectedLoss"])) == Decimal(str(coverage["riskPremium"]["amount"]))
        if not m["review"]:
            assert parts["adjustedExpectedLoss"] == m["expectedLoss"]
        assert m["burnCheck"] in ("AGREES", "DISAGREES", "NO_HISTORY")
        assert m["expectedLossBandLow"] < m["expectedLoss"] < m["expectedLossBandHigh"]
        assert m["parameterStandardDeviation"] > 10 * m["expectedLossStandardError"], coverage["riskTypeId"]
        gross = Decimal(str(run["grossPremium"]["amount"]))
        assert Decimal(str(parts["technicalPremium"])) + Decimal(str(parts["expenses"])) == pytest.approx(gross, abs=Decimal("0.02"))
        assert parts["capitalLoad"] > 0 and parts["uncertaintyLoad"] > 0 and "risk load" in parts["method"]
        assert 0 < m["expectedLossStandardError"] <= 0.05 * m["expectedLoss"]
        assert 0 < m["probabilityOfAttachment"] < 1
        assert m["var99"] <= m["tvar99"] and m["var995"] <= m["tvar995"]
        if coverage["riskTypeId"] == "RAINFALL":
            assert len(run["burnYears"]) >= 100, "rainfall covers have a burn analysis on 1901-2015"
            assert run["burnMethod"]
            assert run["burnCost"]["amount"] >= 0


async def test_first_pricing_is_one_joint_activity_of_the_catalogue_workflow(bengaluru_catalogue, tenant, temporal_env):
    """A target's new coverages get their terms and prices together (one
    propose_and_price_coverages activity in the catalogue workflow, shared paths, one seed);
    each run says so and names the workflow."""
    _, body = bengaluru_catalogue
    client = temporal_env.client
    catalogue_id = catalogue_workflow_id(BENGALURU_TARGET)
    catalogue = client.get_workflow_handle(catalogue_id)
    assert (await catalogue.describe()).workflow_type == "CatalogueWorkflow"
    history = await catalogue.fetch_history()
    joint = [
        e.activity_task_scheduled_event_attributes
        for e in history.events
        if e.HasField("activity_task_scheduled_event_attributes")
        and e.activity_task_scheduled_event_attributes.activity_type.name == "propose_and_price_coverages"
    ]
    # (each later GET proposes the slots found not viable again: cheap, nothing to price)
    assert joint, "the request's coverages get their terms and prices in one activity"
    ids = {c["id"] for c in body["content"]}
    seeds = set()
    for coverage in body["content"]:
        run = (await tenant.get(f"/internal/coverages/{coverage['id']}/pricing-runs/1")).json()
        assert run["workflowId"] == catalogue_id
        seeds.add(run["seed"])
        # no per-coverage pricing workflow for version 1
        with pytest.raises(Exception):
            await client.get_workflow_handle(coverage_pricing_workflow_id(coverage["id"], 1)).describe()
    assert len(seeds) == 1
    # The coverages' documents are rendered by one workflow for their batch (started once
    # priced, after the fit summaries, which the technical report shows), found by target.
    deadline = asyncio.get_running_loop().time() + 180
    for coverage_id in ids:
        while True:
            run = (await tenant.get(f"/internal/coverages/{coverage_id}/pricing-runs/1")).json()
            if run["factSheetReportFileId"] and run["technicalPricingReportFileId"]:
                break
            assert asyncio.get_running_loop().time() < deadline, run
            await asyncio.sleep(0.5)
        assert run["status"] == "COMPLETED"
    rendered = set()
    query = f'WorkflowType = "CatalogueDocumentsWorkflow" AND MonitoringTargetId = "{BENGALURU_TARGET}"'
    async for batch in client.list_workflows(query):
        rendered |= {str(d["coverage_id"]) for d in await client.get_workflow_handle(batch.id).query("documents")}
    assert ids <= rendered


async def test_every_coverage_carries_its_settlement_basis_frozen_at_creation(bengaluru_catalogue, tenant):
    """Issue 34: a coverage created now settles on its data set's source ladder, stored with
    it and shown as `settlementBasis`; one created before the ladder (null column) shows null."""
    import uuid

    from models.db.tables import Coverage
    from models.domain.settlement_basis import basis_for, decode_basis

    _, body = bengaluru_catalogue
    for coverage in body["content"]:
        basis = coverage["settlementBasis"]
        assert basis is not None, coverage["label"]
        assert [r["rung"] for r in basis["ladder"]] == ["FINAL", "PROVISIONAL"]
        assert basis["fallback"]["dataSet"] == "REAN-SFC-HOURLY"
        assert basis["calculationDeadlineDays"] == 15 and basis["trueUpWindowDays"] == 450
        row = await Coverage.select(Coverage.settlement_basis, Coverage.data_set).where(
            Coverage.id == uuid.UUID(coverage["id"])).first()
        stored = decode_basis(row["settlement_basis"])
        assert stored.data_set == row["data_set"] == basis["dataSet"]
        one = (await tenant.get(f"/internal/coverages/{coverage['id']}")).json()
        assert one["settlementBasis"] == basis
    rain = next(c for c in body["content"] if c["riskTypeId"] == "RAINFALL")
    assert rain["settlementBasis"]["provisionalError"] == basis_for("RAINFALL_MONTHLY_TOTAL", "IMD-RF-DAILY").provisional_error
    # a cover sold before the ladder: the column is null, the view says null
    legacy = uuid.UUID(rain["id"])
    saved = (await Coverage.select(Coverage.settlement_basis).where(Coverage.id == legacy).first())["settlement_basis"]
    await Coverage.update({Coverage.settlement_basis: None}).where(Coverage.id == legacy)
    try:
        r = await tenant.get(f"/internal/coverages/{legacy}")
        assert r.status_code == 200 and r.json()["settlementBasis"] is None
    finally:
        await Coverage.update({Coverage.settlement_basis: saved}).where(Coverage.id == legacy)


async def test_asking_again_creates_nothing_new(bengaluru_catalogue, tenant):
    first, _ = bengaluru_catalogue
    again = (await tenant.get(f"/internal/coverages?targetName={BENGALURU}&from=2027-06-01&to=2027-07-31&size=100")).json()
    assert {c["id"] for c in again["content"]} == {c["id"] for c in first["content"]}


async def test_reprice_keeps_every_run_and_reproduces_with_the_same_seed(
    bengaluru_catalogue, tenant, actuary, second_actuary
):
    _, body = bengaluru_catalogue
    coverage = body["content"][0]
    path = f"/internal/coverages/{coverage['id']}/pricing-runs"
    r = await actuary.post(path, json={"simulations": 20000, "expectedLossRatio": 0.5})
    assert r.status_code == 202, r.text
    assert r.headers["location"] == f"{path}/2"
    assert r.json()["status"] in ("QUEUED", "RUNNING")
    assert r.json()["requestedBy"] == "arun"
    run2 = await _wait_run(actuary, path, 2)
    assert run2["simulations"] >= 20000 and run2["expectedLossRatio"] == 0.5
    # an explicit expected loss ratio is an actuary's override of the risk load
    assert run2["premiumParts"]["method"].startswith("expected loss ratio override")
    assert Decimal(str(run2["grossPremium"]["amount"])) == pytest.approx(
        Decimal(str(run2["riskPremium"]["amount"])) / Decimal("0.5"), abs=Decimal("0.01")
    )
    r = await actuary.post(path, json={"simulations": 20000, "expectedLossRatio": 0.5})
    run3 = await _wait_run(actuary, path, 3)
    # Same inputs, same numbers to the last digit.
    assert run3["metrics"] == run2["metrics"]
    assert run3["riskPremium"] == run2["riskPremium"]
    runs = (await actuary.get(path)).json()
    assert [r["version"] for r in runs] == [1, 2, 3]
    assert [r["version"] for r in (await tenant.get(path)).json()] == [1]  # candidates are staff's to see
    # Candidates until another actuary publishes one (tests/api/test_pricing_publication.py).
    current = (await tenant.get(f"/internal/coverages/{coverage['id']}")).json()
    assert current["simulations"] == coverage["simulations"] and current["riskPremium"] == coverage["riskPremium"]
    r = await second_actuary.post(f"{path}/3/publish")
    assert r.status_code == 200, r.text
    assert r.json()["publishedBy"] == "bea" and r.json()["requestedBy"] == "arun"
    current = (await tenant.get(f"/internal/coverages/{coverage['id']}")).json()
    assert current["expectedLossRatio"] == 0.5 and current["simulations"] == run3["simulations"]


async def _wait_run(staff, path: str, version: int) -> dict:
    """The rerun once simulated: a CANDIDATE waiting for a second actuary."""
    for _ in range(600):
        run = (await staff.get(f"{path}/{version}")).json()
        if run["status"] in ("CANDIDATE", "COMPLETED", "FAILED"):
            assert run["status"] == "CANDIDATE", run
            return run
        await asyncio.sleep(0.2)
    raise AssertionError("pricing run did not finish")


@pytest.mark.parametrize(
    ("query", "status"),
    [
        ("targetName=12345", 400),
        ("targetName=abcdef", 400),
        ("targetName=999999", 404),
        ("monitoringTargetId=IN-00.000N-000.000E", 404),
        ("size=0", 400),
        ("size=101", 400),
        ("page=-1", 400),
        ("targetName=560001&from=2027-06-01&to=2027-01-01", 400),
        ("targetName=560001&from=2027-13-01", 400),
    ],
)
async def test_bad_catalogue_queries(tenant, query, status):
    assert_problem(await tenant.get(f"/internal/coverages?{query}"), status)


async def test_bad_pricing_run_requests(actuary, bengaluru_catalogue):
    _, body = bengaluru_catalogue
    path = f"/internal/coverages/{body['content'][0]['id']}/pricing-runs"
    for bad in ({"simulations": 10}, {"expectedLossRatio": 0}, {"expectedLossRatio": "NaN"}, {"seed": -1}):
        assert_problem(await actuary.post(path, json=bad), 400)
    assert_problem(await actuary.post("/internal/coverages/00000000-0000-0000-0000-000000000000/pricing-runs", json={}), 404)


async def test_tenants_cannot_reprice_the_shared_catalogue(tenant, bengaluru_catalogue):
    """Issue 24, finding 2: a tenant's internal client published a rerun as the price every
    tenant pays. Reruns are the actuaries' (403); the price stays."""
    _, body = bengaluru_catalogue
    coverage = body["content"][0]
    before = (await tenant.get(f"/internal/coverages/{coverage['id']}")).json()
    path = f"/internal/coverages/{coverage['id']}/pricing-runs"
    refused = assert_problem(await tenant.post(path, json={"simulations": 1000, "expectedLossRatio": 1}), 403)
    assert "actuaries" in refused["detail"]
    after = (await tenant.get(f"/internal/coverages/{coverage['id']}")).json()
    assert after["grossPremiumIndicationPct"] == before["grossPremiumIndicationPct"]
    assert after["riskPremium"] == before["riskPremium"]
