"""The claims reserve, pure (issue 34; models/domain/reserves.py; docs/portfolio.md, "Owed but
not yet paid"): what an ended cover not settled FINAL still owes, exact to the paisa."""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal

from models.domain.index_catalog import BY_CODE
from models.domain.quotes import CoverSnapshot
from models.domain.reserves import (
    HeldCover,
    HeldItem,
    expected_minor,
    owed_of_item,
    reserve_rows,
)

AS_OF = dt.date(2027, 8, 10)


def cover(month: int = 7, trigger: str = "150", direction: str = "ABOVE", code: str = "RAINFALL_MONTHLY_TOTAL",
          rate: str = "0.04") -> CoverSnapshot:
    start = dt.date(2027, month, 1)
    end = dt.date(2027, month + 1, 1) - dt.timedelta(days=1)
    return CoverSnapshot(
        coverage_id=uuid.uuid4(), index_code=code, index_definition_id=BY_CODE[code].id, start=start, end=end,
        direction=direction, trigger=Decimal(trigger), exit=None, currency="INR", limit_minor=100_000,
        min_payout_minor=0, payout_per_unit_minor=1_000, gross_premium_pct=Decimal("0.06"),
        risk_premium_pct=Decimal(rate), pricing_version=1, data_set="IMD-RF-DAILY",
    )


def held(c, state="", paid=0, index=None) -> HeldCover:
    return HeldCover(cover=c, data_set="IMD-RF-DAILY", state=state, paid_minor=paid, index_value=index)


def test_an_initial_cover_owes_the_payout_at_its_unreduced_index_less_what_was_paid():
    # 173.45 mm against 150: 23.45 mm x 10 INR x 3 units = 703.50 INR; INITIAL paid 643.50
    c = held(cover(), "INITIAL", paid=64_350, index=Decimal("173.45"))
    item = HeldItem(Decimal(3), 300_000, "INR", (c,))
    assert expected_minor(c, Decimal(3), "INR") == 70_350
    assert owed_of_item(item, AS_OF) == [(c, 6_000)]


def test_without_an_index_the_priced_expected_loss_for_the_units_is_owed():
    # 0.04 x 1,000 INR x 2.5 units = 100.00 INR
    c = held(cover(rate="0.04"), "WAITING")
    assert owed_of_item(HeldItem(Decimal("2.5"), 250_000, "INR", (c,)), AS_OF) == [(c, 10_000)]
    flagged = held(cover(rate="0.0333333"), "FLAGGED")  # 0.0333333 x 1,000 x 3 = 99.9999 -> 100.00 (half-even)
    assert owed_of_item(HeldItem(Decimal(3), 300_000, "INR", (flagged,)), AS_OF) == [(flagged, 10_000)]


def test_a_negative_true_up_owes_nothing_and_the_cap_bounds_what_is_owed():
    over = held(cover(), "INITIAL", paid=80_000, index=Decimal("173.45"))  # paid more than the index gives: waived
    assert owed_of_item(HeldItem(Decimal(3), 300_000, "INR", (over,)), AS_OF) == [(over, 0)]
    # two covers of one line item: the cap (1,000 INR) less the 500 paid leaves 500 for both
    first = held(cover(), "INITIAL", paid=50_000, index=Decimal(290))  # 140 mm x 10 = 1,400, the limit 1,000: 500 owed
    second = held(cover(trigger="40", direction="BELOW", code="RAINFALL_DEFICIT"), "WAITING")
    owed = owed_of_item(HeldItem(Decimal(1), 100_000, "INR", (first, second)), AS_OF)
    assert owed == [(first, 50_000), (second, 0)]


def test_rows_by_data_set_and_month_with_paid_beside_and_settled_and_running_covers_owe_nothing():
    july, august = cover(7), cover(8)
    settled = held(cover(7), "SETTLED", paid=12_345, index=Decimal(200))
    initial = held(july, "INITIAL", paid=10_000, index=Decimal(170))  # 20 mm x 10 x 1 = 200 INR: 100 owed
    running = held(august, "", paid=0)  # August has not ended on 10 August
    rows = reserve_rows([HeldItem(Decimal(1), 100_000, "INR", (settled,)),
                         HeldItem(Decimal(1), 100_000, "INR", (initial,)),
                         HeldItem(Decimal(1), 100_000, "INR", (running,))], AS_OF)
    assert [(r.data_set, r.month, r.owed_minor, r.paid_minor, r.open_covers, r.by_state) for r in rows] == [
        ("IMD-RF-DAILY", "2027-07", 10_000, 22_345, 1, {"INITIAL": 1}),
    ]
    assert reserve_rows([HeldItem(Decimal(1), 100_000, "INR", (settled,))], AS_OF) == []
