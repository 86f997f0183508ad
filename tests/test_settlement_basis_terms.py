"""A cover's settlement basis where people read it (issue 34): `settlementBasis` on the
full-form coverage (null for a cover sold before the ladder), the fact sheet and the policy
schedule (the ladder and the deadlines), and docs/observations.md's "Source ladders" (every
data set's rungs, latency and error as the code declares them). Before issue 34 none of
them said how or when a cover is settled."""

from __future__ import annotations

import dataclasses
import datetime as dt
import io
import re
import uuid
from decimal import Decimal
from pathlib import Path

import msgspec
import pypdf
import pytest

from activities.document_inputs import ladder_facts
from api.catalogue.responses import basis_out, coverage_full
from models.clock import utcnow
from models.db.records import CoverageRow, record
from models.domain.basis_terms import rungs
from models.domain.index_catalog import BY_CODE
from models.domain.quotes import CoverSnapshot
from models.domain.settlement_basis import LADDERS, basis_for, encode_basis
from reports import render_fact_sheet, render_policy_schedule
from tests.document_samples import samples

DOCS = Path(__file__).resolve().parents[1] / "docs"


def _text(pdf: bytes) -> str:
    pages = pypdf.PdfReader(io.BytesIO(pdf)).pages
    return " ".join(" ".join((p.extract_text() or "").replace("\u00a0", " ") for p in pages).split())


def _coverage_row(settlement_basis) -> dict:
    """A coverage row as the database gives it (SQLite: JSON columns as text)."""
    now = utcnow()
    return {
        "id": uuid.uuid4(), "monitoring_target_id": "IN-12.875N-077.625E",
        "index_definition_id": BY_CODE["RAINFALL_MONTHLY_TOTAL"].id, "risk_period_start": dt.date(2027, 7, 1),
        "risk_period_end": dt.date(2027, 7, 31), "label": "July", "risk_carrier": "Parametric Re Ltd",
        "currency": "INR", "status": "ACTIVE", "ui_state": "active", "direction": "ABOVE", "trigger": Decimal(300),
        "exit": Decimal(500), "limit_minor": 10_000_000, "min_payout_minor": 100_000, "payout_per_unit_minor": 5_000,
        "risk_premium_minor": 0, "risk_premium_pct": Decimal(0), "gross_premium_indication_pct": Decimal(0),
        "expected_loss_ratio": Decimal("0.35"), "simulations": 0, "pricing_version": 0, "fact_sheet_file_id": None,
        "technical_report_file_id": None, "created_by": "test", "created_at": now, "updated_at": now,
        "data_set": "IMD-RF-DAILY", "settlement_basis": settlement_basis,
    }


def test_a_stored_basis_is_read_back_and_shown_on_the_full_form_coverage():
    basis = basis_for("RAINFALL_MONTHLY_TOTAL", "IMD-RF-DAILY")
    row = record(CoverageRow, _coverage_row(encode_basis(basis)))
    assert row.settlement_basis == basis
    view = msgspec.to_builtins(coverage_full(row, "Bengaluru"))["settlementBasis"]
    assert view["dataSet"] == "IMD-RF-DAILY" and view["variable"] == "rainfall_mm"
    assert [r["rung"] for r in view["ladder"]] == ["FINAL", "PROVISIONAL"]
    assert "archive" in view["ladder"][0]["product"] and "real-time" in view["ladder"][1]["product"]
    assert view["provisionalLatencyDays"] == 1
    assert view["fallback"]["dataSet"] == "REAN-SFC-HOURLY" and "ERA5" in view["fallback"]["product"]
    assert "least squares" in view["fallback"]["calibration"]
    assert (view["calculationDeadlineDays"], view["trueUpWindowDays"]) == (15, 450)
    assert Decimal(view["initialErrorShare"]) == 1
    assert (Decimal(view["provisionalError"]), Decimal(view["tolerance"])) == (Decimal("2.0"), Decimal(10))


def test_a_cover_sold_before_the_ladder_shows_null():
    row = record(CoverageRow, _coverage_row(None))
    assert row.settlement_basis is None
    assert msgspec.json.decode(msgspec.json.encode(coverage_full(row, "Bengaluru")))["settlementBasis"] is None


def test_hourly_rain_has_no_fallback():
    view = msgspec.to_builtins(basis_out(basis_for("RAINFALL_DAYTIME_HOURS", "IMD-RF-HOURLY")))
    assert view["fallback"] is None and [r["rung"] for r in view["ladder"]] == ["FINAL", "PROVISIONAL"]
    assert basis_out(None) is None


