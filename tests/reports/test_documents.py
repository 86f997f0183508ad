"""The four documents: they render to A4 PDFs with the expected pages, texts, charts and
fonts. Text is extracted with pypdf, so what is checked is what a reader can find."""

from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import io
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from decimal import Decimal

import pypdf
import pytest

from reports import (
    MEDIA_TYPE,
    render_fact_sheet,
    render_policy_schedule,
    render_quote_document,
    render_technical_pricing_report,
)
from reports.inputs import Direction, Party
from tests.document_samples import samples
from reports.formatting import (
    format_date,
    format_index,
    format_money,
    format_number,
    format_pct,
    format_probability,
)
from reports.render import fact_sheet_html

A4 = (595.28, 841.89)  # points


@dataclasses.dataclass
class Rendered:
    pdf: bytes
    reader: pypdf.PdfReader
    pages: list[str]  # extracted text per page, NBSP folded to space

    @property
    def text(self) -> str:
        return "\n".join(self.pages)

    def flat(self) -> str:
        """All text without whitespace, case-folded: phrases that wrap in the layout (or are
        upper-cased by the stylesheet) still match ``S(phrase)``."""
        return S(self.text)


def S(text: str) -> str:
    return re.sub(r"\s+", "", text).casefold()


def has_column(r: Rendered, values: list[str]) -> bool:
    """The values appear as consecutive lines: the big tables put a whole column in one
    cell, line under line, so that is how a row's values stay in order (blank cells skip)."""
    lines = [ln.strip() for ln in r.text.splitlines() if ln.strip()]
    want = [v.replace("\u00a0", " ").strip() for v in values if v.strip()]
    return any(lines[i : i + len(want)] == want for i in range(len(lines) - len(want) + 1))


def _read(pdf: bytes) -> Rendered:
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    pages = [(p.extract_text() or "").replace("\u00a0", " ") for p in reader.pages]
    return Rendered(pdf, reader, pages)


@pytest.fixture(scope="module")
def fact_input():
    return samples.sample_fact_sheet_input()


@pytest.fixture(scope="module")
def tech_input():
    return samples.sample_technical_pricing_report_input()


@pytest.fixture(scope="module")
def quote_input():
    return samples.sample_quote_document_input()


@pytest.fixture(scope="module")
def policy_input():
    return samples.sample_policy_schedule_input()


@pytest.fixture(scope="module")
def fact(fact_input) -> Rendered:
    return _read(render_fact_sheet(fact_input))


@pytest.fixture(scope="module")
def tech(tech_input) -> Rendered:
    return _read(render_technical_pricing_report(tech_input))


@pytest.fixture(scope="module")
def quote(quote_input) -> Rendered:
    return _read(render_quote_document(quote_input))


@pytest.fixture(scope="module")
def policy(policy_input) -> Rendered:
    return _read(render_policy_schedule(policy_input))


def money(v: Decimal, places: int = 2) -> str:
    return format_money(v, "INR", places)


def path_operators(page: pypdf.PageObject) -> int:
    """Vector drawing operators (line-to and rectangle) in a page's content stream."""
    data = page.get_contents().get_data()
    return len(re.findall(rb" l\n", data)) + len(re.findall(rb" re\n", data))


# --- all documents --------------------------------------------------------------------------


@pytest.mark.parametrize("doc", ["fact", "tech", "quote", "policy"])
def test_is_an_a4_pdf_with_numbered_pages_and_metadata(doc, request):
    r: Rendered = request.getfixturevalue(doc)
    assert r.pdf.startswith(b"%PDF-")
    assert MEDIA_TYPE == "application/pdf"
    n = len(r.reader.pages)
    for i, page in enumerate(r.reader.pages, 1):
        box = page.mediabox
        assert (round(float(box.width), 1), round(float(box.height), 1)) == (round(A4[0], 1), round(A4[1], 1))
        assert f"Page {i} of {n}" in r.pages[i - 1]
    assert r.reader.metadata["/CreationDate"] == "D:" + samples.ISSUED_AT.strftime("%Y%m%d%H%M%S") + "Z" or doc == "policy"
    assert r.reader.metadata["/Title"]


