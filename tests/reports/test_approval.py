"""An actuary's rerun in its documents (issue 24, four eyes): the technical pricing report
and the fact sheet name who ran it and who published it, or say that it is a candidate not
yet published. The catalogue's own pricing names nobody (no approval)."""

from __future__ import annotations

import dataclasses
import io

import pypdf

from activities.document_inputs import run_approval
from models.db.records import PricingRunRow
from reports import render_fact_sheet, render_technical_pricing_report
from reports.inputs import Approval
from tests.document_samples import samples


def text(pdf: bytes) -> tuple[str, int]:
    pages = pypdf.PdfReader(io.BytesIO(pdf)).pages
    return " ".join(" ".join(p.extract_text() for p in pages).split()), len(pages)


def test_a_published_rerun_names_who_ran_and_who_published_it():
    base = samples.sample_technical_pricing_report_input()
    _, pages = text(render_technical_pricing_report(base))
    published, published_pages = text(
        render_technical_pricing_report(dataclasses.replace(base, approval=Approval("arun", "bea")))
    )
    assert "Run by arun · Published by bea" in published and "not yet published" not in published
    assert published_pages == pages
    fact, fact_pages = text(render_fact_sheet(dataclasses.replace(samples.sample_fact_sheet_input(), approval=Approval("arun", "bea"))))
    assert "Run by arun · Published by bea" in fact and fact_pages == 1


def test_a_candidate_says_it_is_not_yet_published():
    report, _ = text(render_technical_pricing_report(
        dataclasses.replace(samples.sample_technical_pricing_report_input(), approval=Approval("arun"))
    ))
    assert "Run by arun · candidate, not yet published" in report
    assert "not yet published (candidate)" in report  # the pricing run's table
    fact, pages = text(render_fact_sheet(dataclasses.replace(samples.sample_fact_sheet_input(), approval=Approval("arun"))))
    assert "candidate, not yet published" in fact and pages == 1


def _run(status: str, requested_by: str, published_by: str | None) -> PricingRunRow:
    import datetime as dt
    import uuid
    from decimal import Decimal

    now = dt.datetime.now(dt.timezone.utc)
    return PricingRunRow(
        id=uuid.uuid4(), coverage_id=uuid.uuid4(), version=2, status=status, workflow_id="w", simulations=1000,
        seed=1, expected_loss_ratio=Decimal("0.65"), model_version=None, data_hash=None, currency="INR",
        risk_premium_minor=None, risk_premium_pct=None, gross_premium_minor=None, gross_premium_indication_pct=None,
        metrics=None, burn=None, report=None, fact_sheet_file_id=None, technical_report_file_id=None,
        requested_by=requested_by, error=None, created_at=now, completed_at=now, published_by=published_by,
    )


def test_which_runs_name_their_actuaries():
    assert run_approval(_run("CANDIDATE", "staff:arun", None)) == Approval("arun")
    assert run_approval(_run("COMPLETED", "staff:arun", "staff:bea")) == Approval("arun", "bea")
    # published by its requester when priced: the catalogue's own, and runs before four eyes
    assert run_approval(_run("COMPLETED", "catalogue@parametric.example", "catalogue@parametric.example")) is None
    assert run_approval(_run("COMPLETED", "4b0f1a9e-8d2c-4f57-9a51-3e0c2b7d6a10", None)) is None
