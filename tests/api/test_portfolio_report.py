"""The portfolio risk report (issue 27; docs/documents.md), over real HTTP against the test
service: `GET /internal/portfolio/report.pdf` answers the PDF of the book's last stored result
(rendered on the documents queue when first asked for, then served as stored), for the same
callers and books as `GET /internal/portfolio`; 404 before the book has a result. The books are
written as tests/api/test_portfolio.py writes them."""

from __future__ import annotations

import asyncio
import io
import uuid
from decimal import Decimal

import pypdf

from reports.formatting import format_money
from tests.api.test_portfolio import _computed, _policy, _targets
from tests.api.test_portfolio import whole_book_paths_removed_after  # noqa: F401 - autouse: the whole-book run's paths go
from tests.conftest import assert_problem


async def _report(client, params=None):
    """Ask until the report is rendered (202 with Retry-After while it renders)."""
    for _ in range(120):
        r = await client.get("/internal/portfolio/report.pdf", params=params or {})
        if r.status_code != 202:
            return r
        assert r.headers["retry-after"] and r.json()["status"] == "RENDERING", r.text
        await asyncio.sleep(0.5)
    raise AssertionError("the report is still rendering")


def _text(pdf: bytes) -> str:
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    return "\n".join((p.extract_text() or "") for p in reader.pages).replace("\u00a0", " ")


def _money(amount: Decimal) -> str:
    return format_money(amount, "INR")


async def test_the_report_of_a_tenants_book_and_of_the_whole_book(make_tenant, operations_staff, data_staff, actuary):
    acme = await make_tenant(internal=True, name=f"Acme Agri Risk {uuid.uuid4().hex[:6]}")
    globex = await make_tenant(internal=True)
    a, b = await _targets()
    await _policy(acme.id, a, [7, 8], 20, 120_000)
    await _policy(acme.id, b, [7], 10, 60_000)
    await _policy(globex.id, a, [9], 5, 30_000)

    # no result of the book yet: 404, saying what to ask first
    problem = assert_problem(await acme.get("/internal/portfolio/report.pdf"), 404)
    assert "GET /internal/portfolio" in problem["detail"]

    view = await _computed(acme)
    r = await _report(acme)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"] == "application/pdf"
    assert r.headers["content-disposition"] == f'inline; filename="portfolio-risk-report-{acme.id}-v1.pdf"'
    assert r.content.startswith(b"%PDF-")
    text = _text(r.content)
    flat = text.replace("\n", " ")
    assert f"Portfolio risk report · {(await _tenant_name(acme))}" in text
    assert f"Tenant {acme.id} · version 1" in text and view["bookHash"][:12] in text
    aep100 = next(p for p in view["aep"] if p["returnPeriod"] == 100)
    assert _money(aep100["loss"]["amount"]) in text  # as the JSON view has it, to the paisa
    worst = view["asIfYears"][0]
    assert f"{worst['year']}: {_money(worst['loss']['amount'])}" in flat
    assert _money(view["insured"]["amount"]) in text and _money(view["premium"]["amount"]) in text

    # asked again: the stored file, byte for byte; operations staff read the same file
    again = await acme.get("/internal/portfolio/report.pdf")
    assert again.status_code == 200 and again.content == r.content
    assert again.headers["x-content-sha256"] == r.headers["x-content-sha256"]
    theirs = await operations_staff.get("/internal/portfolio/report.pdf", params={"tenantId": acme.id})
    assert theirs.status_code == 200 and theirs.content == r.content

    # another tenant's book answers as GET /internal/portfolio does
    refused = assert_problem(await globex.get("/internal/portfolio/report.pdf", params={"tenantId": acme.id}), 400)
    same = assert_problem(await globex.get("/internal/portfolio", params={"tenantId": acme.id}), 400)
    assert refused["errors"] == same["errors"] and "tenantId" in str(refused)
    assert_problem(await operations_staff.get("/internal/portfolio/report.pdf", params={"tenantId": str(uuid.uuid4())}), 404)

    # the whole book: operations staff only, its own file
    whole = await _computed(operations_staff)
    book = await _report(operations_staff)
    assert book.status_code == 200, book.text
    assert book.headers["content-disposition"] == (
        f'inline; filename="portfolio-risk-report-whole-book-v{whole["version"]}.pdf"')
    book_text = _text(book.content)
    assert "Portfolio risk report · Whole book" in book_text and f"Whole book · version {whole['version']}" in book_text
    assert _money(next(p for p in whole["aep"] if p["returnPeriod"] == 100)["loss"]["amount"]) in book_text
    # a tenant's client never gets the whole book's: its own book instead
    own = await acme.get("/internal/portfolio/report.pdf")
    assert own.content == r.content

    # Read by id (issue 33: data and actuary staff read the whole book's at /internal/files,
    # though this route refuses them): the whole book's is the operations staff's only, a
    # tenant's book's the tenant's and theirs.
    from models.db import portfolio_reports

    whole_id = portfolio_reports.report_file_id("all", whole["version"])
    assert (await operations_staff.get(f"/internal/files/{whole_id}")).content == book.content
    for client in (data_staff, actuary, acme, globex):
        assert_problem(await client.get(f"/internal/files/{whole_id}"), 404)
    assert_problem(await acme.get(f"/files/{whole_id}"), 404)
    acme_id = portfolio_reports.report_file_id(acme.id, 1)
    assert (await acme.get(f"/internal/files/{acme_id}")).content == r.content
    assert (await operations_staff.get(f"/internal/files/{acme_id}")).content == r.content
    for client in (data_staff, actuary, globex):
        assert_problem(await client.get(f"/internal/files/{acme_id}"), 404)


async def _tenant_name(client) -> str:
    from models.db.tables import Tenant

    row = await Tenant.select(Tenant.name).where(Tenant.id == uuid.UUID(client.id)).first()
    return row["name"]