@pytest.mark.parametrize("doc", ["fact", "tech", "quote", "policy"])
def test_fonts_are_dejavu_and_embedded(doc, request):
    r: Rendered = request.getfixturevalue(doc)
    fonts = {}
    for page in r.reader.pages:
        for font in page["/Resources"]["/Font"].values():
            font = font.get_object()
            descendant = font["/DescendantFonts"][0].get_object() if "/DescendantFonts" in font else font
            descriptor = descendant["/FontDescriptor"].get_object()
            fonts[str(font["/BaseFont"])] = any(k in descriptor for k in ("/FontFile", "/FontFile2", "/FontFile3"))
    assert fonts, "no fonts"
    for name, embedded in fonts.items():
        assert "DejaVu" in name, f"fallback font {name}: is fonts-dejavu-core installed?"
        assert embedded, f"{name} is not embedded"


@pytest.mark.parametrize("doc", ["fact", "tech", "quote", "policy"])
def test_header_carries_title_and_id_on_every_page(doc, request, fact_input, tech_input, quote_input, policy_input):
    r: Rendered = request.getfixturevalue(doc)
    ident = {
        "fact": fact_input.cover.coverage_id,
        "tech": tech_input.cover.coverage_id,
        "quote": quote_input.quote_id,
        "policy": policy_input.policy_id,
    }[doc]
    title = {"fact": "Fact sheet", "tech": "Technical pricing report", "quote": "Quote", "policy": "Policy schedule"}[doc]
    for text in r.pages:
        assert ident in text
        assert title in text


def test_same_input_gives_the_same_bytes(fact_input, fact):
    from weasyprint.text.ffi import harfbuzz_subset

    if harfbuzz_subset is None:
        pytest.skip("font subsetting falls back to fontTools (Debian libharfbuzz-subset0 missing), output not reproducible")
    assert render_fact_sheet(fact_input) == fact.pdf


# --- fact sheet ----------------------------------------------------------------------------


def test_fact_sheet_fits_on_one_or_two_pages(fact, fact_input):
    assert len(fact.reader.pages) == 1  # the sample fits on one page
    deficit = _read(render_fact_sheet(samples.sample_fact_sheet_input(deficit=True)))
    assert 1 <= len(deficit.reader.pages) <= 2


def test_fact_sheet_states_the_cover_in_plain_words(fact, fact_input):
    c = fact_input.cover
    text = fact.flat()
    for expected in [
        "Excess rainfall, September 2027",
        "Your cover in plain words",
        "Bengaluru GPO (pin code 560001), Karnataka",
        "12.9818° N, 77.5931° E",
        "1 Sep 2027 – 30 Sep 2027 (30 days, both days included)",
        "Total rainfall over the risk period",
        "The cover pays when the monthly total rainfall measured for the risk period is 200 mm or more.",
        f"At the trigger it pays {money(c.min_payout)}, plus {money(c.payout_per_unit)} for every mm above 200 mm, "
        f"up to the limit of {money(c.limit)}, which is reached at 260 mm (the exit).",
        "Premium indication",
        money(c.gross_premium),
        format_pct(c.premium_indication_pct),
    ]:
        assert S(expected) in text, expected


def test_fact_sheet_examples_follow_the_payout_curve(fact):
    text = fact.flat()
    # trigger 200 mm pays the minimum, halfway to the exit pays half-way to the limit
    assert S("200 mm ₹1,000.00") in text
    assert S("230 mm ₹5,500.00") in text
    assert S("260 mm ₹10,000.00") in text
    assert S("180 mm ₹0.00") in text


def test_fact_sheet_history_summary(fact, fact_input):
    paid = [h for h in fact_input.history if h.payout > 0]
    assert S(f"would have paid in {len(paid)} years") in fact.flat()
    assert S(f"most recently in {paid[-1].year}") in fact.flat()


def test_fact_sheet_has_its_two_charts(fact):
    text = fact.text
    for label in ["Payout (₹)", "Trigger 200 mm", "Exit 260 mm", "Limit ₹10,000", "Year with a payout", "Year", "1950"]:
        assert label in text, label
    assert path_operators(fact.reader.pages[0]) > 150  # bars, axes, ticks, curve


