"""Documents as PDFs: every priced coverage links a fact sheet and a technical pricing
report; an activated policy gets its schedule. Downloads are scoped by tenant."""

from __future__ import annotations

import asyncio
import io

import pytest
from pypdf import PdfReader

from tests.api.test_quotes_policies import new_quote
from tests.conftest import assert_problem

CHENNAI = "600001"


def pdf_text(content: bytes) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(content)).pages)


@pytest.fixture(scope="module")
async def documented_coverage(tenant) -> dict:
    query = f"targetName={CHENNAI}&from=2027-11-01&to=2027-11-30&size=10"
    for _ in range(900):
        body = (await tenant.get(f"/internal/coverages?{query}")).json()
        rain = [c for c in body["content"] if c["riskTypeId"] == "RAINFALL" and c["triggerLabel"].endswith("above")]
        if rain and rain[0]["factSheetReportFileId"] and rain[0]["technicalPricingReportFileId"]:
            return rain[0]
        await asyncio.sleep(0.2)
    raise AssertionError("documents were not rendered")


async def test_fact_sheet_downloads_as_a_pdf_with_the_cover_in_plain_words(tenant, documented_coverage):
    c = documented_coverage
    r = await tenant.get(f"/internal/files/{c['factSheetReportFileId']}")
    assert r.status_code == 200
    assert r.headers["content-type"] == "application/pdf"
    assert r.content.startswith(b"%PDF")
    reader = PdfReader(io.BytesIO(r.content))
    assert 1 <= len(reader.pages) <= 2
    text = pdf_text(r.content)
    assert "Chennai" in text
    assert "mm" in text
    assert f"{c['trigger']:g}".split(".")[0] in text.replace(",", "")
    # the settlement basis frozen into the cover (issue 34): its ladder and the first payment's deadline
    flat = " ".join(text.split()).replace("- ", "-")  # a data set's id may break at its hyphen
    assert "final IMD-RF-DAILY → provisional IMD-RF-DAILY → fallback REAN-SFC-HOURLY" in flat
    assert "First payment within 15 days of the period's end (by 15 Dec 2027)" in flat
    assert r.headers["etag"].strip('"') == r.headers["x-content-sha256"]


async def test_technical_report_has_the_actuarial_content(tenant, documented_coverage):
    c = documented_coverage
    r = await tenant.get(f"/internal/files/{c['technicalPricingReportFileId']}")
    assert r.status_code == 200
    text = pdf_text(r.content)
    for words in ("sha256:", "pricing-2026", "TVaR", "99.5", "Burn", "1901"):
        assert words in text, words
    runs = (await tenant.get(f"/internal/coverages/{c['id']}/pricing-runs")).json()
    assert runs[-1]["technicalPricingReportFileId"] == c["technicalPricingReportFileId"]


async def test_catalogue_documents_are_shared_and_the_fact_sheet_is_on_the_tenant_surface(
    tenant, other_tenant, documented_coverage
):
    """A coverage's fact sheet is every buyer's to read, on either surface (issue 29: the
    tenant surface answered 404); its technical pricing report is the internal surface's."""
    file_id = documented_coverage["factSheetReportFileId"]
    assert (await other_tenant.get(f"/internal/files/{file_id}")).status_code == 200
    fact_sheet = await tenant.get(f"/files/{file_id}")
    assert fact_sheet.status_code == 200 and fact_sheet.content.startswith(b"%PDF")
    assert_problem(await tenant.get(f"/files/{documented_coverage['technicalPricingReportFileId']}"), 404)
    assert_problem(await tenant.get("/internal/files/7d0a8f0e-0000-4000-8000-000000000000"), 404)


