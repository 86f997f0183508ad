"""The catalogue holds a price its burn views contradict, and an actuary's rerun may ask for
an older model version (issue 26, findings 1 and 3), over HTTP with a real Temporal server.

Chennai's January excess cover: the record's full 115 years pay it far more often than the
model's level for 2027 (the last 30 years' climate) says; the view lies above the parameter
band by more than its sampling error, so the catalogue's run is HELD and the coverage is
REVIEW: not in a tenant's quote (its January holds the heat cover alone), refused by a fast
quote, until ONE actuary publishes it (no human ran it); then it is offered at its price."""

from __future__ import annotations

import uuid
from decimal import Decimal

import msgspec
import pytest

from models.temporal.pricing import coverage_seed
from tests.api.test_business_partners import PARTNER
from tests.api.test_fast_quotes import new_fast_quote
from tests.api.test_pricing_publication import pdf_text, wait_document, wait_status
from tests.conftest import assert_problem

CHENNAI = "600001"
JANUARY = ("2027-01-01", "2027-01-31")
QUERY = f"targetName={CHENNAI}&from={JANUARY[0]}&to={JANUARY[1]}&size=100"
EXCESS = "RAINFALL_MONTHLY_TOTAL"


@pytest.fixture(scope="module")
async def january(tenant) -> list[dict]:
    r = await tenant.get(f"/internal/coverages?{QUERY}", timeout=600)
    assert r.status_code == 200, r.text
    coverages = r.json()["content"]
    assert coverages and all(c["status"] in ("ACTIVE", "REVIEW") for c in coverages), coverages
    return coverages


def _quote(target: str) -> dict:
    return {"monitoringTargetId": target, "riskPeriodFrom": JANUARY[0], "riskPeriodTo": JANUARY[1],
            "sumInsuredForLineItem": {"amount": 250000, "currency": "INR"}}


async def test_a_held_coverage_is_not_offered_until_an_actuary_publishes_it(
    january, tenant, other_tenant, actuary, second_actuary
):
    (held,) = [c for c in january if c["status"] == "REVIEW"]
    assert held["riskPremium"] is None and held["grossPremiumIndicationPct"] is None
    runs_path = f"/internal/coverages/{held['id']}/pricing-runs"
    (run,) = (await actuary.get(runs_path)).json()
    assert run["status"] == "HELD" and run["version"] == 1 and run["publishedBy"] is None
    assert run["modelVersion"] == "pricing-2026.4.0" and run["metrics"]["burnCheck"] == "HELD"
    assert run["metrics"]["review"] is True
    assert "full record" in run["holdReason"] and "held for an actuary" in run["holdReason"]
    views = {v["name"]: v for v in run["burnViews"]}
    assert list(views) == ["full record", "last 30 years", "detrended record"]
    assert views["full record"]["holds"] and views["full record"]["years"] == 115
    assert views["full record"]["burnCostRate"] > float(run["metrics"]["expectedLossBandHigh"]) / 100000
    assert {d["name"] for d in run["bandDrivers"]} >= {"sampling", "scale", "trend"}
    # a held run is not a price: tenants do not see it
    assert (await tenant.get(runs_path)).json() == []
    assert_problem(await tenant.get(f"{runs_path}/1"), 404)

    # Not sold: the tenant quote's January holds the month's other viable cover alone (the
    # deficit is not viable there; issue 33: a one-cover month is quoted, no longer refused),
    # not the held excess cover; and a fast quote refuses it.
    target = held["monitoringTargetId"]
    r = await other_tenant.post("/quotes", json=_quote(target), timeout=600)
    assert r.status_code == 200, r.text
    (item,) = r.json()["lineItems"]
    (alone,) = item["coverages"]
    assert alone["id"] != held["id"] and alone["triggerUnit"] == "°C"
    assert r.json()["uncoveredMonths"] == []
    partner = (await tenant.post("/internal/business-partners", json=PARTNER)).json()["id"]
    r = await tenant.post("/internal/fast-quotes", json=new_fast_quote(partner, [held["id"]]))
    assert_problem(r, 400)
    assert r.json()["errors"][0]["field"] == "coverageIds[0]" and "REVIEW" in r.json()["errors"][0]["message"]

    # Only an actuary publishes it, and one is enough (no human ran it).
    assert_problem(await tenant.post(f"{runs_path}/1/publish"), 403)
    r = await actuary.post(f"{runs_path}/1/publish")
    assert r.status_code == 200, r.text
    published = r.json()
    assert published["status"] == "COMPLETED" and published["publishedBy"] == "arun"
    assert published["requestedBy"] != "arun"
    assert_problem(await second_actuary.post(f"{runs_path}/1/publish"), 409)
    assert (await actuary.post(f"{runs_path}/1/publish")).status_code == 200  # the same actuary again: the same run

    coverage = (await tenant.get(f"/internal/coverages/{held['id']}")).json()
    assert coverage["status"] == "ACTIVE"
    assert Decimal(str(coverage["riskPremium"]["amount"])) == Decimal(str(published["riskPremium"]["amount"]))
    r = await other_tenant.post("/quotes", json=_quote(target), timeout=600)
    assert r.status_code == 200, r.text
    (item,) = r.json()["lineItems"]
    assert held["id"] in [c["id"] for c in item["coverages"]]
    assert [r["version"] for r in (await tenant.get(runs_path)).json()] == [1]

    # Its published technical report shows the hold, the three views and the band by driver.
    _, text = await wait_document(actuary, f"{runs_path}/1", "technicalPricingReportFileId")
    for phrase in ("Burn views and the parameter band", "full record", "last 30 years", "detrended record",
                   "Held for an actuary", "sampling", "scale", "trend"):
        assert phrase in text, phrase