def test_fact_sheet_html_embeds_svg_charts(fact_input):
    html = fact_sheet_html(fact_input)
    found = re.findall(r'data-chart="([^"]+)"[^>]*><img alt="[^"]*" src="data:image/svg\+xml;base64,([^"]+)"', html)
    assert [name for name, _ in found] == ["payout-curve", "historical-index"]
    for _, data in found:
        ET.fromstring(base64.b64decode(data))


def test_deficit_fact_sheet_says_below():
    r = _read(render_fact_sheet(samples.sample_fact_sheet_input(deficit=True)))
    text = r.flat()
    assert S("Rainfall deficit, September 2027") in text
    assert S("80 mm or less") in text
    assert S("for every mm below 80 mm") in text
    assert S("at or below") in text


def test_fact_sheet_without_exit(fact_input):
    data = dataclasses.replace(fact_input, cover=dataclasses.replace(fact_input.cover, exit=None))
    text = _read(render_fact_sheet(data)).flat()
    assert S("up to the limit of ₹10,000.00. Amounts") in text
    assert S("capped by the limit") in text


def test_customer_text_is_escaped_and_fetches_nothing(fact_input, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET")
    name = f'<img src="file://{secret}"> Hotel & <b>Spa</b>'
    data = dataclasses.replace(fact_input, cover=dataclasses.replace(fact_input.cover, monitoring_target_name=name))
    text = _read(render_fact_sheet(data)).flat()
    assert S("Hotel & <b>Spa</b>") in text
    assert S("TOP SECRET") not in text


# --- technical pricing report ------------------------------------------------------------------


def test_technical_report_pages(tech):
    assert len(tech.reader.pages) == 4


def test_technical_report_risk_metrics_and_run(tech, tech_input):
    m = tech_input.metrics
    text = tech.flat()
    rows = [
        ("Expected loss (EL)", money(m.expected_loss)),
        ("Standard deviation σ", money(m.standard_deviation)),
        ("Standard error of EL", money(m.standard_error)),
        ("P(attach)", format_probability(m.p_attach)),
        ("P(exhaust)", format_probability(m.p_exhaust)),
        ("VaR 99%", money(m.var_99)),
        ("TVaR 99%", money(m.tvar_99)),
        ("VaR 99.5%", money(m.var_995)),
        ("TVaR 99.5%", money(m.tvar_995)),
    ]
    assert has_column(tech, [label for label, _ in rows])
    assert has_column(tech, [value for _, value in rows])
    for expected in [
        f"Risk premium {money(m.risk_premium)}",
        f"Gross premium {money(m.gross_premium)}",
        f"Expected loss ratio {format_pct(m.expected_loss_ratio, 1)}",
        f"Simulations N {format_number(m.simulations)}",
        f"Seed {m.seed}",
        m.model_version,
        "Risk loading",
        "Expense and profit loading",
    ]:
        assert S(expected) in text, expected
    assert S(m.data_hash) in text  # long, wraps inside its cell


def test_technical_report_calibration(tech, tech_input):
    text = tech.flat()
    cal = tech_input.calibration
    assert S("Data sources and calibration") in text
    assert S(cal.distribution) in text
    for source in cal.data_sources:
        assert S(source.id) in text and S(source.period) in text
    names = [p.name for p in (*cal.parameters, *cal.statistics)]
    assert has_column(tech, names)
    assert has_column(tech, ["0.0000", "6.3654", "21.57 mm", "137.31 mm", "0.0670", "115"])


def test_technical_report_burn_analysis(tech, tech_input):
    rows = tech_input.burn_rows
    burn_cost = sum(r.payout for r in rows) / len(rows)
    text = tech.flat()
    assert S("Burn analysis") in text
    assert S(f"Burn cost {money(burn_cost)}") in text
    assert S(f"{len(rows)} years") in text
    body = tech.pages[-1]
    for r in rows:
        assert str(r.year) in body
    for r in rows:
        if r.payout:
            assert format_number(r.payout, 0) in body


def test_technical_report_has_all_six_charts(tech):
    text = tech.text
    for label in [
        "Observed (10–90%)",  # monthly fit
        "Fitted quantile (mm)",  # QQ
        "Monthly total rainfall (mm)",  # payout curve
        "Share of simulations",  # histogram
        "P(payout > x)",  # exceedance
        "1% · VaR 99",
        "Simulations N (log scale)",  # convergence
        "±2 SE",
    ]:
        assert label in text, label
    assert sum(path_operators(p) for p in tech.reader.pages) > 400


def test_technical_report_convergence_table(tech, tech_input):
    last = tech_input.convergence.points[-1]
    assert format_number(last.simulations) in tech.text
    assert format_number(last.estimate, 2) in tech.text


# --- quote document ------------------------------------------------------------------------------


def test_quote_pages(quote):
    assert len(quote.reader.pages) == 3


def test_quote_parties_validity_and_totals(quote, quote_input):
    text = quote.flat()
    for party in (quote_input.insurer, quote_input.customer, quote_input.intermediary):
        assert S(party.name) in text
    assert S(f"Valid until {format_date(quote_input.valid_until)}") in text
    assert S(f"This quote is valid until {format_date(quote_input.valid_until)}") in text


def test_quote_says_when_acceptance_closes_as_the_service_enforces_it(quote, quote_input):
    """The date printed is the last (UTC) day the service accepts; the closing moment is
    00:00 UTC the day after, 05:30 IST (models/domain/lifecycle.py quote_deadline). Before,
    the document said "accept before this date" of a date on which acceptance was open."""
    text = quote.flat()
    closes = quote_input.valid_until + dt.timedelta(days=1)
    assert S(f"acceptance closes at {closes:%Y-%m-%d} 00:00 UTC (05:30 IST)") in text
    assert S("accept before this date") not in text
    assert S(quote_input.quote_id) in text
    assert S(quote_input.external_ref) in text
    assert S(f"Total, 12 line items, 24 covers {money(quote_input.total_sum_insured, 0)} {money(quote_input.gross_premium)}") in text


def test_quote_lists_every_cover_with_sum_insured_and_premium(quote, quote_input):
    text = quote.flat()
    assert has_column(quote, [money(qc.premium) for qc in quote_input.covers[:12]])
    # the sum insured is the line item's, on its first cover's row: the column adds up to the total
    firsts = [qc for i, qc in enumerate(quote_input.covers) if i == 0 or qc.line_item != quote_input.covers[i - 1].line_item]
    assert has_column(quote, [money(qc.sum_insured, 0) for qc in firsts[:6]])
    assert sum(qc.sum_insured for qc in firsts) == quote_input.total_sum_insured
    assert has_column(quote, [qc.cover.index_name for qc in quote_input.covers[:12]])
    for qc in quote_input.covers:
        assert S(money(qc.premium)) in text
        assert S(qc.cover.coverage_id) in text
    assert text.count(S("Monthly total rainfall")) >= 12
    assert text.count(S("Maximum temperature")) >= 12


def test_quote_aggregated_pricing(quote, quote_input):
    m = quote_input.pricing.metrics
    text = quote.flat()
    assert S("Aggregated pricing") in text
    assert has_column(quote, ["Expected loss (EL)", "Standard deviation σ", "Standard error of EL", "P(attach)", "P(exhaust)", "VaR 99%", "TVaR 99%", "VaR 99.5%", "TVaR 99.5%"])
    assert has_column(quote, [money(m.expected_loss), money(m.standard_deviation), money(m.standard_error)])
    assert has_column(quote, [money(m.var_99), money(m.tvar_99), money(m.var_995), money(m.tvar_995)])
    assert S(f"Simulations N {format_number(m.simulations)}") in text


def test_quote_charts(quote):
    for label in ["Premium (₹)", "Expected loss", "Line item (risk period start)", "P(payout > x)", "Share of simulations"]:
        assert label in quote.text, label
    assert sum(path_operators(p) for p in quote.reader.pages) > 200


def test_quote_without_intermediary(quote_input):
    data = dataclasses.replace(quote_input, intermediary=None)
    text = _read(render_quote_document(data)).flat()
    assert S("Intermediary") not in text
    assert S(quote_input.intermediary.name) not in text


# --- policy schedule ------------------------------------------------------------------------------


def test_policy_pages(policy):
    assert len(policy.reader.pages) == 3


def test_policy_terms_per_line_item_and_cover(policy, policy_input):
    text = policy.flat()
    assert S("Schedule of line items and covers") in text
    for li in policy_input.line_items:
        assert S(f"Line item {li.name}") in text
        assert S(li.line_item_id) in text
        for c in li.covers:
            assert S(c.coverage_id) in text
    # Column by column, line items (bold lines) and their covers in order.
    covers = [(li, c) for li in policy_input.line_items for c in li.covers]
    sign = {"ABOVE": "≥", "BELOW": "≤"}
    assert has_column(policy, [f"{sign[c.direction]} {format_index(c.trigger, c.unit)}" for _, c in covers])
    assert has_column(policy, [format_index(c.exit, c.unit) for _, c in covers])
    max_payout = []
    for li in policy_input.line_items:
        max_payout.append(money(li.total_sum_insured, 0))
        max_payout += [money(c.limit * li.quantity, 0) for c in li.covers]
    assert has_column(policy, max_payout)
    premiums = []
    for li in policy_input.line_items:
        premiums.append(money(li.premium))
        premiums += [money(c.gross_premium * li.quantity) for c in li.covers]
    assert has_column(policy, premiums)
    assert S(f"Total, 12 line items, 24 covers {money(policy_input.total_sum_insured, 0)} {money(policy_input.gross_premium)}") in text


def test_policy_activation_and_parties(policy, policy_input):
    text = policy.flat()
    assert S("Activated 2026-09-02 06:45 UTC (12:15 IST)") in text
    assert S("signature confirmed") in text
    assert S(policy_input.policy_holder.name) in text
    assert S(policy_input.insurer.name) in text
    assert S(policy_input.quote_id) in text
    for exclusion in policy_input.exclusions:
        assert S(exclusion[:40]) in text


def test_policy_timeline_chart(policy):
    text = policy.pages[0]
    for label in ["Monthly total rainfall (mm)", "Maximum temperature (°C)", "≥200", "≥31", "Jan 27", "Dec"]:
        assert label in text, label
    assert path_operators(policy.reader.pages[0]) > 40


def test_policy_not_yet_activated(policy_input):
    data = dataclasses.replace(policy_input, activated_at=None, status="CREATED", signature_confirmed=False)
    text = _read(render_policy_schedule(data)).flat()
    assert S("not yet activated") in text
    assert S("signature pending") in text


def test_parties_with_minimal_details(policy_input):
    data = dataclasses.replace(policy_input, policy_holder=Party(name="A. Farmer"), intermediary=None)
    text = _read(render_policy_schedule(data)).flat()
    assert S("A. Farmer") in text


# --- the visual check, automated as far as it goes -----------------------------------------------


@pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="pdftoppm (Debian poppler-utils) not installed")
def test_every_page_rasterises(fact, tech, quote, policy, tmp_path):
    for name, r in {"fact": fact, "tech": tech, "quote": quote, "policy": policy}.items():
        pdf = tmp_path / f"{name}.pdf"
        pdf.write_bytes(r.pdf)
        subprocess.run(["pdftoppm", "-png", "-r", "30", str(pdf), str(tmp_path / name)], check=True, timeout=60)
        pngs = sorted(tmp_path.glob(f"{name}-*.png"))
        assert len(pngs) == len(r.reader.pages)
        assert all(p.stat().st_size > 2000 for p in pngs)  # not blank