def test_a_quote_freezes_the_coverages_basis_into_its_cover_snapshot():
    from api.catalogue.service import snapshot

    basis = basis_for("RAINFALL_MONTHLY_TOTAL", "IMD-RF-DAILY")
    cover = snapshot(record(CoverageRow, _coverage_row(encode_basis(basis))))
    assert cover.settlement_basis == basis
    # as a line item stores it (JSON) and reads it back
    again = msgspec.convert(msgspec.to_builtins(cover), CoverSnapshot, strict=False)
    assert again.settlement_basis == basis
    assert snapshot(record(CoverageRow, _coverage_row(None))).settlement_basis is None


def test_the_fact_sheet_shows_the_ladder_and_the_deadline():
    data = samples.sample_fact_sheet_input()
    ladder = data.cover.settlement_ladder
    assert ladder is not None and ladder.calculation_deadline == data.cover.risk_period_end + dt.timedelta(days=15)
    text = _text(render_fact_sheet(data))
    assert "No claim needed" in text and "final IMD-RF-DAILY" in text and "fallback REAN-SFC-HOURLY" in text
    assert "First payment within 15 days of the period's end" in text
    assert f"{ladder.calculation_deadline.day} {ladder.calculation_deadline:%b %Y}" in text
    without = _text(render_fact_sheet(dataclasses.replace(
        data, cover=dataclasses.replace(data.cover, settlement_ladder=None))))
    assert "First payment within" not in without


def test_the_fact_sheet_with_a_ladder_stays_on_one_page():
    pdf = render_fact_sheet(samples.sample_fact_sheet_input())
    assert len(pypdf.PdfReader(io.BytesIO(pdf)).pages) == 1


def test_the_policy_schedule_shows_every_ladder_and_each_covers_deadlines():
    data = samples.sample_policy_schedule_input()
    text = _text(render_policy_schedule(data))
    assert "Settlement basis" in text
    basis = basis_for("RAINFALL_MONTHLY_TOTAL", "IMD-RF-DAILY")
    for rung in rungs(basis):
        assert rung.product.split(" (")[0] in text, rung
    assert "First payment at the latest" in text and "True-up at the latest" in text
    july = next(c for li in data.line_items for c in li.covers if c.settlement_ladder
                and c.risk_period_start.month == 7)
    deadline = july.settlement_ladder.calculation_deadline
    assert deadline == dt.date(july.risk_period_end.year, 8, 15)
    assert f"{deadline.day} {deadline:%b %Y}" in text
    # the sample's heat covers settle on the reanalysis, which has no ladder: final values only
    assert "Settled on final values only" in text and "Maximum temperature" in text


def test_ladder_facts_date_the_deadlines_from_the_periods_end():
    facts = ladder_facts(basis_for("WIND_MAX_SPEED", "IBTRACS-WIND"), dt.date(2027, 10, 31))
    assert facts.calculation_deadline == dt.date(2027, 11, 15)
    assert facts.true_up_deadline == dt.date(2027, 10, 31) + dt.timedelta(days=450)
    assert [r.rung for r in facts.rungs] == ["FINAL", "PROVISIONAL", "FALLBACK"] and facts.calibration
    assert ladder_facts(None, dt.date(2027, 10, 31)) is None


def _source_ladders() -> str:
    text = (DOCS / "observations.md").read_text(encoding="utf-8")
    section = text.split("### Source ladders", 1)[1]
    return re.split(r"\n## ", section, maxsplit=1)[0]


@pytest.mark.parametrize("data_set", sorted(LADDERS))
def test_the_docs_state_every_ladder_as_the_code_declares_it(data_set):
    ladder = LADDERS[data_set]
    (line,) = [x for x in _source_ladders().splitlines() if x.startswith(f"| `{data_set}` |")]
    cells = [c.strip() for c in line.strip("|").split("|")]
    assert f"**{ladder.provisional_latency_days} day" in cells[2], cells[2]
    assert Decimal(cells[3].split()[0]) == ladder.provisional_error, cells[3]
    assert Decimal(cells[5].split()[0]) == ladder.tolerance, cells[5]
    if ladder.fallback_data_set is None:
        assert cells[4].startswith("none")
    else:
        assert cells[4].startswith(f"`{ladder.fallback_data_set}`")
