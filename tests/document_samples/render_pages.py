"""Every page of every document, rendered from the samples as PNG images for a person to look
at (the closing notes and docs/documents.md show them): the fact sheet, the technical pricing
report (the adjusted index in its burn table), the
quote document, the policy schedule as issued and once cancelled, the claim report and the
portfolio risk report.

    .venv/bin/python -m tests.document_samples.render_pages [OUT_DIR] [--dpi 50]

Needs `pdftoppm` (Debian poppler-utils, installed by `make install`). OUT_DIR defaults to
docs/document-pages."""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import subprocess
import tempfile
from pathlib import Path

from reports import (
    render_claim_report,
    render_fact_sheet,
    render_policy_schedule,
    render_portfolio_report,
    render_quote_document,
    render_technical_pricing_report,
)
from reports.inputs import BurnRow
from tests.document_samples import samples

REPO = Path(__file__).resolve().parents[2]


def _adjusted_report():
    """The sample technical report with the adjusted index in its burn table (the record
    brought to the model's level, as the live engine's reports carry it)."""
    base = samples.sample_technical_pricing_report_input()
    burn = tuple(BurnRow(r.year, r.index_value, r.payout,
                         adjusted_index_value=None if r.index_value is None else round(r.index_value * 0.93, 1))
                 for r in base.burn_rows)
    return dataclasses.replace(base, burn_rows=burn)


def documents() -> dict[str, bytes]:
    schedule = samples.sample_policy_schedule_input()
    cancelled = dataclasses.replace(
        schedule, status="CANCELED", canceled_at=dt.datetime(2027, 3, 14, 10, 0, tzinfo=dt.UTC),
        issued_at=dt.datetime(2027, 3, 14, 10, 0, tzinfo=dt.UTC),
    )
    return {
        "fact-sheet": render_fact_sheet(samples.sample_fact_sheet_input()),
        "technical-pricing-report": render_technical_pricing_report(_adjusted_report()),
        "quote-document": render_quote_document(samples.sample_quote_document_input()),
        "policy-schedule": render_policy_schedule(schedule),
        "policy-schedule-cancelled": render_policy_schedule(cancelled),
        "claim-report": render_claim_report(samples.sample_claim_report_input()),
        "portfolio-risk-report": render_portfolio_report(samples.sample_portfolio_report_input()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", nargs="?", default=str(REPO / "docs" / "document-pages"))
    parser.add_argument("--dpi", type=int, default=50)
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.png"):
        old.unlink()
    with tempfile.TemporaryDirectory() as tmp:
        for name, pdf in documents().items():
            path = Path(tmp) / f"{name}.pdf"
            path.write_bytes(pdf)
            subprocess.run(["pdftoppm", "-png", "-r", str(args.dpi), str(path), str(out / name)], check=True, timeout=120)
    for png in sorted(out.glob("*.png")):
        print(png.relative_to(REPO) if png.is_relative_to(REPO) else png)


if __name__ == "__main__":
    main()
