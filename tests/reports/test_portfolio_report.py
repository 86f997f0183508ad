"""The portfolio risk report (issue 27; docs/documents.md): the book's risk as its risk carrier
reads and signs it, rendered from a stored portfolio result (tests/document_samples: a result
of the real engine for a demo-like book). Text extracted with pypdf, so what is checked is what
a reader finds; the layout checked from WeasyPrint's own boxes (no value runs past its cell)."""

from __future__ import annotations

import dataclasses
import io
import re
from decimal import Decimal

import pypdf
import pytest

from reports import MEDIA_TYPE, render_portfolio_report
from reports.formatting import format_money
from reports.inputs import AsIfYearLoss, PortfolioSlice, portfolio_report_input
from reports.render import portfolio_report_html
from tests.document_samples import samples
from tests.reports.test_technical_report_fits import overflowing

A4 = (595.28, 841.89)


def _text(pdf: bytes) -> tuple[pypdf.PdfReader, list[str]]:
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    return reader, [(p.extract_text() or "").replace("\u00a0", " ") for p in reader.pages]


def money(amount: str | Decimal) -> str:
    return format_money(Decimal(str(amount)), "INR").replace("\u00a0", " ")


@pytest.fixture(scope="module")
def whole():
    data = samples.sample_portfolio_report_input()
    pdf = render_portfolio_report(data)
    reader, pages = _text(pdf)
    return data, pdf, reader, pages


def test_an_a4_pdf_with_numbered_pages_title_and_scope_on_each(whole):
    data, pdf, reader, pages = whole
    assert pdf.startswith(b"%PDF-") and MEDIA_TYPE == "application/pdf"
    assert len(pages) == 3
    for i, (page, text) in enumerate(zip(reader.pages, pages), 1):
        assert (round(float(page.mediabox.width), 1), round(float(page.mediabox.height), 1)) == (round(A4[0], 1), round(A4[1], 1))
        assert f"Page {i} of {len(pages)}" in text
        assert "Portfolio risk report · Whole book" in text and "Whole book · version 3" in text
    assert reader.metadata["/Title"] == "Portfolio risk report · Whole book"
    assert reader.metadata["/CreationDate"] == "D:20261126091405Z"


def test_fonts_are_dejavu_and_embedded(whole):
    _, _, reader, _ = whole
    fonts = {}
    for page in reader.pages:
        for font in page["/Resources"]["/Font"].values():
            font = font.get_object()
            descendant = font["/DescendantFonts"][0].get_object() if "/DescendantFonts" in font else font
            descriptor = descendant["/FontDescriptor"].get_object()
            fonts[str(font["/BaseFont"])] = any(k in descriptor for k in ("/FontFile", "/FontFile2", "/FontFile3"))
    assert fonts and all("DejaVu" in name and embedded for name, embedded in fonts.items()), fonts


def test_the_headline_figures_and_the_result_it_comes_from(whole):
    data, _, _, pages = whole
    result = samples.sample_portfolio_result()
    first = pages[0]
    for amount in (result["insured"], result["premium"], result["expectedLoss"], result["expectedLossStandardError"]):
        assert money(amount["amount"]) in first, amount
    assert "72.6%" in first  # EL / premium: 133,446,792.28 / 183,912,960.00
    assert "premium 1.38 × the expected loss" in first.replace("\n", " ")
    assert data.book_hash[:32] in first.replace("\n", "") and "26 Nov 2026" in first and "computed 2026-11-26 09:12 UTC" in first
    assert "1,000" in first and "11,000 line items" in first


def test_the_curves_as_charts_and_tables(whole):
    data, _, _, pages = whole
    result = samples.sample_portfolio_result()
    html = portfolio_report_html(data)
    assert 'data-chart="aep-curve"' in html and 'data-chart="oep-curve"' in html
    assert "Return period (years, log scale)" in pages[0] and "Loss (₹ million)" in pages[0]
    lines = [ln.strip() for ln in pages[0].splitlines()]
    for name in ("aep", "oep"):
        points = result[name]
        # each column of the table, top to bottom, as the stored result holds it
        for column in ("loss", "standardError", "tvar", "tvarStandardError"):
            want = [money(p[column]["amount"]) for p in points]
            assert any(lines[i : i + len(want)] == want for i in range(len(lines))), (name, column, want)
    assert ["1 in 10", "1 in 25", "1 in 50", "1 in 100", "1 in 200", "1 in 250"] == [
        ln for ln in lines if re.fullmatch(r"1 in \d+", ln)][:6]
    aep100 = next(p for p in result["aep"] if p["returnPeriod"] == 100)
    assert f"{money(aep100['loss']['amount'])} (AEP; TVaR" in pages[0].replace("\n", " ")


def test_the_worst_years_split_by_target(whole):
    data, _, _, pages = whole
    result = samples.sample_portfolio_result()
    text = pages[1]
    html = portfolio_report_html(data)
    assert 'data-chart="as-if-years"' in html
    for name in ("Chennai GPO", "Mumbai GPO", "Bengaluru GPO", "New Delhi GPO", "Simulated 1-in-100 AEP"):
        assert name in text
    lines = [ln.strip() for ln in text.splitlines()]
    years = result["asIfYears"]
    for column in ([str(y["year"]) for y in years], [money(y["loss"]["amount"]) for y in years]):
        assert any(lines[i : i + len(column)] == column for i in range(len(lines))), column  # worst first
    for year in years:
        for part in year["byTarget"]:
            assert money(part["loss"]["amount"]) in text
    worst = result["asIfYears"][0]
    assert f"{worst['year']}: {money(worst['loss']['amount'])}" in pages[0]
    assert "The 115 years of the record, 1901–2015, each run through the payout rule" in text.replace("\n", " ")


