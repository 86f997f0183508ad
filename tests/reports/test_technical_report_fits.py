"""The technical pricing report of a catalogue cover prints every value whole (issue 29,
documents): its burn table carries the adjusted index beside the record, its payouts are
up to the ₹100,000 limit, its notes are long, and every cell must still hold its value.

A value too long for its cell is cut with an ellipsis (report.css), so a page whose text
holds "…" lost a figure: on the old layout every payout of the burn table was "…", the
headers ran together ("Payout Year") and the risk metrics' Meaning was cut ("N = …")."""

from __future__ import annotations

import dataclasses
import io
import shutil
import subprocess
from decimal import Decimal
from pathlib import Path

import pypdf
import pytest

from reports import render_technical_pricing_report
from reports.inputs import BandDriverRow, BurnRow, BurnViewRow
from reports.render import (
    _fetcher,
    claim_report_html,
    _stylesheet,
    fact_sheet_html,
    policy_schedule_html,
    portfolio_report_html,
    quote_document_html,
    technical_pricing_report_html,
)
from tests.document_samples import samples

SCALE = Decimal(10)  # a ₹100,000 limit, as the catalogue's covers


@pytest.fixture(scope="module")
def catalogue_report():
    base = samples.sample_technical_pricing_report_input()
    cover = dataclasses.replace(
        base.cover, limit=base.cover.limit * SCALE, min_payout=base.cover.min_payout * SCALE,
        payout_per_unit=base.cover.payout_per_unit * SCALE,
    )
    burn = tuple(
        BurnRow(r.year, r.index_value, r.payout * SCALE,
                adjusted_index_value=None if r.index_value is None else round(r.index_value * 0.93, 1))
        for r in base.burn_rows
    )
    views = (
        BurnViewRow("full record", 1901, 2015, 0.0472, 0.019, 0.087, "cell scale", False),
        BurnViewRow("last 30 years", 1986, 2015, 0.0731, 0.041, 0.133, "cell scale", False),
        BurnViewRow("detrended record", 1901, 2015, 0.0515, 0.020, 0.096, "cell scale", False),
    )
    drivers = (
        BandDriverRow("sampling", Decimal("3497.66"), Decimal("7968.05"), Decimal("1360.12"), 0.19,
                      "bootstrap over the calibration years"),
        BandDriverRow("scale", Decimal("4101.20"), Decimal("9012.75"), Decimal("1493.10"), 0.50,
                      "cell-scale factor at the ends of its 90 % band (rain_scale.json)"),
        BandDriverRow("trend", Decimal("4400.00"), Decimal("8100.00"), Decimal("1124.62"), 0.31,
                      "risk-year level -/+ 1.645 sd (recent climate's or trend's standard error)"),
    )
    metrics = dataclasses.replace(base.metrics, simulations=131072)
    data = dataclasses.replace(base, cover=cover, burn_rows=burn, burn_views=views, band_drivers=drivers,
                               band_high=Decimal("9900.00"), metrics=metrics)
    pdf = render_technical_pricing_report(data)
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    return data, pdf, [(p.extract_text() or "").replace("\u00a0", " ") for p in reader.pages]


def overflowing(html: str) -> list[tuple[int, str, float]]:
    """Text that runs past its table cell, from WeasyPrint's own layout (what the PDF's text
    cannot tell: a clipped value is still in the text layer): (page, text, px beyond the
    cell's padding box)."""
    import weasyprint
    from weasyprint.formatting_structure import boxes

    def walk(box):
        yield box
        for child in getattr(box, "children", None) or ():
            yield from walk(child)

    found = []
    document = weasyprint.HTML(string=html, url_fetcher=_fetcher()).render(stylesheets=[_stylesheet()])
    for number, page in enumerate(document.pages, start=1):
        for cell in walk(page._page_box):
            if isinstance(cell, boxes.TableCellBox):
                right = cell.padding_box_x() + cell.padding_width()
                for box in walk(cell):
                    if isinstance(box, boxes.TextBox) and box.position_x + box.width > right + 0.5:
                        found.append((number, box.text[:60], round(box.position_x + box.width - right, 1)))
    return found


def test_no_value_is_cut(catalogue_report):
    data, _, pages = catalogue_report
    assert overflowing(technical_pricing_report_html(data)) == []
    for number, text in enumerate(pages, start=1):
        assert "…" not in _body(text), (number, text)


@pytest.mark.parametrize("document", ["fact sheet", "technical report", "quote document", "policy schedule", "claim report",
                                      "portfolio report"])
def test_no_document_runs_text_past_its_cells(document):
    html = {
        "fact sheet": lambda: fact_sheet_html(samples.sample_fact_sheet_input()),
        "technical report": lambda: technical_pricing_report_html(samples.sample_technical_pricing_report_input()),
        "quote document": lambda: quote_document_html(samples.sample_quote_document_input()),
        "policy schedule": lambda: policy_schedule_html(samples.sample_policy_schedule_input()),
        "claim report": lambda: claim_report_html(samples.sample_claim_report_input()),
        "portfolio report": lambda: portfolio_report_html(samples.sample_portfolio_report_input()),
    }[document]()
    assert overflowing(html) == []


def _body(page: str) -> str:
    """A page's text without its footer (which shortens the data hash on purpose: "a2e…")."""
    return "\n".join(line for line in page.splitlines() if not line.startswith("Seed "))


def test_every_payout_of_the_burn_table_is_printed(catalogue_report):
    data, _, pages = catalogue_report
    text = "\n".join(_body(p) for p in pages)
    paid = [r for r in data.burn_rows if r.payout]
    assert paid
    for r in paid:
        assert f"{r.payout:,.0f}" in text, r
    assert "Payout Year" not in text and "…" not in text


@pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="pdftoppm (Debian poppler-utils) not installed")
def test_the_pages_rasterise(catalogue_report, tmp_path):
    _, pdf, pages = catalogue_report
    (tmp_path / "tech.pdf").write_bytes(pdf)
    subprocess.run(["pdftoppm", "-png", "-r", "40", str(tmp_path / "tech.pdf"), str(tmp_path / "tech")], check=True, timeout=60)
    pngs = sorted(tmp_path.glob("tech-*.png"))
    assert len(pngs) == len(pages) and all(p.stat().st_size > 2000 for p in pngs)


def test_the_page_images_script_renders_every_document(tmp_path):
    """docs/document-pages comes from this script: every document, every page."""
    import subprocess as sp
    import sys

    if shutil.which("pdftoppm") is None:
        pytest.skip("pdftoppm (Debian poppler-utils) not installed")
    done = sp.run([sys.executable, "-m", "tests.document_samples.render_pages", str(tmp_path), "--dpi", "20"],
                  capture_output=True, text=True, timeout=300, cwd=Path(samples.__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr
    names = {p.name.rsplit("-", 1)[0] for p in tmp_path.glob("*.png")}
    assert names == {"fact-sheet", "technical-pricing-report", "quote-document", "policy-schedule",
                     "policy-schedule-cancelled", "claim-report", "portfolio-risk-report"}