# --- edge cases: documents still render with sparse inputs ------------------------------------


def test_fact_sheet_without_history(fact_input):
    data = dataclasses.replace(fact_input, history=())
    r = _read(render_fact_sheet(data))
    assert S("No historical index values are available") in r.flat()
    assert len(r.reader.pages) == 1


def test_technical_report_with_short_history_and_missing_years(tech_input):
    rows = tuple(dataclasses.replace(row, index_value=None) if row.year == 2010 else row for row in tech_input.burn_rows[-12:])
    data = dataclasses.replace(tech_input, burn_rows=rows, notes=())
    r = _read(render_technical_pricing_report(data))
    assert S("11 years") in r.flat()
    assert "n/a" in r.text
    assert 3 <= len(r.reader.pages) <= 4


def test_quote_with_one_cover_and_no_distribution(quote_input):
    one = quote_input.covers[17]
    data = dataclasses.replace(
        quote_input,
        covers=(one,),
        total_sum_insured=one.sum_insured,
        gross_premium=one.premium,
        pricing=dataclasses.replace(quote_input.pricing, loss_distribution=None),
    )
    r = _read(render_quote_document(data))
    assert S("Total, 1 cover ") in r.flat() and S("Total, 1 covers") not in r.flat()
    assert "P(payout > x)" not in r.text
    assert len(r.reader.pages) <= 2


