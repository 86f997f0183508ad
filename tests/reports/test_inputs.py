"""Input types: they refuse what would print wrong, and they travel through msgspec (the
Temporal data converter's encoding) unchanged."""

from __future__ import annotations

import dataclasses
import datetime as dt
from decimal import Decimal

import msgspec
import pytest

from tests.document_samples import samples
from reports.inputs import (
    CoverFacts,
    Direction,
    FactSheetInput,
    LossDistribution,
    PayoutCurve,
    PayoutPoint,
    PolicyScheduleInput,
    QuoteDocumentInput,
    TechnicalPricingReportInput,
)


@pytest.fixture(scope="module")
def cover() -> CoverFacts:
    return samples.sample_fact_sheet_input().cover


def test_money_must_be_decimal(cover):
    with pytest.raises(TypeError, match="limit must be a Decimal"):
        dataclasses.replace(cover, limit=10000.0)


def test_money_must_be_finite(cover):
    with pytest.raises(ValueError, match="finite"):
        dataclasses.replace(cover, gross_premium=Decimal("NaN"))


def test_exit_on_the_wrong_side_of_the_trigger_is_refused(cover):
    with pytest.raises(ValueError, match="wrong side"):
        dataclasses.replace(cover, exit=Decimal("150"))  # ABOVE cover, trigger 200
    with pytest.raises(ValueError, match="wrong side"):
        dataclasses.replace(cover, direction=Direction.BELOW)  # exit 260 above trigger 200


def test_risk_period_and_currency_are_checked(cover):
    with pytest.raises(ValueError, match="ends before it starts"):
        dataclasses.replace(cover, risk_period_end=dt.date(2027, 8, 1))
    with pytest.raises(ValueError, match="ISO 4217"):
        dataclasses.replace(cover, currency="rupees")


def test_document_currency_must_match_covers():
    quote = samples.sample_quote_document_input()
    with pytest.raises(ValueError, match="in INR, the document in USD"):
        dataclasses.replace(quote, currency="USD")


def test_datetimes_must_be_timezone_aware():
    fact = samples.sample_fact_sheet_input()
    with pytest.raises(ValueError, match="timezone-aware"):
        dataclasses.replace(fact, issued_at=dt.datetime(2026, 8, 20, 9, 30))


def test_curve_and_distribution_shapes_are_checked():
    with pytest.raises(ValueError, match="sorted"):
        PayoutCurve((PayoutPoint(2.0, 0.0), PayoutPoint(1.0, 0.0)))
    with pytest.raises(ValueError, match="len\\(bin_edges\\)"):
        LossDistribution((0.0, 1.0), (1, 2), 0, ())
    dist = LossDistribution((0.0, 1.0, 2.0), (3, 1), 6, ())
    assert dist.simulations == 10


@pytest.mark.parametrize(
    ("build", "kind"),
    [
        (samples.sample_fact_sheet_input, FactSheetInput),
        (samples.sample_technical_pricing_report_input, TechnicalPricingReportInput),
        (samples.sample_quote_document_input, QuoteDocumentInput),
        (samples.sample_policy_schedule_input, PolicyScheduleInput),
    ],
)
def test_inputs_round_trip_through_msgspec(build, kind):
    value = build()
    decoded = msgspec.json.decode(msgspec.json.encode(value), type=kind)
    assert decoded == value


def test_samples_are_consistent():
    tech = samples.sample_technical_pricing_report_input()
    fact = samples.sample_fact_sheet_input()
    # One cover, one price, whichever document shows it.
    assert tech.cover == fact.cover
    assert tech.metrics.gross_premium == tech.cover.gross_premium
    assert tech.loss_distribution.simulations == tech.metrics.simulations
    assert tech.convergence.points[-1].simulations == tech.metrics.simulations
    quote = samples.sample_quote_document_input()
    assert len(quote.covers) == 24
    # a line item's covers pay at most its sum insured together (issue 26)
    assert quote.total_sum_insured == sum({c.line_item: c.sum_insured for c in quote.covers}.values())
    assert quote.gross_premium == sum(c.premium for c in quote.covers)
    policy = samples.sample_policy_schedule_input()
    assert len(policy.line_items) == 12
    assert all(len(li.covers) == 2 for li in policy.line_items)
    assert policy.total_sum_insured == quote.total_sum_insured
