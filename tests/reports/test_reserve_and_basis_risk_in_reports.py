"""The claims reserve in the portfolio risk report and the data's own basis risk in the
technical pricing report (issue 34; docs/portfolio.md, docs/observations.md): what a reader
finds in the PDF (pypdf's text), the page counts unchanged, no value running past its cell."""

from __future__ import annotations

import dataclasses
import datetime as dt
import io
from decimal import Decimal

import pypdf

from models.domain.basis_risk import (
    PRIMARY_FALLBACK,
    PROVISIONAL_FINAL,
    BasisRisk,
    report_sentence,
)
from reports import render_portfolio_report, render_technical_pricing_report
from reports.render import portfolio_report_html
from tests.document_samples import samples
from tests.reports.test_technical_report_fits import overflowing


def _pages(pdf: bytes) -> list[str]:
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    return [(p.extract_text() or "").replace("\u00a0", " ").replace("\n", " ") for p in reader.pages]


def _with_reserve() -> dict:
    money = lambda a: {"amount": a, "currency": "INR"}
    result = samples.sample_portfolio_result()
    result["reserve"] = {
        "owed": money("1245310.55"), "paid": money("8731000.00"), "method": "the reserve's method in words",
        "rows": [
            {"dataSet": "IMD-RF-DAILY", "month": "2026-09", "owed": money("1003310.55"), "paid": money("8731000.00"),
             "openCovers": 412, "byState": {"INITIAL": 380, "WAITING": 32}},
            {"dataSet": "IMD-TMAX-1DEG", "month": "2026-10", "owed": money("242000.00"), "paid": money("0.00"),
             "openCovers": 55, "byState": {"DISPUTED": 3, "WAITING": 52}},
        ],
    }
    return result


def test_the_portfolio_report_shows_the_reserve_by_data_set_and_month():
    base = samples.sample_portfolio_report_input()
    from reports.inputs import portfolio_report_input

    data = portfolio_report_input(
        _with_reserve(), report_id=base.report_id, scope=base.scope, tenant_id=base.tenant_id, version=base.version,
        book_hash=base.book_hash, as_of=base.as_of, computed_at=base.computed_at, workflow_id=base.workflow_id,
        issuer=base.issuer, issued_at=base.issued_at, target_names=dict(base.target_names),
    )
    assert [r.owed for r in data.reserve] == [Decimal("1003310.55"), Decimal("242000.00")]
    pages = _pages(render_portfolio_report(data))
    # the sample book's three pages are full: the reserve moves what the figures leave out and the
    # signature block to a fourth
    assert len(pages) == 4 and "name, date and signature" in pages[-1]
    text = " ".join(pages)
    assert "Owed but not yet paid: the claims reserve" in text and "the reserve's method in words" in text
    for words in ("IMD-RF-DAILY", "Sep 2026", "380 INITIAL, 32 WAITING", "₹1,003,310.55", "₹8,731,000.00",
                  "₹9,734,310.55", "3 DISPUTED, 52 WAITING", "₹1,245,310.55"):
        assert words in text, words
    assert overflowing(portfolio_report_html(data)) == []
    # a result stored before the reserve: no such section
    assert "claims reserve" not in " ".join(_pages(render_portfolio_report(base)))
    assert "is the claims reserve above, not in the curves" in text


def test_the_technical_report_quotes_its_data_sets_basis_risk():
    rows = [
        BasisRisk("IMD-RF-DAILY", "REAN-SFC-HOURLY", PRIMARY_FALLBACK, "RAINFALL_MONTHLY_TOTAL", 40, 36, 3,
                  Decimal("7.42"), Decimal("31.5")),
        BasisRisk("IMD-RF-DAILY", "REAN-SFC-HOURLY", PRIMARY_FALLBACK, "RAINFALL_DEFICIT", 40, 36, 1,
                  Decimal("7.42"), Decimal("31.5")),
        BasisRisk("IMD-RF-DAILY", "IMD-RF-DAILY provisional", PROVISIONAL_FINAL, "RAINFALL_MONTHLY_TOTAL", 40, 30, 0,
                  Decimal("1.2"), Decimal(4)),
        BasisRisk("IMD-TMAX-1DEG", "REAN-SFC-HOURLY", PRIMARY_FALLBACK, "TEMPERATURE_MAX", 9, 9, 9,
                  Decimal(2), Decimal(3)),
    ]
    sentence = report_sentence(rows, "IMD-RF-DAILY", "RAINFALL_MONTHLY_TOTAL", dt.date(2025, 11, 1), dt.date(2026, 10, 31))
    assert sentence == (
        "IMD-RF-DAILY, covers starting Nov 2025–Oct 2026: the primary against its calibrated fallback "
        "(REAN-SFC-HOURLY): the trigger decision flips on 4 of 72 covers compared (5.6 %); this index differs by "
        "7.42 mm on average (at most 31.5); provisional against final (IMD-RF-DAILY provisional): the trigger "
        "decision flips on 0 of 30 covers compared (0.0 %); this index differs by 1.2 mm on average (at most 4).")
    assert "no cover yet" in report_sentence([], "IMD-RF-DAILY", "RAINFALL_DEFICIT", dt.date(2025, 11, 1),
                                             dt.date(2026, 10, 31))
    base = samples.sample_technical_pricing_report_input()
    pages = _pages(render_technical_pricing_report(dataclasses.replace(base, data_basis_risk=sentence)))
    assert len(pages) == len(_pages(render_technical_pricing_report(base))) == 4
    assert "The data's own basis risk" in " ".join(pages) and "flips on 4 of 72 covers compared (5.6 %)" in " ".join(pages)