def test_fact_sheet_with_long_names_stays_on_one_page(fact_input):
    """What the catalogue produces: long labels and target names, dozens of pin codes."""
    cover = dataclasses.replace(
        fact_input.cover,
        label="Monthly total rainfall · Chennai, Tamil Nadu · Nov 2027",
        monitoring_target_name="Chennai, Tamil Nadu (13.125°N 80.375°E)",
        pin_codes=tuple(f"6000{i:02d}" for i in range(1, 25)),
        limit=Decimal("100000"),
        min_payout=Decimal("10000"),
        payout_per_unit=Decimal("355.74"),
        trigger=Decimal("639.8"),
        exit=Decimal("892.8"),
    )
    data = dataclasses.replace(fact_input, cover=cover, payout_curve=samples.payout_curve(cover))
    r = _read(render_fact_sheet(data))
    assert len(r.reader.pages) == 1
    assert S("600001, 600002, 600003, 600004, 600005, 600006 and 18 more") in r.flat()
    assert "(13.125°N 80.375°E), at" not in r.text  # coordinates not repeated


def test_schedule_fits_extreme_terms_without_cutting_values(policy_input):
    """Terms as the pricing engine produces them: odd decimals, steep payouts per unit."""
    li = policy_input.line_items[4]
    rain, heat = li.covers
    steep = dataclasses.replace(
        rain,
        index_name="Daytime rainfall (08:00-20:00)",
        direction=Direction.BELOW,
        trigger=Decimal("0.5"),
        exit=Decimal("0"),
        payout_per_unit=Decimal("900000"),
        limit=Decimal("100000"),
        min_payout=Decimal("10000"),
    )
    wide = dataclasses.replace(heat, trigger=Decimal("167.4"), exit=Decimal("219.7"))
    item = dataclasses.replace(li, covers=(steep, wide), quantity=Decimal("2.5"), premium=Decimal("43442.80"))
    data = dataclasses.replace(policy_input, line_items=(item,) + policy_input.line_items[5:])
    r = _read(render_policy_schedule(data))
    schedule = r.pages[1]
    assert "…" not in schedule
    for value in ("Daytime rainfall (08:00-20:00)", "₹900,000/mm", "≤ 0.5 mm", "≥ 167.4 °C", "219.7 °C", "₹43,442.80", "₹250,000"):
        assert value in schedule.replace("\u00a0", " "), value


def test_a_quote_says_its_covers_premiums_are_their_parts_of_the_package(quote_input):
    """Issue 26: each cover's premium is its part of the package's; the note says so, and
    names the covers' sum only where the line items' rounding moves the total off it."""
    from reports.render import quote_document_html

    own = sum((qc.premium for qc in quote_input.covers), Decimal(0))
    summed = quote_document_html(dataclasses.replace(quote_input, gross_premium=own))
    assert "each cover's premium is its part of the package's premium" in summed
    assert "add up to" not in summed
    rounded = quote_document_html(dataclasses.replace(quote_input, gross_premium=own + Decimal("0.03")))
    assert "the covers' premiums add up to" in rounded