async def test_activated_policy_gets_a_schedule_only_its_tenant_can_read(tenant, other_tenant):
    quote = (await tenant.post("/quotes", json=new_quote())).json()
    policy = (await tenant.patch(f"/quotes/{quote['id']}")).json()
    body = assert_problem(await tenant.get(f"/policies/{policy['id']}/schedule"), 409)  # a draft has none
    assert "activated" in body["detail"]
    assert (await tenant.patch(f"/policies/{policy['id']}")).status_code == 200
    pending = 0
    for _ in range(600):
        r = await tenant.get(f"/policies/{policy['id']}/schedule")
        if r.status_code == 200:
            break
        assert r.status_code == 202 and r.headers["retry-after"] and r.json()["status"] == "RENDERING", r.text
        pending += 1
        await asyncio.sleep(0.2)
    assert r.status_code == 200 and r.content.startswith(b"%PDF")
    text = pdf_text(r.content)
    assert policy["id"] in text.replace("\n", "") or policy["id"][:8] in text
    assert "ACCEPTED" in text or "Accepted" in text
    flat = " ".join(text.split())  # each cover's ladder and deadlines (issue 34)
    assert "Settlement basis" in flat and "First payment at the latest" in flat and "IMD real-time 0.25°" in flat
    assert_problem(await other_tenant.get(f"/policies/{policy['id']}/schedule"), 404)
    from models.db.policies import policy_row

    row = await policy_row(tenant.id, policy["id"])
    file_id = row.schedule_file_id
    assert (await tenant.get(f"/files/{file_id}")).status_code == 200
    assert (await tenant.get(f"/internal/files/{file_id}")).status_code == 200
    assert_problem(await other_tenant.get(f"/files/{file_id}"), 404)
    assert_problem(await other_tenant.get(f"/internal/files/{file_id}"), 404)


async def test_rendering_twice_stores_once(documented_coverage):
    """A retried render activity finds its files and stores nothing new."""
    from activities.documents import render_coverage_documents
    from models.db.tables import StoredFile

    # Other coverages' documents may be rendering meanwhile: count this coverage's files only.
    mine = StoredFile.id.is_in(
        [documented_coverage["factSheetReportFileId"], documented_coverage["technicalPricingReportFileId"]]
    )
    before = await StoredFile.select(StoredFile.id, StoredFile.sha256, StoredFile.created_at).where(mine)
    assert len(before) == 2
    result = await render_coverage_documents(documented_coverage["id"], 1)
    assert str(result.fact_sheet_file_id) == documented_coverage["factSheetReportFileId"]
    assert await StoredFile.select(StoredFile.id, StoredFile.sha256, StoredFile.created_at).where(mine) == before


async def test_a_cancelled_policys_schedule_says_so(tenant, other_tenant):
    """The schedule describes the policy as it is now (issue 29): once cancelled it is issued
    again, CANCELED with the date; the one issued at activation is kept (it said ACCEPTED
    after the cancellation)."""
    import datetime as dt

    quote = (await tenant.post("/quotes", json=new_quote())).json()
    policy = (await tenant.patch(f"/quotes/{quote['id']}")).json()
    assert (await tenant.patch(f"/policies/{policy['id']}")).status_code == 200

    async def schedule_text() -> str:
        for _ in range(600):
            r = await tenant.get(f"/policies/{policy['id']}/schedule", timeout=60)
            if r.status_code == 200:
                return " ".join(pdf_text(r.content).split())
            assert r.status_code == 202, r.text
            await asyncio.sleep(0.2)
        raise AssertionError("the schedule was never rendered")

    issued = await schedule_text()
    assert "ACCEPTED" in issued and "cancelled" not in issued
    assert (await tenant.delete(f"/policies/{policy['id']}")).status_code == 200
    reissued = await schedule_text()
    today = dt.datetime.now(dt.timezone.utc).date()
    assert "CANCELED" in reissued and "ACCEPTED" not in reissued
    assert f"This policy was cancelled on {today.day} {today:%b %Y}." in reissued
    assert_problem(await other_tenant.get(f"/policies/{policy['id']}/schedule"), 404)
    from models.db.files import schedule_file_id
    from models.db.policies import policy_row

    row = await policy_row(tenant.id, policy["id"])
    assert row.schedule_file_id == schedule_file_id(policy["id"], True)
    original = await tenant.get(f"/files/{schedule_file_id(policy['id'])}")
    assert original.status_code == 200 and "ACCEPTED" in pdf_text(original.content)  # kept as issued
