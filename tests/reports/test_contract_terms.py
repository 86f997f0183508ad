"""The quote document and the policy schedule print contract terms exactly as the contract
holds them (issue 29, documents): a payout of ₹1,615.80 per mm was printed "₹1,616/mm"."""

from __future__ import annotations

import dataclasses
import io
from decimal import Decimal

import pypdf

from reports import render_policy_schedule, render_quote_document
from tests.document_samples import samples

TERM = Decimal("1615.80")


def _text(pdf: bytes) -> str:
    return " ".join((p.extract_text() or "").replace("\u00a0", " ") for p in pypdf.PdfReader(io.BytesIO(pdf)).pages)


def test_the_policy_schedule_prints_the_terms_exactly():
    data = samples.sample_policy_schedule_input()
    item = data.line_items[0]
    cover = dataclasses.replace(item.covers[0], payout_per_unit=TERM, min_payout=Decimal("1000.50"))
    data = dataclasses.replace(data, line_items=(dataclasses.replace(item, covers=(cover, *item.covers[1:])),
                                                 *data.line_items[1:]))
    text = _text(render_policy_schedule(data))
    assert "₹1,615.80/mm" in text and "₹1,616/mm" not in text
    assert "₹1,000.50" in text


def test_the_quote_document_prints_the_terms_exactly():
    data = samples.sample_quote_document_input()
    first = data.covers[0]
    cover = dataclasses.replace(first.cover, payout_per_unit=TERM)
    data = dataclasses.replace(data, covers=(dataclasses.replace(first, cover=cover), *data.covers[1:]))
    text = _text(render_quote_document(data))
    assert "₹1,615.80/mm" in text and "₹1,616/mm" not in text