def test_the_largest_accumulations_by_target_month_and_peril(whole):
    data, _, _, pages = whole
    text = "\n".join(pages[1:])
    lines = [ln.strip() for ln in text.splitlines()]
    ranked = [s.name.split(" (")[0] for s in sorted(data.by_target, key=lambda s: -s.insured)]
    assert ranked[0] == "Chennai GPO"
    assert any(lines[i : i + len(ranked)] == ranked for i in range(len(lines)))  # largest insured first
    for s in data.by_target:
        assert money(s.insured) in text and money(s.premium) in text and money(s.expected_loss) in text
        assert s.key in text  # the target's id, under the table
    for month in ("Jan 2027", "Dec 2027"):
        assert month in text
    assert "Rainfall" in text and "Temperature" in text


def test_the_method_and_what_the_figures_leave_out(whole):
    _, _, _, pages = whole
    text = pages[-1].replace("\n", " ")
    assert "65,536 paths (sobol), 16 batches for the standard errors, seed 20261126" in text
    assert "pricing-2026.4.0" in text
    assert "targets independent of one another" in text
    assert "The largest loss of one monitoring target in one risk month" in text
    assert "What the figures do not include" in text
    assert "draws each target independently" in text
    assert "5,750 of the 11,000 line items hold a cover the historical record has no values for" in text
    assert "Read for Deccan Parametric Insurance Ltd." in text


def test_a_tenants_book_names_the_tenant():
    data = samples.sample_portfolio_report_input(tenant=True)
    _, pages = _text(render_portfolio_report(data))
    assert "Portfolio risk report · Hebbal Growers" in pages[0]
    assert f"Tenant {data.tenant_id} · version 3" in pages[0]
    assert len(pages) == 3
    assert f"Tenant {data.tenant_id}" in pages[0].replace("\n", " ")


def test_no_value_runs_past_its_cell():
    assert overflowing(portfolio_report_html(samples.sample_portfolio_report_input())) == []


def test_a_book_of_twenty_targets_fits_and_groups_the_rest():
    """20 targets with long names: the worst years' table keeps three targets and the others in
    one column, the chart's legend likewise, and every value still fits its cell."""
    base = samples.sample_portfolio_report_input()
    template = base.by_target[0]
    targets = tuple(dataclasses.replace(template, key=f"IN-G025-N{10000 + i}-E{70000 + i}",
                                        name=f"Target number {i} of a long name (pin code 5600{i:02d}), Karnataka",
                                        insured=template.insured * (i + 1)) for i in range(20))
    years = tuple(AsIfYearLoss(year=2000 + i, loss=Decimal("1234567.89") * 20,
                               by_target=tuple((t.key, Decimal("1234567.89")) for t in targets)) for i in range(10))
    data = dataclasses.replace(base, by_target=targets, as_if_years=years, target_names=())
    html = portfolio_report_html(data)
    assert overflowing(html) == []
    _, pages = _text(render_portfolio_report(data))
    text = "\n".join(pages)
    assert "17 other targets" in text and "Target number 19" in text


def test_an_empty_book_renders_without_curves_or_years():
    data = portfolio_report_input(
        {"currency": "INR", "policies": 0, "lineItems": 0, "insured": {"amount": "0.00", "currency": "INR"},
         "premium": {"amount": "0.00", "currency": "INR"}, "expectedLoss": {"amount": "0.00", "currency": "INR"},
         "expectedLossStandardError": {"amount": "0.00", "currency": "INR"}, "byTarget": [], "byMonth": [],
         "byPeril": [], "aep": [], "oep": [], "asIfYears": [],
         "asIfRecord": {"years": 0, "firstYear": None, "lastYear": None, "unrecordedLineItems": 0},
         "simulation": {"paths": 0, "batches": 0, "seed": 0, "method": "", "modelVersion": "", "dependence": "d",
                        "occurrence": "o"}},
        report_id="r", scope="Whole book", tenant_id=None, version=1, book_hash="0" * 64,
        as_of=samples.ISSUED_AT.date(), computed_at=samples.ISSUED_AT, workflow_id="portfolio:all:0",
        issuer="Deccan", issued_at=samples.ISSUED_AT,
    )
    _, pages = _text(render_portfolio_report(data))
    text = "\n".join(pages)
    assert "Nothing is in force in this book" in text and "No year of the record pays on this book" in text


def test_invalid_inputs_are_refused_at_construction():
    with pytest.raises(ValueError, match="add up"):
        AsIfYearLoss(year=2002, loss=Decimal("10.00"), by_target=(("a", Decimal("4.00")),))
    with pytest.raises(TypeError):
        PortfolioSlice(key="a", name="a", insured=1.5, premium=Decimal(0), expected_loss=Decimal(0),  # type: ignore[arg-type]
                       standard_error=Decimal(0), line_items=1)


def test_a_years_total_is_never_struck_through_by_the_reference_line():
    """Seen on a tenant's report: the 1-in-100 line ran through the totals of the years just
    under it ("46.5"); those totals go inside their bar's top, in white."""
    from reports.charts import as_if_years_chart

    years = tuple(AsIfYearLoss(year=y, loss=Decimal(v), by_target=(("a", Decimal(v)),))
                  for y, v in ((1989, "50000.00"), (1954, "46547.40"), (1917, "40000.00")))
    chart = as_if_years_chart(years, {"a": "Nicobars"}, "INR", ("Simulated 1-in-100 AEP", Decimal("49104.46")))
    fills = {label.text: label.fill for label in chart.labels if label.text in ("50.0", "46.5", "40.0")}
    assert fills == {"50.0": "#5b6673", "46.5": "white", "40.0": "#5b6673"}  # the line crosses the top bar, not its total