async def test_a_rerun_may_ask_for_a_kept_model_version(january, actuary):
    coverage = next(c for c in january if c["status"] == "ACTIVE")
    runs_path = f"/internal/coverages/{coverage['id']}/pricing-runs"
    r = await actuary.post(runs_path, json={"modelVersion": "pricing-2025.1.0"})
    assert_problem(r, 400)
    assert r.json()["errors"][0]["field"] == "modelVersion" and "pricing-2026.3.1" in r.json()["errors"][0]["message"]

    r = await actuary.post(runs_path, json={"modelVersion": "pricing-2026.3.1", "simulations": 16384})
    assert r.status_code == 202, r.text
    version = r.json()["version"]
    run = await wait_status(actuary, f"{runs_path}/{version}", ("CANDIDATE",))
    assert run["modelVersion"] == "pricing-2026.3.1"
    assert run["burnViews"] is None and run["bandDrivers"] is None  # 2026.3.1 had neither

    # The candidate's figures are what the 2026.3.1 engine makes of the coverage's inputs.
    from activities.pricing_runs import price_coverages
    from activities.site_models import site_model
    from models.db import catalogue as catalogue_db
    from models.temporal.pricing import PriceCoverageInput
    from tests.pricing.test_pricing_run_versions import _NoProgress

    row = await catalogue_db.coverage_row(uuid.UUID(coverage["id"]))
    site = await catalogue_db.site_of(row.monitoring_target_id)
    inputs = PriceCoverageInput(
        coverage_id=row.id, version=version, simulations=16384, seed=coverage_seed(row.id),
        expected_loss_ratio=Decimal(str(run["expectedLossRatio"])), requested_by="staff:arun", candidate=True,
        model_version="pricing-2026.3.1",
    )
    (outcome,) = price_coverages(site_model(site, "pricing-2026.3.1"), [row.terms], [inputs], inputs.seed, 16384,
                                 _NoProgress(), 0.0, model_version="pricing-2026.3.1")
    assert Decimal(str(run["riskPremium"]["amount"])) == outcome.risk_premium
    assert Decimal(str(run["grossPremium"]["amount"])) == outcome.gross_premium
    stored = msgspec.to_builtins(run["metrics"])
    assert stored["burnCheck"] == outcome.metrics["burnCheck"]
    assert Decimal(str(stored["expectedLossBandHigh"])) == Decimal(outcome.metrics["expectedLossBandHigh"])
